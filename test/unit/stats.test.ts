import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestRecord, Stats } from '../../src/format/result';
import { StepSummarySchema } from '../../src/format/result';
import { computeStats, StepAccumulator, summarizeStep } from '../../src/results/stats';
import { requestRecord } from '../helpers/result-documents';

function near(actual: number | null | undefined, expected: number, what: string): void {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) < 1e-9, `${what}: ${actual}, expected ${expected}`);
}

const record = requestRecord;

test('computeStats: mean, population std and linearly interpolated percentiles (numpy default)', () => {
  const s = computeStats([4, 1, 3, 2]) as Stats;
  assert.equal(s.count, 4);
  assert.equal(s.mean, 2.5);
  near(s.std, Math.sqrt(1.25), 'std'); // deviations 1.5, 0.5, 0.5, 1.5 -> 5/4
  assert.equal(s.min, 1);
  assert.equal(s.max, 4);
  // rank = p/100 * (n - 1) over [1, 2, 3, 4]: p50 -> 1.5 -> 2.5, p66 -> 1.98 -> 2.98, ...
  const expected = { p50: 2.5, p66: 2.98, p75: 3.25, p80: 3.4, p90: 3.7, p95: 3.85, p98: 3.94, p99: 3.97 };
  for (const [key, value] of Object.entries(expected)) near(s[key as keyof Stats] as number, value, key);
  assert.equal(computeStats([]), null);
  assert.deepEqual(computeStats([7]), { count: 1, mean: 7, std: 0, min: 7, max: 7, p50: 7, p66: 7, p75: 7, p80: 7, p90: 7, p95: 7, p98: 7, p99: 7 });
});

/*
 * A hand-made step (times in ms):
 *   warm-up  sent 0     chunks 10, 20                            left out
 *   r1       sent 100   chunks 150, 160, 180   3 out, 10 in       TTFT 50, latency 80, TPOT 30/2 = 15, ITL 10, 20
 *   r2       sent 200   chunks 220, 250        4 out, 20 in       TTFT 20, latency 50, TPOT 30/3 = 10, ITL 30
 *   r3       sent 300   chunk 400              1 out, 5 in        TTFT 100, latency 100, no TPOT, no ITL
 *   r4       sent 350   HTTP 500 at 360                           failed
 *   r5       sent 380   cancelled at 1300                         left out, counted as cancelled
 * Steady window: from the first measured send (100; the fill-up, the requests sent before the first
 * completion at 20, ended at 20) to the last send (r5, 380): 280 ms. Inside it r1 and r2 complete (r3 at 400 is past it),
 * 3 + 4 tokens arrive, the prompts of r1 and r2 are prefilled (first chunks 150 and 220), and requests
 * are in flight 80 (r1) + 50 (r2) + 80 (r3 until 380) + 10 (r4) ms.
 * Span (the definition before steady windows, and imports'): first measured send 100 to last measured end 400 = 0.3 s.
 */
const step: RequestRecord[] = [
  record({ warmup: true, sentMs: 0, firstTokenMs: 10, chunkMs: [10, 20], endMs: 20, outputTokens: 2, inputTokens: 1 }),
  record({ index: 1, sentMs: 100, queueMs: 5, firstTokenMs: 150, chunkMs: [150, 160, 180], endMs: 180, outputTokens: 3, inputTokens: 10 }),
  record({ index: 2, sentMs: 200, queueMs: 0, firstTokenMs: 220, chunkMs: [220, 250], endMs: 250, outputTokens: 4, inputTokens: 20 }),
  record({ index: 3, sentMs: 300, queueMs: 15, firstTokenMs: 400, chunkMs: [400], endMs: 400, outputTokens: 1, inputTokens: 5 }),
  record({ index: 4, sentMs: 350, endMs: 360, httpStatus: 500, error: { kind: 'http', message: 'HTTP 500' } }),
  record({ index: 5, sentMs: 380, endMs: 1300, error: { kind: 'cancelled', message: 'cancelled' } }),
  record({ warmup: true, sentMs: 5, endMs: 6, error: { kind: 'reset', message: 'reset' } }),
];

