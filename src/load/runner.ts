/**
 * Runs a benchmark: parses the config, plans the run (plan.ts), opens the monitor and the result
 * file, then for each step plans it, has it executed (execute.ts) and gathers its records into the
 * file, its summary and the run's verdict (gather.ts); docs/architecture.md draws the three. The
 * steps run here, in this thread, by one executor; workers and shards differ only in where the
 * executors run and how parts of the plan travel to them and records come back.
 */
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { canonicalLabels, redactHeaders, redactUrl, RunConfigSchema, type Labels, type RunConfig } from '../format/config';
import { describeZodError, SCHEMA_VERSION, type StepSummary } from '../format/result';
import packageJson from '../../package.json';
import { onThisHost } from '../processes/alive';
import { createDispatcher } from './client';
import { BadInputError } from '../format/errors';
import { checkFileDescriptors } from './fd-limit';
import { RunMonitor } from '../observe/monitor';
import { probeEngineLabels } from '../observe/probe';
import { waitUntil } from './schedule';
import { createTokenCounter } from '../workload/tokenizer';
import type { TokenCounter, Workload } from '../workload/types';
import type { RunBenchmark, RunOptions } from './types';
import { createWorkload } from '../workload/sources';
import { ResultWriter } from '../results/writer';
import { executePart } from './execute';
import { RunGather } from './gather';
import { cursorAfter, partConnections, partition, planRun, planSweepRates, RUN_START, type PartUsage, type RunCursor, type RunPlan, type StepPlan } from './plan';

export { DEFAULT_THROUGHPUT_CONCURRENCY, UNCAPPED_CONNECTION_LIMIT, sweepRates } from './plan';

/**
 * Executors a step runs on in this thread: one (worker threads are the next step, issue 23). They would
 * share the workload: `request(i)` and `session(i)` do not depend on what was asked before.
 */
const EXECUTORS = 1;

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

/** The result document's fixed part: what ran against what, with secrets left out. */
function documentHead(config: RunConfig, labels: Labels, monitor: RunMonitor) {
  const { endpoint, serverMetrics } = config;
  const scrapedUrl = serverMetrics.url === undefined || serverMetrics.url === 'off' ? {} : { url: redactUrl(serverMetrics.url) };
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: packageJson.name, version: packageJson.version },
    createdAt: new Date().toISOString(),
    endpoint: { baseUrl: redactUrl(endpoint.baseUrl), api: endpoint.api, model: endpoint.model },
    labels,
    config: {
      ...config,
      endpoint: { ...endpoint, baseUrl: redactUrl(endpoint.baseUrl), headers: redactHeaders(endpoint.headers) },
      serverMetrics: { ...serverMetrics, ...scrapedUrl },
    },
    // Readers take a `running` file whose writer is gone for an interrupted run (src/results/read-result.ts).
    writer: onThisHost(),
    ...(monitor.serverMetrics ? { serverMetrics: monitor.serverMetrics } : {}),
    ...(monitor.hardware ? { hardware: monitor.hardware } : {}),
  } as const;
}

/** What the steps of a run share, in this thread. */
interface RunParts {
  config: RunConfig;
  options: RunOptions;
  workload: Workload;
  tokenCounter: TokenCounter;
  gather: RunGather;
}

/**
 * One step: opened in the file, split over the executors, executed from one start instant,
 * gathered. Resolves with its summary and where the next step's prompts and sessions start.
 */
async function runStep(run: RunParts, step: StepPlan, repeat: number | undefined, cursor: RunCursor): Promise<{ summary: StepSummary; cursor: RunCursor }> {
  const { config, options, workload, tokenCounter, gather } = run;
  const parts = partition(step, EXECUTORS, cursor);
  const stepGather = gather.beginStep(step, repeat, parts.length);
  const dispatchers = parts.map((part) => createDispatcher(partConnections(part), config.request));
  const startMs = performance.now();
  stepGather.start(startMs);
  let next = cursor;
  try {
    const executed = await Promise.allSettled(
      parts.map((part, i) => {
        const env = { config, apiKey: options.apiKey, workload, tokenCounter, dispatcher: dispatchers[i] as Dispatcher };
        return executePart(part, startMs, env, stepGather.signals, stepGather.sinkFor(i)).catch((error: unknown) => {
          // One executor's engine failure ends the step for all of them.
          stepGather.stopNow();
          throw error;
        });
      }),
    );
    const usages: PartUsage[] = [];
    for (const e of executed) {
      if (e.status === 'rejected') throw e.reason;
      usages.push(e.value);
    }
    next = cursorAfter(cursor, usages);
  } finally {
    stepGather.settled();
    // Nothing is in flight any more: close the step's sockets without waiting on them.
    await Promise.all(dispatchers.map((d) => d.destroy()));
  }
  return { summary: stepGather.end(), cursor: next };
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
export const runBenchmark: RunBenchmark = async (input, options) => {
  const config = parseConfig(input);
  const tokenCounter = await createTokenCounter(config.tokenizer);
  const workload = await createWorkload(config, tokenCounter);
  // The plan is made before the file exists so that a bad schedule creates no file.
  const plan = planRun(config);
  checkFileDescriptors(plan.mostConnections);
  // After everything that can reject the config, so that a bad one sends nothing; the user's labels win.
  const probed = await probeEngineLabels(config, options);
  // The run's clock starts here: the first scrape and every step's start are on it.
  const clockOrigin = performance.now();
  const monitor = await RunMonitor.open(config, options.apiKey, () => performance.now() - clockOrigin);
  let writer: ResultWriter;
  try {
    // The hardware found fills the hardware/gpus labels the user left empty.
    writer = new ResultWriter(options.resultPath, documentHead(config, canonicalLabels({ ...probed?.labels, ...monitor.labels(), ...canonicalLabels(config.labels) }), monitor), {
      keepRecords: options.keepRecords !== false,
    });
  } catch (error) {
    await monitor.stop(false);
    throw error;
  }
  const gather = new RunGather(config, options, writer, monitor, clockOrigin);
  const cancel = (): void => gather.cancel();
  options.signal?.addEventListener('abort', cancel, { once: true });
  if (options.signal?.aborted) gather.cancel();
  try {
    gather.started(plan);
    if (probed) gather.log('info', probed.message);
    if (config.endpoint.api === 'chat' && tokenCounter.chatNote !== null) gather.log('info', tokenCounter.chatNote);
    for (const warning of extraBodyWarnings(config)) gather.log('warn', warning);
    await runSteps({ config, options, workload, tokenCounter, gather }, plan);
    return await gather.finish();
  } catch (error) {
    await gather.fail(error);
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', cancel);
  }
};
