// The step figures of reasoning, embeddings and cancellation by design (docs/metrics.md), each
// checked against values worked out by hand from a hand-made step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StepSummarySchema, type RequestRecord, type StepSummary } from '../../src/format/result';
import { summarizeStep } from '../../src/results/stats';
import { sloFigure, SloMapSchema } from '../../src/format/tune';
import { requestRecord } from '../helpers/result-documents';

/** A streamed record: its first token, end and output tokens (one a chunk) from its chunks, unless given. */
function record(fields: Partial<RequestRecord> & Pick<RequestRecord, 'sentMs'>): RequestRecord {
  const chunks = fields.chunkMs ?? [];
  return requestRecord({ firstTokenMs: chunks[0] ?? null, endMs: chunks.at(-1) ?? null, inputTokens: 10, inputTokensSource: 'usage', outputTokens: fields.chunkMs ? chunks.length : null, ...fields });
}

const PROFILE = { kind: 'concurrency' as const, concurrency: 3 };
const mean = (stats: StepSummary['ttfoMs']): number | null | undefined => stats?.mean;

/*
 * A step (ms), one token per chunk:
 *   a  sent 0    reasoning 50, 60, 70  answer 80, 95, 110      TTFT 50, TTFO 80, reasoning 30 ms over 3 tokens
 *   b  sent 10   no reasoning: 40, 50, 60                       TTFT = TTFO 30, 0 reasoning tokens
 *   c  sent 20   reasoning 70, 80, 90, 100, no answer (cut)     TTFT 50, no TTFO, reasoning 30 ms over 4 tokens
 * Window 0 to 110 ms.
 */
const a = record({
  sentMs: 0,
  chunkMs: [50, 60, 70, 80, 95, 110],
  reasoning: { firstMs: 50, answerFirstMs: 80, chunks: 3, answerChunk: 3, durationMs: 30, tokens: 3, answerTokens: 3, tokensSource: 'usage' },
});
const b = record({ sentMs: 10, chunkMs: [40, 50, 60] });
const c = record({
  sentMs: 20,
  chunkMs: [70, 80, 90, 100],
  finishReason: 'length',
  reasoning: { firstMs: 70, answerFirstMs: null, chunks: 4, answerChunk: null, durationMs: 30, tokens: 4, answerTokens: 0, tokensSource: 'usage' },
});

test('reasoning figures: TTFO, the reasoning duration and tokens, answer tokens, and each phase\'s ITL and TPOT', () => {
  const summary = StepSummarySchema.parse(summarizeStep([a, b, c], PROFILE, { ttfoMs: 60 }));
  // TTFT keeps its meaning: the first token of any kind.
  assert.deepEqual([summary.ttftMs?.min, summary.ttftMs?.max, summary.ttftMs?.count], [30, 50, 3]);
  // TTFO: a's first answer chunk (80), b's first token (no reasoning: 30); c never answered.
  assert.deepEqual([summary.ttfoMs?.count, summary.ttfoMs?.min, summary.ttfoMs?.max], [2, 30, 80]);
  assert.deepEqual([summary.reasoningMs?.count, mean(summary.reasoningMs)], [2, 30]);
  assert.deepEqual([summary.reasoningTokens?.count, summary.reasoningTokens?.min, summary.reasoningTokens?.max], [3, 0, 4]);
  assert.deepEqual([summary.answerTokens?.count, mean(summary.answerTokens)], [3, 2]);
  // Gaps within a phase: a 10, 10 and c 10, 10, 10 reasoning; a 15, 15 and b 10, 10 answer. The 70 -> 80 gap of a is neither.
  assert.deepEqual([summary.reasoningItlMs?.count, summary.reasoningItlMs?.min, summary.reasoningItlMs?.max], [5, 10, 10]);
  assert.deepEqual([summary.answerItlMs?.count, mean(summary.answerItlMs)], [4, 12.5]);
  assert.equal(summary.itlMs?.count, 10, 'the ITL of the whole response pools every gap, as before');
  // Reasoning TPOT: a 30 ms / 3 tokens; c (no answer) 30 ms / (4 - 1). Answer TPOT: a (110 - 80) / 2; b its TPOT (60 - 40) / 2.
  assert.deepEqual([summary.reasoningTpotMs?.count, summary.reasoningTpotMs?.min, summary.reasoningTpotMs?.max], [2, 10, 10]);
  assert.deepEqual([summary.answerTpotMs?.count, summary.answerTpotMs?.min, summary.answerTpotMs?.max], [2, 10, 15]);
  // Goodput on TTFO <= 60 ms: b only (a answers at 80, c never), over 0.11 s.
  assert.ok(Math.abs((summary.goodput ?? 0) - 1 / 0.11) < 1e-9, `goodput ${summary.goodput}`);
});

