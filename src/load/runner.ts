/**
 * Runs a benchmark: parses the config, plans the run (plan.ts), opens the monitor and the result
 * file, then for each step plans it, has it executed (execute.ts) by the run's executors
 * (executors.ts: this thread for one worker, worker threads for more) and gathers its records into
 * the file, its summary and the run's verdict (gather.ts); docs/architecture.md draws the three.
 * Workers and shards differ only in where the executors run and how parts of the plan travel to
 * them and records come back.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RunConfigSchema, type RunConfig } from '../format/config';
import { describeZodError, type StepSummary, type ThreadLoad, type WorkersInfo } from '../format/result';
import { BadInputError } from '../format/errors';
import { checkFileDescriptors } from './fd-limit';
import { RunMonitor } from '../observe/monitor';
import { probeEngineLabels } from '../observe/probe';
import { waitUntil } from './schedule';
import { createTokenCounter } from '../workload/tokenizer';
import type { RunBenchmark, RunOptions } from './types';
import { createWorkload } from '../workload/sources';
import { ResultWriter } from '../results/writer';
import { executorThreadChannel, InThreadExecutors, ThreadExecutors, WorkerLostError, type ExecutorPool } from './executors';
import { RunGather } from './gather';
import { cursorAfter, mostConnections, partition, planRun, planSweepRates, RUN_START, type PartUsage, type RunCursor, type RunPlan, type StepPlan } from './plan';
import { resolveWorkers } from './workers';
import { documentHead } from './document-head';
import { configHash, ShardCoordinator } from './shards';
import type { ShardRole } from './shard-protocol';

export { DEFAULT_THROUGHPUT_CONCURRENCY, UNCAPPED_CONNECTION_LIMIT, sweepRates } from './plan';

function parseConfig(input: RunConfig): RunConfig {
  const parsed = RunConfigSchema.safeParse(input);
  if (!parsed.success) throw new BadInputError(`Invalid run configuration: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

/**
 * Fields of `extraBody` that collide with what the run sets itself, each with what happens to it:
 * the user asked for something the run will not do as written.
 */
function extraBodyWarnings(config: RunConfig): string[] {
  const extra = config.request.extraBody;
  const warnings: string[] = [];
  if ('stream' in extra && extra.stream !== config.request.stream) {
    warnings.push(
      `extraBody "stream": ${JSON.stringify(extra.stream)} is ignored: every request is sent with "stream": ${config.request.stream}, which the measurement depends on. Use --no-stream (request.stream: false) for whole responses.`,
    );
  }
  const workload = config.workload;
  const outputTokens = workload.outputTokens;
  for (const field of ['max_tokens', 'max_completion_tokens']) {
    if (!(field in extra)) continue;
    const workloadSets = outputTokens !== undefined && field === 'max_tokens';
    warnings.push(
      workloadSets
        ? `extraBody "${field}": ${JSON.stringify(extra[field])} replaces the workload's output tokens (${JSON.stringify(outputTokens)}) in every request. Set the output tokens (--output-tokens) instead.`
        : `extraBody "${field}": ${JSON.stringify(extra[field])} is sent with every request; the workload's output tokens do not apply to it.`,
    );
  }
  return warnings;
}

/** What the steps of a run share. */
interface RunParts {
  config: RunConfig;
  executors: ExecutorPool;
  gather: RunGather;
}

/**
 * One step: opened in the file, split over the executors, executed from one start instant,
 * gathered. Resolves with its summary and where the next step's prompts and sessions start. A
 * lost worker ends the step (and the run) with what was gathered; another executor's failure rejects.
 */
async function runStep(run: RunParts, step: StepPlan, repeat: number | undefined, cursor: RunCursor): Promise<{ summary: StepSummary; cursor: RunCursor }> {
  const { executors, gather } = run;
  const parts = partition(step, executors.count, cursor);
  const stepGather = gather.beginStep(step, repeat, parts.length);
  const loads: { executor: number; load: ThreadLoad; startLateMs: number }[] = [];
  let next = cursor;
  try {
    const executed = await executors.execute(parts, stepGather);
    const usages: PartUsage[] = [];
    let lost: WorkerLostError | null = null;
    for (const [executor, e] of executed.entries()) {
      if (e.status === 'rejected') {
        if (!(e.reason instanceof WorkerLostError)) throw e.reason;
        lost ??= e.reason;
      } else if (e.value !== null) {
        usages.push(e.value.usage);
        loads.push({ executor, load: e.value.load, startLateMs: e.value.startLateMs });
      }
    }
    if (lost !== null) gather.lose(lost.message);
    next = cursorAfter(cursor, usages);
  } finally {
    stepGather.settled();
  }
  return { summary: stepGather.end(loads), cursor: next };
}

