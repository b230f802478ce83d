// The client says when it is the bottleneck (src/load/client-bound.ts, docs/metrics.md): a step whose
// token-stamping thread is kept busy on purpose carries a client-bound warning naming the figure, its
// threshold and what to do, in the file and the step-end event; the same step at the same
// concurrency on an idle thread does not. Then the rule itself on figures chosen around its thresholds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { RunConfigSchema } from '../../src/format/config';
import type { RunEvent } from '../../src/format/events';
import { ResultDocumentSchema, type ClientLoad, type ResultDocument } from '../../src/format/result';
import { BUSY_LIMIT, clientBoundWarnings, crossedFigure, LOOP_DELAY_LIMIT_MS } from '../../src/load/client-bound';
import { runBenchmark } from '../../src/load/runner';
import { maxWorkers } from '../../src/load/workers';
import { clientThread } from '../helpers/client-load';
import { startRunnerServer } from '../helpers/runner-server';

async function runOnThisThread(baseUrl: string, events: RunEvent[]): Promise<ResultDocument> {
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
    profile: { kind: 'concurrency', levels: [8] },
    limits: { requests: 100_000, durationSec: 1.5 },
    serverMetrics: { url: 'off' },
    workers: 1,
  });
  return ResultDocumentSchema.parse(await runBenchmark(config, { onEvent: (e) => events.push(e) }));
}

test('a step whose client thread is kept busy is client-bound; the same step on an idle thread is not', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 4, firstTokenMs: 5, gapMs: 5 }));
  t.after(() => server.close());

  const easyEvents: RunEvent[] = [];
  const easy = (await runOnThisThread(server.baseUrl, easyEvents)).steps[0]!;
  const easyThread = easy.client?.threads[0];
  assert.ok(easyThread !== undefined && easy.client?.workers === 1, 'the step records its one worker');
  assert.ok((easyThread.busy ?? 1) < BUSY_LIMIT, `the idle thread was busy ${easyThread.busy}`);
  assert.ok(easyThread.chunksPerSecond > 0 && easyThread.bytesPerSecond > easyThread.chunksPerSecond, 'chunks and bytes received per second');
  // This machine may be short of cores (other jobs): then the loop delay may cross its limit, and the
  // warning must blame the machine, never the client's own load.
  for (const warning of (easy.summary?.warnings ?? []).filter((w) => w.kind === 'client-bound')) {
    assert.notEqual(crossedFigure(warning)?.figure, 'busy');
    assert.match(warning.message, /waited for a core|something else held its thread/);
  }

  // The engine's thread (this one: workers 1 runs here) spends 18 ms of every 20 ms on other work.
  const hog = setInterval(() => {
    const until = performance.now() + 18;
    while (performance.now() < until);
  }, 20);
  const events: RunEvent[] = [];
  let busy: ResultDocument['steps'][number];
  try {
    busy = (await runOnThisThread(server.baseUrl, events)).steps[0]!;
  } finally {
    clearInterval(hog);
  }
  const thread = busy.client?.threads[0];
  assert.ok(thread !== undefined && (thread.busy ?? 0) >= BUSY_LIMIT, `the kept thread was busy ${thread?.busy}`);
  assert.ok((thread.loopDelayMs?.p99 ?? 0) >= LOOP_DELAY_LIMIT_MS, `its loop ran ${thread.loopDelayMs?.p99} ms late at p99`);
  // The step's warnings hold one client-bound warning (a loaded machine may add a too-short one beside it).
  const [warning, ...more] = (busy.summary?.warnings ?? []).filter((w) => w.kind === 'client-bound');
  assert.equal(more.length, 0);
  assert.equal(warning?.kind, 'client-bound');
  assert.deepEqual(crossedFigure(warning!), { figure: 'busy', value: warning?.figures['busy'], threshold: BUSY_LIMIT });
  assert.equal(warning?.figures['workers'], 1);
  assert.match(warning?.message ?? '', /^The client was busy \d+% of the step \(limit 90%\)/);
  assert.match(warning?.message ?? '', maxWorkers() > 1 ? /Add workers: --workers \d+|waited for a core/ : /no free core for another worker|waited for a core/);
  const end = events.find((e): e is Extract<RunEvent, { type: 'step-end' }> => e.type === 'step-end');
  assert.deepEqual(end?.summary.warnings, busy.summary?.warnings, 'the step-end event carries the warning in its summary');
  assert.ok(events.some((e) => e.type === 'log' && e.level === 'warn' && e.message === `concurrency@8: ${warning?.message}`), 'the log says it when the step ends');
});