test('reasoning figures: a step where nothing reasoned has none of them (not empty ones); an old record reads as one without reasoning', () => {
  const summary = summarizeStep([b, record({ sentMs: 30, chunkMs: [35, 36] })], PROFILE, { ttfoMs: 40 });
  for (const key of ['ttfoMs', 'reasoningMs', 'reasoningTokens', 'answerTokens', 'reasoningItlMs', 'answerItlMs', 'reasoningTpotMs', 'answerTpotMs']) {
    assert.ok(!(key in summary), `${key} is absent`);
  }
  // The TTFO objective still applies: without reasoning, TTFO is TTFT (b 30 ms, the other 5 ms).
  assert.ok(Math.abs((summary.goodput ?? 0) - 2 / 0.05) < 1e-9, `goodput ${summary.goodput}`);
  // A TTFO objective cannot be judged without streaming: no goodput rather than a guess.
  const whole = summarizeStep([record({ sentMs: 0, endMs: 40, outputTokens: 3 })], PROFILE, { ttfoMs: 40 });
  assert.equal(whole.goodput, null);
});

test('the tuner\'s SLO keys take TTFO: a step that reasoned is held to its TTFO, one that did not to its TTFT', () => {
  assert.doesNotThrow(() => SloMapSchema.parse({ 'ttfoMs.p99': 500, 'ttfoMs.mean': 200 }));
  const reasoned = summarizeStep([a, b, c], PROFILE);
  assert.equal(sloFigure(reasoned, 'ttfoMs.max'), 80, 'a\'s first answer chunk, not its first thought (50)');
  assert.equal(sloFigure(reasoned, 'ttftMs.max'), 50);
  const plain = summarizeStep([b, record({ sentMs: 30, chunkMs: [35, 36] })], PROFILE);
  assert.equal(sloFigure(plain, 'ttfoMs.max'), sloFigure(plain, 'ttftMs.max'));
  assert.equal(sloFigure(plain, 'ttfoMs.max'), 30);
});

test('embeddings: vectors and input tokens per second; no TTFT, ITL, TPOT or output rate (null, never 0)', () => {
  const embed = (sentMs: number, endMs: number) => record({ sentMs, endMs, outputTokens: null, outputTokensSource: null, inputTokens: 256, embeddings: 4 });
  const summary = StepSummarySchema.parse(summarizeStep([embed(0, 100), embed(50, 200)], PROFILE));
  assert.equal(summary.requestsPerSecond, 10);
  assert.equal(summary.embeddingsPerSecond, 40);
  assert.equal(summary.inputTokensPerSecond, 2560);
  assert.deepEqual([summary.ttftMs, summary.itlMs, summary.tpotMs], [null, null, null]);
  assert.equal(summary.outputTokensPerSecond, null);
  assert.equal(summary.peakOutputTokensPerSecond, null);
  assert.deepEqual([summary.latencyMs?.min, summary.latencyMs?.max], [100, 150]);
  assert.ok(!('embeddingsPerSecond' in summarizeStep([b], PROFILE)), 'a generation step has no embeddings figures');
});

test('cancellation by design: the requests the run cut, apart, with the tokens they had; chosen ones that ended first count as usual', () => {
  const cut = record({ sentMs: 0, chunkMs: [20, 30], endMs: 50, outputTokens: 2, cancelAfterMs: 50, error: { kind: 'cancelled', message: 'cancelled by design' } });
  const endedFirst = record({ sentMs: 5, chunkMs: [20, 25], cancelAfterMs: 500 });
  const warmup = record({ sentMs: 0, warmup: true, chunkMs: [10], cancelAfterMs: 5, error: { kind: 'cancelled', message: 'cancelled by design' } });
  const stepEnd = record({ sentMs: 1, chunkMs: [40], endMs: 60, outputTokens: 1, error: { kind: 'cancelled', message: 'cancelled before the response completed' } });
  const summary = summarizeStep([cut, endedFirst, warmup, stepEnd, b], PROFILE);
  assert.deepEqual(summary.cancelledByDesign, { requests: 1, outputTokens: 2 });
  assert.equal(summary.errors.cancelled, 2, 'errors.cancelled counts every cancelled request, by design or by the step end');
  assert.deepEqual(summary.requests, { total: 2, completed: 2, failed: 0 });
  assert.ok(!('cancelledByDesign' in summarizeStep([b], PROFILE)), 'a run without cancellation has no such figure');
});
