// Sessions under open loops (issue 21, items 12 and 29): a turn is due when its session starts or
// when its think time after the reply before it ends, and its wait for a slot under a cap is queue
// time; a ramp of sessions spreads over the session starts its turns fill, and a step whose turns
// run out before its schedule says so. A loopback server that notes when each turn arrives and
// when each reply ended checks the think time from the outside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { ResultDocumentSchema, type RequestRecord, type ResultDocument } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { arrivalSchedule, rampTargets } from '../../src/load/schedule';
import { buildResultView } from '../../src/views/result';
import { listenOnLoopback, readBody } from '../helpers/loopback';
import { chatStreamEvents, SSE_HEADERS } from '../helpers/sse-server';
import { startRunnerServer } from '../helpers/runner-server';

interface Turn {
  /** The session's first user message: which session this turn belongs to. */
  session: string;
  turn: number;
  arrivedMs: number;
  endedMs: number;
}

/** A chat server that answers each turn in three chunks 10 ms apart and notes, on its own clock, when each arrived and when its reply ended. */
async function startTurnServer(): Promise<{ baseUrl: string; turns: Turn[]; close(): Promise<void> }> {
  const turns: Turn[] = [];
  const server = createServer((req, res) => {
    const arrivedMs = performance.now();
    // The runner's endpoint probe asks GET routes: not turns.
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    void readBody(req).then(async (text) => {
      const messages = (JSON.parse(text) as { messages: { role: string; content: string }[] }).messages;
      const users = messages.filter((m) => m.role === 'user');
      res.writeHead(200, SSE_HEADERS);
      const events = chatStreamEvents({ pieces: ['a ', 'b ', 'c '], usage: { prompt_tokens: 5, completion_tokens: 3 } });
      for (const event of events) {
        res.write(event);
        await sleep(10);
      }
      res.end();
      turns.push({ session: users[0]?.content ?? '', turn: users.length - 1, arrivedMs, endedMs: performance.now() });
    });
  });
  const loopback = await listenOnLoopback(server);
  return { baseUrl: loopback.baseUrl, turns, close: loopback.close };
}

test('think time under a rate profile: each later turn arrives no earlier than the reply before it ended plus the think time, capped or not', async (t) => {
  const thinkTimeMs = 150;
  for (const maxConcurrency of [undefined, 2]) {
    const server = await startTurnServer();
    t.after(() => server.close());
    const doc = await runBenchmark(
      RunConfigSchema.parse({
        endpoint: { baseUrl: server.baseUrl, model: 'm' },
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 3 },
        sessions: { turns: 3, thinkTimeMs },
        profile: { kind: 'rate', rates: [20], arrival: 'poisson', ...(maxConcurrency ? { maxConcurrency } : {}) },
        limits: { requests: 12 },
        serverMetrics: { url: 'off' },
      }),
      {},
    );
    assert.equal(doc.status, 'complete', doc.statusReason ?? '');
    const bySession = new Map<string, Turn[]>();
    for (const turn of server.turns) bySession.set(turn.session, [...(bySession.get(turn.session) ?? []), turn]);
    assert.equal(bySession.size, 4, 'four sessions of three turns');
    const gaps: number[] = [];
    for (const turns of bySession.values()) {
      turns.sort((a, b) => a.turn - b.turn);
      turns.slice(1).forEach((turn, i) => {
        const before = turns[i] as Turn;
        gaps.push(turn.arrivedMs - before.endedMs);
        assert.ok(turn.arrivedMs >= before.endedMs + thinkTimeMs, `cap ${maxConcurrency}: turn ${turn.turn} arrived ${(turn.arrivedMs - before.endedMs).toFixed(1)} ms after the reply before it ended, under the ${thinkTimeMs} ms think time`);
      });
    }
    console.log(`cap ${maxConcurrency ?? 'none'}: later turns arrived ${Math.min(...gaps).toFixed(1)} to ${Math.max(...gaps).toFixed(1)} ms after the reply before them`);
  }
});

const turnsOf = (doc: ResultDocument): RequestRecord[] => [...(doc.steps[0]?.requests ?? [])].sort((a, b) => a.sentMs - b.sentMs);