/** The pause the run's `repeat.pauseSec` asks for before a repeat; a stop ends it at once. */
async function pauseBetweenRepeats(config: RunConfig, gather: RunGather, repeat: number): Promise<void> {
  const pauseSec = config.repeat?.pauseSec ?? 0;
  gather.log('info', `Repeat ${repeat + 1} of ${config.repeat?.count ?? 1}${pauseSec > 0 ? ` after a pause of ${pauseSec} s` : ''}.`);
  if (pauseSec > 0) await waitUntil(performance.now() + pauseSec * 1000, gather.stop);
}

/** Every step of every repeat, in order, until done or stopped; a sweep's rate steps planned from its first repeat. */
async function runSteps(run: RunParts, plan: RunPlan): Promise<void> {
  const { config, gather } = run;
  let cursor = RUN_START;
  // A sweep places its rates once, from the first repeat, so that every repeat runs the same steps.
  let sweepSteps: StepPlan[] | null = null;
  for (let repeat = 0; repeat < plan.repeats && !gather.stopped; repeat++) {
    if (repeat > 0) await pauseBetweenRepeats(config, gather, repeat);
    const repeatIndex = config.repeat === undefined ? undefined : repeat;
    const summaries: StepSummary[] = [];
    for (const step of plan.steps) {
      if (gather.stopped) break;
      const ran = await runStep(run, step, repeatIndex, cursor);
      summaries.push(ran.summary);
      cursor = ran.cursor;
    }
    if (config.profile.kind !== 'sweep' || gather.stopped) continue;
    if (sweepSteps === null) {
      const placed = planSweepRates(config, summaries);
      for (const note of placed.notes) gather.log(note.level, note.message);
      sweepSteps = placed.steps;
    }
    for (const step of sweepSteps) {
      if (gather.stopped) break;
      cursor = (await runStep(run, step, repeatIndex, cursor)).cursor;
    }
  }
}

/**
 * Runs the configured benchmark in this thread and resolves with the final document. Bad
 * configuration and unreadable datasets or tokenizers reject before anything is sent or
 * written; after that, request failures are recorded, never thrown.
 */
/** The run's executors: this thread for one worker (with the workload built here), else worker threads. */
async function startExecutors(config: RunConfig, options: RunOptions, workers: WorkersInfo): Promise<{ executors: ExecutorPool; chatNote: string | null }> {
  if (workers.count === 1) {
    const tokenCounter = await createTokenCounter(config.tokenizer);
    const workload = await createWorkload(config, tokenCounter);
    return { executors: new InThreadExecutors({ config, apiKey: options.apiKey, workload, tokenCounter }), chatNote: tokenCounter.chatNote };
  }
  // Each worker builds its own workload from the config and seed; a config they cannot use rejects here.
  const script = options.executorScript ?? join(__dirname, 'executor-worker.js');
  const executors = await ThreadExecutors.start(workers.count, script, config, options.apiKey);
  return { executors, chatNote: config.endpoint.api === 'chat' ? (await createTokenCounter(config.tokenizer)).chatNote : null };
}

/** Before a step starts, besides the slowest shard's round trip: time for the start instant to reach every shard. */
const SHARD_START_LEAD_MS = 50;

/**
 * Shard 0's executors: its own part in a worker thread, and each other shard once all have
 * registered. A shard missing at the registration timeout leaves the pool empty and says which.
 */
async function startShardExecutors(config: RunConfig, options: RunOptions, role: ShardRole): Promise<{ executors: ExecutorPool; coordinator: ShardCoordinator; missing: string | null }> {
  if (config.workers !== undefined && config.workers !== 1) {
    throw new BadInputError(`--workers with --shards is not supported yet: each shard sends its part from one thread. Start more shards per machine instead (srun --ntasks-per-node, more pods).`);
  }
  const coordinator = await ShardCoordinator.listen(role, configHash(config));
  try {
    const missing = await coordinator.gather();
    const script = options.executorScript ?? join(__dirname, 'executor-worker.js');
    if (missing.length > 0) {
      const which = missing.length === 1 ? `Shard ${missing[0]} of ${role.shards} did not register` : `Shards ${missing.join(', ')} of ${role.shards} did not register`;
      const message = `${which} with the coordinator at ${coordinator.address} within ${role.registerTimeoutMs / 1000} s. The run was stopped before its first step: with fewer shards it would not send the load planned.`;
      return { executors: await ThreadExecutors.over([], config, undefined, { startLeadMs: 0, label: coordinator.label }), coordinator, missing: message };
    }
    const executors = await ThreadExecutors.over([executorThreadChannel(script), ...coordinator.channels()], config, options.apiKey, {
      startLeadMs: SHARD_START_LEAD_MS + 2 * coordinator.slowestRttMs,
      label: coordinator.label,
    });
    return { executors, coordinator, missing: null };
  } catch (error) {
    coordinator.destroy();
    throw error;
  }
}

