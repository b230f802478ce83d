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
import { canonicalLabels, RunConfigSchema, STEP_END_DEFAULTS, takesMessages, type RunConfig } from '../format/config';
import type { TraceReplay } from '../format/result';
import { describeLeftOut } from '../workload/trace';
import { scanTrace } from '../workload/trace-scan';
import { describeZodError, STEP_WARNING_KINDS, type CacheReset, type StepSummary, type StepWarning, type ThreadLoad, type WorkersInfo } from '../format/result';
import { randomBytes } from 'node:crypto';
import { wantsUsage } from './client';
import { CacheResetter } from './cache-reset';
import { BadInputError, messageOf } from '../format/errors';
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
import { waitForIdleServer, type StepLeftovers } from './cooldown';
import { cursorAfter, mostConnections, partition, planRun, planSweepRates, RUN_START, scheduleCutNote, stepsOfRepeat, traceRequestLimit, traceSourceOf, type PartUsage, type RunCursor, type RunPlan, type StepPlan } from './plan';
import { resolveWorkers } from './workers';
import { documentHead } from './document-head';
import { configHash, ShardCoordinator } from './shards';
import type { ShardRole } from './shard-protocol';

export { DEFAULT_THROUGHPUT_CONCURRENCY, UNCAPPED_CONNECTION_LIMIT, sweepRates } from './plan';

function parseConfig(input: RunConfig): RunConfig {
  const parsed = RunConfigSchema.safeParse(input);
  if (!parsed.success) throw new BadInputError(`Invalid run configuration: ${describeZodError(parsed.error)}`);
  return withRunSalt(parsed.data);
}

/**
 * The run's own salt (config `cache`, docs/workloads.md): drawn here, once per run, unless the run
 * reuses prompts or was given one. It goes into the result's config with the rest.
 */