const thread = clientThread;

test('the client-bound rule: the worst figure over its threshold, and advice by its cause', () => {
  const load = (threads: ClientLoad['threads']): ClientLoad => ({ workers: threads.length, threads, startSkewMs: threads.length > 1 ? 0.2 : null });
  assert.deepEqual(clientBoundWarnings(load([thread({})]), 7), [], 'an easy step');
  const [busy] = clientBoundWarnings(load([thread({ busy: 0.97, loopDelayMs: { p50: 1, p99: 8, max: 12 } })]), 7);
  assert.equal(crossedFigure(busy!)?.figure, 'busy');
  assert.match(busy?.message ?? '', /Add workers: --workers 2\.$/);
  // Two workers, both near saturation: 1.9 busy over 0.5 each is 4.
  const [two] = clientBoundWarnings(load([thread({ busy: 0.95 }), thread({ busy: 0.95 }, 1)]), 7);
  assert.match(two?.message ?? '', /^Worker 0 of 2 was busy 95%.*--workers 4\.$/);
  const [noCore] = clientBoundWarnings(load([thread({ busy: 0.95 })]), 1);
  assert.match(noCore?.message ?? '', /no free core for another worker/);
  const [machine] = clientBoundWarnings(load([thread({ busy: 0.2, coreWaitShare: 0.6, loopDelayMs: { p50: 3, p99: 40, max: 90 } })]), 7);
  assert.deepEqual(crossedFigure(machine!), { figure: 'loopDelayMs.p99', value: 40, threshold: LOOP_DELAY_LIMIT_MS });
  assert.match(machine?.message ?? '', /ran 40\.0 ms late at p99 \(limit 10 ms\).*waited for a core 60% of the step.*more workers would not help/);
  const [late] = clientBoundWarnings(load([thread({ sendLatenessMs: { p50: 2, p99: 25, max: 30 }, busy: 0.7 })]), 7);
  assert.equal(crossedFigure(late!)?.figure, 'sendLatenessMs.p99');
  assert.match(late?.message ?? '', /did not keep the schedule; TTFT and ITL are inflated by the client\. Add workers/);
  // The worst of several workers, by how far over its threshold it is.
  const [worst] = clientBoundWarnings(load([thread({ busy: 0.91 }), thread({ loopDelayMs: { p50: 5, p99: 50, max: 60 }, busy: 0.6 }, 1)]), 7);
  assert.match(worst?.message ?? '', /^Worker 1 of 2's event loop ran 50\.0 ms late/);
});

test('in a shard run the warning names the shard, and more shards (not workers) relieve it', () => {
  const load: ClientLoad = { workers: 4, threads: [thread({}), thread({}, 1), thread({ busy: 0.96 }, 2), thread({}, 3)], startSkewMs: 0.4 };
  const [sharded] = clientBoundWarnings(load, 1, 'shard');
  assert.match(sharded?.message ?? '', /^Shard 2 of 4 was busy 96% of the step/);
  // One machine's free cores (1 here) do not bound the shards: 1.86 busy in all wants 4 at 0.5 each, and at least one more than 4.
  assert.match(sharded?.message ?? '', /Start more shards: --shards 5 \(more srun tasks or pods, on machines with free cores\)\.$/);
  assert.doesNotMatch(sharded?.message ?? '', /Worker|--workers/);
  const [waiting] = clientBoundWarnings({ ...load, threads: [thread({ busy: 0.2, coreWaitShare: 0.6, loopDelayMs: { p50: 3, p99: 40, max: 90 } }, 1)] }, 7, 'shard');
  assert.match(waiting?.message ?? '', /^Shard 1 of 4's event loop ran 40\.0 ms late.*so more shards would not help/);
  // Worker runs keep their wording.
  assert.match(clientBoundWarnings(load, 7)[0]?.message ?? '', /^Worker 2 of 4 was busy 96%/);
});