/**
 * Runs the configured benchmark and resolves with the final document. Bad configuration and
 * unreadable datasets or tokenizers reject before anything is sent or written; after that, request
 * failures are recorded, never thrown. With `options.shard` this process is shard 0 of a shard run:
 * it coordinates the others (shards.ts), whose records come into its file.
 */
export const runBenchmark: RunBenchmark = async (input, options) => {
  const config = parseConfig(input);
  // The plan is made before the file exists so that a bad schedule creates no file.
  const plan = planRun(config);
  const role = options.shard !== undefined && options.shard.shards > 1 ? options.shard : null;
  const workers: WorkersInfo = role ? { count: role.shards, reason: `${role.shards} shards, each sending its part from one thread` } : resolveWorkers(config, plan);
  checkFileDescriptors(mostConnections(plan, role ? 1 : workers.count));
  let coordinator: ShardCoordinator | null = null;
  let missing: string | null = null;
  let started: { executors: ExecutorPool; chatNote: string | null };
  if (role) {
    const shards = await startShardExecutors(config, options, role);
    coordinator = shards.coordinator;
    missing = shards.missing;
    started = { executors: shards.executors, chatNote: null };
  } else {
    started = await startExecutors(config, options, workers);
  }
  const { executors, chatNote } = started;
  try {
    // After everything that can reject the config, so that a bad one sends nothing; the user's labels win.
    const probed = await probeEngineLabels(config, options);
    // The run's clock starts here: the first scrape and every step's start are on it.
    const clockOrigin = performance.now();
    const monitor = await RunMonitor.open(config, options.apiKey, () => performance.now() - clockOrigin);
    let writer: ResultWriter;
    try {
      // The hardware found fills the hardware/gpus labels the user left empty.
      writer = new ResultWriter(options.resultPath, documentHead(config, { ...probed?.labels, ...monitor.labels(), ...config.labels }, monitor, workers, coordinator?.info()), {
        keepRecords: options.keepRecords !== false,
      });
    } catch (error) {
      await monitor.stop(false);
      throw error;
    }
    const gather = new RunGather(config, options, writer, monitor, clockOrigin, workers);
    const cancel = (): void => gather.cancel();
    options.signal?.addEventListener('abort', cancel, { once: true });
    if (options.signal?.aborted) gather.cancel();
    try {
      gather.started(plan);
      if (probed) gather.log('info', probed.message);
      if (workers.count > 1 || config.workers !== undefined) gather.log('info', `Workers: ${workers.count} (${workers.reason}).`);
      if (config.endpoint.api === 'chat' && chatNote !== null) gather.log('info', chatNote);
      for (const warning of extraBodyWarnings(config)) gather.log('warn', warning);
      if (coordinator) gather.log('info', shardsLine(coordinator));
      for (const note of coordinator?.notes.splice(0) ?? []) gather.log('warn', note);
      if (missing !== null) gather.lose(missing);
      await runSteps({ config, executors, gather }, plan);
      for (const note of coordinator?.notes.splice(0) ?? []) gather.log('warn', note);
      const doc = await gather.finish();
      coordinator?.end(doc.status === 'running' ? 'partial' : doc.status, doc.statusReason ?? null);
      return doc;
    } catch (error) {
      await gather.fail(error);
      throw error;
    } finally {
      options.signal?.removeEventListener('abort', cancel);
    }
  } finally {
    await executors.close();
    coordinator?.destroy();
  }
};

/** The log's line for a shard run: each shard's host and clock offset. */
function shardsLine(coordinator: ShardCoordinator): string {
  const info = coordinator.info();
  const members = info.members.map((m) => (m.state === 'missing' ? `${m.shard}: missing` : `${m.shard}: ${m.host} ${m.offsetMs ?? 0} ± ${m.uncertaintyMs ?? 0} ms`));
  return `Shards: ${info.count}, coordinator ${info.coordinator}, run ${info.runId} (${members.join('; ')}).`;
}