test('summarizeStep over hand-made records: counts, steady window, throughput, TTFT, ITL, TPOT, latency, queue', () => {
  const s = summarizeStep(step, { kind: 'rate', rate: 10 });
  assert.equal(StepSummarySchema.safeParse(s).success, true);
  assert.deepEqual(s.requests, { total: 4, completed: 3, failed: 1 });
  assert.deepEqual(s.errors, { http: 1, cancelled: 1 });
  assert.deepEqual(s.rateWindow, { definition: 'steady', startMs: 100, endMs: 380, opensAt: 'warm-up', completed: 2, outputTokens: 7, tokensEstimated: false, spanSec: 0.3 });
  near(s.durationSec, 0.28, 'duration');
  near(s.requestsPerSecond, 2 / 0.28, 'req/s');
  near(s.outputTokensPerSecond, 7 / 0.28, 'output tok/s');
  near(s.totalTokensPerSecond, (7 + 30) / 0.28, 'total tok/s');
  near(s.ttftMs?.mean, (50 + 20 + 100) / 3, 'ttft mean');
  assert.equal(s.ttftMs?.count, 3);
  assert.equal(s.ttftMs?.p50, 50);
  assert.deepEqual([s.itlMs?.count, s.itlMs?.mean, s.itlMs?.min, s.itlMs?.max], [3, 20, 10, 30]);
  assert.deepEqual([s.tpotMs?.count, s.tpotMs?.mean], [2, 12.5]);
  near(s.latencyMs?.mean, (80 + 50 + 100) / 3, 'latency mean');
  assert.equal(s.latencyMs?.max, 100);
  near(s.queueMs?.mean, 20 / 3, 'queue mean');
  near(s.achievedConcurrency, 220 / 280, 'concurrency');
  assert.equal(s.targetRate, 10);
  // Measured sends at 100, 200, 300, 350: 3 gaps over 250 ms.
  near(s.achievedRate, 12, 'achieved rate');
  assert.deepEqual([s.inputTokens?.mean, s.outputTokens?.mean], [35 / 3, 8 / 3]);
  assert.equal(s.goodput, null, 'no SLO, no goodput');
  assert.equal(s.warnings, undefined, 'it sent for 0.38 s, over 3 x its median latency of 80 ms');
});

test('over the span (the definition before steady windows, kept for imports) the rates are those of the measured requests', () => {
  const s = summarizeStep(step, { kind: 'rate', rate: 10 }, undefined, 'span');
  assert.equal(s.rateWindow, undefined);
  near(s.durationSec, 0.3, 'duration');
  near(s.requestsPerSecond, 3 / 0.3, 'req/s');
  near(s.outputTokensPerSecond, 8 / 0.3, 'output tok/s');
  near(s.totalTokensPerSecond, (8 + 35) / 0.3, 'total tok/s');
  // In flight: 80 + 50 + 100 + 10 ms over a 300 ms window.
  near(s.achievedConcurrency, 0.8, 'concurrency');
  near(summarizeStep(step, { kind: 'synchronous' }, { ttftMs: 60, tpotMs: 12 }, 'span').goodput, 1 / 0.3, 'ttft+tpot');
});

test('goodput counts completions inside the window meeting every SLO, with TPOT 0 for a single output token', () => {
  // r1 fails TPOT (15 > 12), r2 meets both; r3 (TTFT 100) completes after the window.
  near(summarizeStep(step, { kind: 'rate', rate: 10 }, { ttftMs: 60, tpotMs: 12 }).goodput, 1 / 0.28, 'ttft+tpot');
  // Over the span r3's single token counts as TPOT 0 and its 100 ms latency meets e2e 120: r2 and r3 are good.
  near(summarizeStep(step, { kind: 'synchronous' }, { tpotMs: 12, e2eMs: 120 }, 'span').goodput, 2 / 0.3, 'tpot+e2e');
});