test('under a cap, a turn records when it was due, not when it got a slot: the wait is queue time', async (t) => {
  // 25 sessions a second of two turns, one request in flight at a time, each answered in about 50 ms: turns wait for the slot.
  const server = await startRunnerServer(() => ({ tokens: 5, gapMs: 10 }));
  t.after(() => server.close());
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 5 },
    sessions: { turns: 2, thinkTimeMs: 20 },
    profile: { kind: 'rate', rates: [25], arrival: 'constant', maxConcurrency: 1 },
    limits: { requests: 8 },
    serverMetrics: { url: 'off' },
  });
  const doc = ResultDocumentSchema.parse(await runBenchmark(config, {}));
  assert.equal(doc.status, 'complete');
  const records = turnsOf(doc);
  // First turns are due at the schedule's times (every 40 ms), whenever they got the slot.
  for (const r of records.filter((r) => r.turn === 0)) assert.equal(r.scheduledMs, (r.session ?? NaN) * 40, `session ${r.session}`);
  // Later turns are due at the reply before them plus the think time.
  for (const r of records.filter((r) => r.turn === 1)) {
    const before = records.find((b) => b.session === r.session && b.turn === 0);
    const due = (before?.endMs ?? NaN) + 20;
    assert.ok(r.scheduledMs >= due && r.scheduledMs < due + 15, `session ${r.session}: due ${r.scheduledMs} ms, the reply ended at ${before?.endMs} ms`);
  }
  for (const r of records) assert.ok(Math.abs(r.sentMs - r.scheduledMs - r.queueMs) < 0.002, `queue time is the wait from due to sent: ${r.queueMs}`);
  const queued = records.map((r) => r.queueMs);
  console.log(`queue times under the cap: ${queued.map((q) => q.toFixed(1)).join(', ')} ms`);
  assert.ok(Math.max(...queued) > 40, `the slot's wait shows as queue time: ${queued.join(', ')}`);
});

test('a ramp of sessions spreads over the session starts its turns fill: the whole ramp is sent, and recorded as sent', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 1 }));
  t.after(() => server.close());
  const ramp = { strategy: 'linear', startRate: 5, endRate: 50 } as const;
  const doc = ResultDocumentSchema.parse(
    await runBenchmark(
      RunConfigSchema.parse({
        endpoint: { baseUrl: server.baseUrl, model: 'm' },
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 1 },
        sessions: { turns: 3 },
        profile: { kind: 'rate', arrival: 'constant', ramp },
        limits: { requests: 30 },
        serverMetrics: { url: 'off' },
      }),
      {},
    ),
  );
  assert.equal(doc.status, 'complete');
  const step = doc.steps[0];
  // 30 turns of 3 fill 10 sessions: the ramp runs over 10 starts, from 5 to 50 sessions a second.
  const schedule = arrivalSchedule({ count: 10, rate: ramp, arrival: 'constant', seed: 42 });
  const targets = step?.profile.ramp?.targetRates ?? [];
  assert.deepEqual(targets, rampTargets(schedule, ramp).map((p) => ({ atSec: Math.round(p.atSec * 1000) / 1000, rate: Math.round(p.rate * 1000) / 1000 })));
  assert.equal(targets.at(-1)?.rate, 50);
  const records = step?.requests ?? [];
  assert.equal(records.length, 30);
  const firsts = records.filter((r) => r.turn === 0).sort((a, b) => (a.session ?? 0) - (b.session ?? 0));
  assert.deepEqual(firsts.map((r) => r.scheduledMs), Array.from(schedule, (sec) => Math.round(sec * 1e6) / 1000), 'every start of the ramp was sent');
  assert.equal(step?.note, undefined);
});

test('sessions from a dataset, whose turns the plan cannot know: when the turns run out before the schedule, the step says so', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 1 }));
  t.after(() => server.close());
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-open-sessions-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'conversations.jsonl');
  const conversation = (n: number) => JSON.stringify({ messages: [1, 2, 3].flatMap((t) => [{ role: 'user', content: `conversation ${n}, turn ${t}` }, { role: 'assistant', content: 'ok' }]) });
  writeFileSync(path, [1, 2, 3].map(conversation).join('\n'));
  const input: RunConfigInput = {
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workload: { kind: 'dataset', path, outputTokens: 1 },
    sessions: {},
    profile: { kind: 'rate', arrival: 'constant', ramp: { strategy: 'linear', startRate: 10, endRate: 40 } },
    limits: { requests: 6 },
    serverMetrics: { url: 'off' },
  };
  const doc = ResultDocumentSchema.parse(await runBenchmark(RunConfigSchema.parse(input), {}));
  assert.equal(doc.status, 'complete');
  const step = doc.steps[0];
  assert.equal(step?.requests.length, 6);
  const note = step?.note ?? '';
  // Two sessions of three turns spend the six turns; a third may have started meanwhile on a slow machine.
  const started = Number(/after (\d+) of its 6 scheduled session starts/.exec(note)?.[1]);
  assert.ok(started >= 2 && started < 6, note);
  const reached = (10 + (30 * (started - 1)) / 5).toFixed(2);
  assert.equal(note, `Its 6 turns were spent after ${started} of its 6 scheduled session starts (its sessions had more turns than planned): its ramp reached ${reached} req/s, not 40.00, and its recorded target rates go on past what was sent.`);
  // The result view shows it among the step's warnings (src/views/step-warnings.ts), as every view does.
  assert.ok(buildResultView({ document: doc, unfinishedSteps: [] }, 'run.llmbench.json').warnings.includes(`${step?.name}: ${note}`), 'the result view shows it');
});