function withRunSalt(config: RunConfig): RunConfig {
  if (config.cache.reusePrompts || config.cache.salt !== undefined) return config;
  return { ...config, cache: { ...config.cache, salt: randomBytes(3).toString('hex') } };
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

/** What the run says about its trace before it starts: what it replays, and what it left out (in the log and the file's warnings). */
function traceNotes(trace: TraceReplay): { level: 'info' | 'warn'; message: string }[] {
  const notes: { level: 'info' | 'warn'; message: string }[] = [
    {
      level: 'info',
      message: `Trace ${trace.path} (${trace.format}): ${trace.requests} requests over ${trace.recordedSpanSec.toFixed(1)} s as recorded${trace.timeScale !== 1 ? `, replayed in ${trace.scaledSpanSec.toFixed(1)} s (time scale ${trace.timeScale})` : ''}.`,
    },
  ];
  const leftOut = describeLeftOut(trace.path, {
    format: trace.format,
    rows: trace.rows,
    entries: trace.requests,
    skipped: trace.skipped,
    failedRequests: trace.failedRequests,
    beforeWindow: trace.beforeWindow,
    stoppedAt: null,
    recordedSpanMs: null,
  });
  if (leftOut !== null) notes.push({ level: 'warn', message: leftOut });
  return notes;
}

/** What the steps of a run share. */
interface RunParts {
  config: RunConfig;
  executors: ExecutorPool;
  gather: RunGather;
  /** Empties the server's prefix cache before each step (`cache.resetBeforeStep`); null when not asked. */
  cacheResetter: CacheResetter | null;
}

/** What a step that ran leaves for the run: its summary, where the next step starts, and the stop guard that ended it early. */
interface StepRan {
  summary: StepSummary;
  cursor: RunCursor;
  stoppedBy: StepWarning | null;
}

/**
 * One step: begun once the server is idle (cooldown.ts), opened in the file, split over the
 * executors, executed from one start instant, gathered. Resolves with its summary, where the next
 * step's prompts and sessions start, and the guard that stopped it. A lost worker ends the step (and
 * the run) with what was gathered; another executor's failure rejects.
 */
async function runStep(run: RunParts, step: StepPlan, repeat: number | undefined, cursor: RunCursor, previous: StepLeftovers | null): Promise<StepRan> {
  const { config, executors, gather } = run;
  const cooldownSec = config.limits.cooldownSec ?? STEP_END_DEFAULTS.cooldownSec;
  const idle = await waitForIdleServer(() => gather.readServerLoad(), cooldownSec, previous, gather.stop);
  const parts = partition(step, executors.count, cursor);
  const cacheReset = await resetCache(run, step);
  const stepGather = gather.beginStep(step, repeat, parts.length, idle, cacheReset);
  const loads: { executor: number; load: ThreadLoad; startLateMs: number }[] = [];
  let next = cursor;
  try {
    // Each executor readies its part (a trace's first prompts) before the common start instant.
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
    const cut = scheduleCutNote(step, usages);
    if (cut !== null) stepGather.addNote(cut);
  } finally {
    stepGather.settled();
  }
  return { summary: stepGather.end(loads), cursor: next, stoppedBy: stepGather.stoppedBy };
}

/** What a step left behind for the next one's wait: requests it cancelled, and how fast it was served. */
const leftoversOf = (summary: StepSummary): StepLeftovers => ({ cancelled: summary.errors['cancelled'] ?? 0, requestsPerSecond: summary.requestsPerSecond });

/**
 * The steps of a run in order, skipping every open-loop step at a rate above one the over-saturation
 * guard stopped: a server that cannot keep up with a rate cannot with a higher one (a sweep's, or a
 * list of rates'). The skipped steps are said once, in the log and the result's warnings.
 */
class StepSequence {
  private saturatedAt = Infinity;
  private readonly skipped: string[] = [];
  private previous: StepLeftovers | null = null;

  constructor(private readonly run: RunParts) {}

  async next(step: StepPlan, repeat: number | undefined, cursor: RunCursor): Promise<StepRan | null> {
    const rate = step.profile.rate;
    if (rate !== undefined && rate > this.saturatedAt) {
      this.skipped.push(step.name);
      return null;
    }
    const ran = await runStep(this.run, step, repeat, cursor, this.previous);
    this.previous = leftoversOf(ran.summary);
    if (ran.stoppedBy?.kind === STEP_WARNING_KINDS.overSaturated && rate !== undefined) this.saturatedAt = Math.min(this.saturatedAt, rate);
    return ran;
  }

  /** Says which steps were skipped, if any. */
  finish(): void {
    if (this.skipped.length === 0) return;
    const message = `Skipped ${this.skipped.length} step${this.skipped.length === 1 ? '' : 's'} at rates above ${this.saturatedAt.toFixed(2)} req/s, where the server was over-saturated: ${this.skipped.join(', ')}.`;
    this.run.gather.warn(message);
  }
}

/** Empties the server's prefix cache before a step when asked; says once when the server has no way to. */
async function resetCache(run: RunParts, step: StepPlan): Promise<CacheReset | undefined> {
  if (run.cacheResetter === null) return undefined;
  const { outcome, foundNone } = await run.cacheResetter.reset();
  if (outcome.done) run.gather.log('info', `${step.name}: the server's prefix cache was emptied first (${outcome.how}).`);
  if (foundNone) run.gather.warn(`The prefix cache could not be reset before the steps: ${outcome.how}. Each step's record says so; its prompts may be served from the cache of the steps before it.`);
  return outcome;
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
  const sequence = new StepSequence(run);
  let cursor = RUN_START;
  // A sweep places its rates once, from the first repeat, so that every repeat runs the same steps.
  let sweepFrom: StepSummary[] | null = null;
  for (let repeat = 0; repeat < plan.repeats && !gather.stopped; repeat++) {
    if (repeat > 0) await pauseBetweenRepeats(config, gather, repeat);
    const repeatIndex = config.repeat === undefined ? undefined : repeat;
    const summaries: StepSummary[] = [];
    // Each repeat draws its own arrival schedules (plan.ts, repeatSeed).
    for (const step of stepsOfRepeat(config, plan, repeat)) {
      if (gather.stopped) break;
      const ran = await sequence.next(step, repeatIndex, cursor);
      if (ran === null) continue;
      summaries.push(ran.summary);
      cursor = ran.cursor;
    }
    if (config.profile.kind !== 'sweep' || gather.stopped) continue;
    const placed = planSweepRates(config, sweepFrom ?? summaries, repeat);
    if (sweepFrom === null) for (const note of placed.notes) gather.log(note.level, note.message);
    sweepFrom ??= summaries;
    for (const step of placed.steps) {
      if (gather.stopped) break;
      const ran = await sequence.next(step, repeatIndex, cursor);
      if (ran !== null) cursor = ran.cursor;
    }
  }
  sequence.finish();
}

/** The run's executors: this thread for one worker (with the workload built here), else worker threads. */
async function startExecutors(config: RunConfig, options: RunOptions, workers: WorkersInfo): Promise<{ executors: ExecutorPool; chatNote: string | null }> {
  if (workers.count === 1) {
    const tokenCounter = await createTokenCounter(config.tokenizer);
    const workload = await createWorkload(config, tokenCounter);
    return { executors: new InThreadExecutors({ config, apiKey: options.apiKey, ...(options.apiKeys ? { apiKeys: options.apiKeys } : {}), workload, tokenCounter }), chatNote: tokenCounter.chatNote };
  }
  // Each worker builds its own workload from the config and seed; a config they cannot use rejects here.
  const script = options.executorScript ?? join(__dirname, 'executor-worker.js');
  const executors = await ThreadExecutors.start(workers.count, script, config, options.apiKey, options.apiKeys);
  return { executors, chatNote: takesMessages(config.endpoint.api) ? (await createTokenCounter(config.tokenizer)).chatNote : null };
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
      return { executors: await ThreadExecutors.over([], config, { apiKey: undefined }, { startLeadMs: 0, label: coordinator.label }), coordinator, missing: message };
    }
    const executors = await ThreadExecutors.over([executorThreadChannel(script), ...coordinator.channels()], config, { apiKey: options.apiKey, ...(options.apiKeys ? { apiKeys: options.apiKeys } : {}) }, {
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
  // A trace is read once before anything is sent: a bad row stops the run here, with its line.
  const trace: TraceReplay | undefined = config.profile.kind === 'trace' ? await scanTrace(traceSourceOf(config.profile), traceRequestLimit(config)) : undefined;
  // The plan is made before the file exists so that a bad schedule creates no file.
  const plan = planRun(config, trace);
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
    const monitor = await RunMonitor.open(config, options.apiKey, () => performance.now() - clockOrigin, options.apiKeys);
    let writer: ResultWriter;
    try {
      // The hardware found fills the hardware/gpus labels the user left empty.
      writer = new ResultWriter(options.resultPath, documentHead(config, canonicalLabels({ ...probed?.labels, ...monitor.labels(), ...canonicalLabels(config.labels) }), monitor, workers, coordinator?.info()), {
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
      if (takesMessages(config.endpoint.api) && chatNote !== null) gather.log('info', chatNote);
      for (const warning of extraBodyWarnings(config)) gather.log('warn', warning);
      if (config.request.stream && !wantsUsage(config.request)) {
        gather.log('info', 'The server is not asked for its token counts (usage is off): counts come from the tokenizer or the estimate, and every view marks them as not the server\'s.');
      }
      if (coordinator) gather.log('info', shardsLine(coordinator));
      for (const note of coordinator?.notes.splice(0) ?? []) gather.log('warn', note);
      if (missing !== null) gather.lose(missing);
      if (coordinator !== null && missing === null) {
        // Each shard's state goes into the file as it changes (running, lost), for the views that follow it.
        coordinator.onChange = (info) => {
          try {
            writer.setShards(info);
          } catch (error) {
            gather.log('warn', `The shards' states could not be written to the result file: ${messageOf(error)}`);
          }
        };
        coordinator.started();
      }
      const cacheResetter = config.cache.resetBeforeStep ? new CacheResetter(config, options.apiKey) : null;
      if (trace !== undefined) for (const note of traceNotes(trace)) gather.note(note);
      await runSteps({ config, executors, gather, cacheResetter }, plan);
      for (const note of coordinator?.notes.splice(0) ?? []) gather.log('warn', note);
      if (coordinator !== null) writer.setShards(coordinator.finished(), 'with-next-write');
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