test('the steady window opens once the fill-up is served, and counts the tokens of requests still in flight at its end by their chunks', async () => {
  // An open loop without warm-up. B comes back first, at 300; A, sent before it, ends at 1300: the fill-up.
  const records = [
    record({ index: 0, sentMs: 0, firstTokenMs: 1100, chunkMs: [1100, 1200, 1300], endMs: 1300, outputTokens: 6, inputTokens: 7 }),
    record({ index: 1, sentMs: 100, firstTokenMs: 300, chunkMs: [300], endMs: 300, outputTokens: 1, inputTokens: 7 }),
    // Sent after the first completion, so not in the fill-up; they complete inside (1300, 2000].
    record({ index: 2, sentMs: 1000, firstTokenMs: 1400, chunkMs: [1400, 1500, 1600, 1700], endMs: 1700, outputTokens: 4, inputTokens: 7 }),
    record({ index: 6, sentMs: 1100, firstTokenMs: 1500, chunkMs: [1500, 1800], endMs: 1800, outputTokens: 2, inputTokens: 7 }),
    // Cancelled after the window: 3 of its 5 chunks (1 token each, counted by the estimate) came inside it.
    record({ index: 3, sentMs: 1500, firstTokenMs: 1600, chunkMs: [1600, 1800, 2000, 2200, 2400], endMs: 2500, outputTokens: 5, inputTokens: 7, outputTokensSource: 'estimate', error: { kind: 'cancelled', message: 'cancelled' } }),
    // Completed after the window, in the drain: counts toward latency, not toward the rates; 1 of its 2 tokens is inside.
    record({ index: 4, sentMs: 1900, firstTokenMs: 1950, chunkMs: [1950, 2300], endMs: 2300, outputTokens: 2, inputTokens: 7 }),
    // The last send closes the window; it was cancelled with nothing received.
    record({ index: 5, sentMs: 2000, endMs: 2600, inputTokens: 7, error: { kind: 'cancelled', message: 'cancelled' } }),
  ];
  const s = summarizeStep(records, { kind: 'rate', rate: 2 });
  assert.deepEqual(s.rateWindow, { definition: 'steady', startMs: 1300, endMs: 2000, opensAt: 'fill-up', completed: 2, outputTokens: 4 + 2 + 3 + 1, tokensEstimated: true, spanSec: 2.3 });
  near(s.durationSec, 0.7, 'duration');
  near(s.requestsPerSecond, 2 / 0.7, 'req/s');
  near(s.outputTokensPerSecond, 10 / 0.7, 'output tok/s');
  // Prefilled inside: the two completed (first chunks 1400, 1500), the cancelled one (1600) and the drained one (1950).
  near(s.totalTokensPerSecond, (10 + 28) / 0.7, 'total tok/s');
  assert.deepEqual([s.requests.completed, s.latencyMs?.count], [5, 5], 'the drained request counts toward latency');
  // In flight inside the window: 400 + 500 (the two completed) + 500 (cancelled) + 100 (drained) ms.
  near(s.achievedConcurrency, 1500 / 700, 'concurrency');
});

test('a steady window with a single completion gives no rate: the step falls back to its span', () => {
  const records = [
    record({ index: 0, sentMs: 0, endMs: 100, outputTokens: 1 }),
    record({ index: 1, sentMs: 100, endMs: 200, outputTokens: 1 }),
    record({ index: 2, sentMs: 200, endMs: 300, outputTokens: 1 }),
  ];
  // An open loop: the window (100, 200] holds one completion.
  const s = summarizeStep(records, { kind: 'rate', rate: 10 });
  assert.equal(s.rateWindow?.definition, 'span');
  near(s.requestsPerSecond, 3 / 0.3, 'req/s over the span');
  const longer = summarizeStep([...records, record({ index: 3, sentMs: 300, endMs: 400, outputTokens: 1 })], { kind: 'rate', rate: 10 });
  assert.deepEqual([longer.rateWindow?.definition, longer.rateWindow?.completed], ['steady', 2]);
  near(longer.requestsPerSecond, 10, 'one request every 100 ms');
});

test('a step that sent everything before anything completed has no steady window: its rates are over its span', () => {
  const records = [
    record({ index: 0, sentMs: 0, endMs: 400, outputTokens: 4 }),
    record({ index: 1, sentMs: 1, endMs: 500, outputTokens: 4 }),
  ];
  const s = summarizeStep(records, { kind: 'throughput', concurrency: 2 });
  assert.equal(s.rateWindow?.definition, 'span');
  near(s.durationSec, 0.5, 'duration');
  near(s.requestsPerSecond, 2 / 0.5, 'req/s');
});

test('a step that sent for less than 3 times its median latency carries the too-short warning with its figures', () => {
  // A closed loop of 2 whose requests take 2 s, cut after 5 s: its last send at 4 s.
  const records = [0, 2000, 4000].flatMap((sentMs, i) => [
    record({ index: 2 * i, sentMs, firstTokenMs: sentMs + 100, chunkMs: [sentMs + 100, sentMs + 2000], endMs: sentMs + 2000, outputTokens: 2 }),
    record({ index: 2 * i + 1, sentMs, firstTokenMs: sentMs + 100, chunkMs: [sentMs + 100, sentMs + 2000], endMs: sentMs + 2000, outputTokens: 2 }),
  ]);
  const tooShort = (all: RequestRecord[]) => {
    const accumulator = new StepAccumulator({ kind: 'concurrency', concurrency: 2 });
    for (const r of all) accumulator.add(r);
    return accumulator.tooShort(accumulator.summary());
  };
  const warning = tooShort(records);
  assert.equal(warning?.kind, 'too-short');
  assert.match(warning?.message ?? '', /^this step is too short for its latency: its rates are mostly ramp-up; run it longer \(it sent for 4\.0 s; its median request took 2\.00 s/);
  assert.deepEqual(warning?.figures, { sendingSec: 4, medianLatencyMs: 2000 });
  // Sending for 6 s (three latencies) is enough.
  assert.equal(tooShort([...records, record({ index: 6, sentMs: 6000, endMs: 8000, outputTokens: 2 })]), null);
  assert.equal(summarizeStep(records, { kind: 'concurrency', concurrency: 2 }).warnings, undefined, 'a reader re-summarizing a step does not add it: the run does');
  // A throughput step whose requests all go out at once says that, not "it sent for 0.0 s".
  const burst = tooShort([0, 1, 2, 3].map((i) => record({ index: i, sentMs: i, firstTokenMs: 100, chunkMs: [100, 2000], endMs: 2000, outputTokens: 2 })));
  assert.match(burst?.message ?? '', /\(it sent all its requests at once; its median request took 2\.00 s/);
  assert.deepEqual(burst?.figures, { sendingSec: 0.003, medianLatencyMs: 1998.5 });
});

test('without streaming there is no TTFT, ITL or TPOT (null, not invented) and no TTFT goodput', () => {
  const plain = [
    record({ sentMs: 0, endMs: 100, outputTokens: 10, inputTokens: 4 }),
    record({ sentMs: 50, endMs: 250, outputTokens: 20, inputTokens: 4 }),
  ];
  const s = summarizeStep(plain, { kind: 'concurrency', concurrency: 2 }, { ttftMs: 100 });
  assert.equal(s.ttftMs, null);
  assert.equal(s.itlMs, null);
  assert.equal(s.tpotMs, null);
  assert.equal(s.goodput, null);
  assert.deepEqual([s.latencyMs?.mean, s.durationSec, s.rateWindow?.definition], [150, 0.25, 'span'], 'both were sent before the first completed: no steady window');
  near(summarizeStep(plain, { kind: 'concurrency', concurrency: 2 }, { e2eMs: 150 }).goodput, 1 / 0.25, 'e2e goodput');
});

test('peak output tokens per second in 1-second buckets spreads a chunked response over its chunks', () => {
  const s = summarizeStep(
    [
      // 8 tokens over 4 chunks: 2 per chunk, two chunks in each of the first two seconds.
      record({ sentMs: 0, firstTokenMs: 100, chunkMs: [100, 600, 1100, 1600], endMs: 1600, outputTokens: 8 }),
      // Non-streamed: all 6 tokens at its end, 900 ms, in the first second.
      record({ sentMs: 50, endMs: 900, outputTokens: 6 }),
    ],
    { kind: 'concurrency', concurrency: 2 },
  );
  assert.equal(s.peakOutputTokensPerSecond, 10);
});

test('a step with only failures or nothing measured has counts but no figures', () => {
  const s = summarizeStep([record({ sentMs: 0, endMs: 3, error: { kind: 'connect', message: 'refused' } })], { kind: 'synchronous' });
  assert.deepEqual(s.requests, { total: 1, completed: 0, failed: 1 });
  assert.deepEqual([s.requestsPerSecond, s.outputTokensPerSecond, s.latencyMs, s.ttftMs], [0, 0, null, null]);
  const empty = summarizeStep([], { kind: 'synchronous' });
  assert.deepEqual([empty.requests.total, empty.durationSec, empty.requestsPerSecond, empty.achievedRate], [0, null, null, null]);
});
