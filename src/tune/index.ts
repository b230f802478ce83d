/**
 * The tuner's public API, for the command line (`llmbench tune`) and the extension host: launch
 * a server per trial with flags chosen by the search, benchmark it, score it, stop it, and write
 * the tune file (`*.llmtune.json`) after every trial; then measure the best candidates again,
 * interleaved, so that the winner is not a lucky measurement. Nothing here imports `vscode`.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { version } from '../../package.json';
import {
  parseTuneFile,
  TUNE_FILE_SUFFIX,
  TUNE_SCHEMA_VERSION,
  type BestTrial,
  type CandidateSummary,
  type Objective,
  type Params,
  type Remeasure,
  type RemeasureRun,
  type Trial,
  type TuneConfig,
  type TuneEvent,
  type TuneFile,
  type TuneStatus,
} from '../format/tune';
import type { WorkloadNeed } from '../engines/workload-need';
import { fillPlaceholders, PORT_TEXT, TRIAL_REASON_TEXT, TUNE_END_TEXT } from '../format/warning-text';
// The engine's modules one by one, not its index: the extension host bundles this file, and the
// index would bring the whole engine (the HTTP client, tokenizers) into it.
import { runBenchmarkInWorker, type RunOverview } from '../load/worker-host';
import { identifiedOnThisHost, isAlive } from '../processes/alive';
import { readCommandLine } from '../processes/proc';
import { meanInterval, sampleStdev } from '../results/stats';
import { writeAtomically } from '../results/writer';
import { benchmarkSource, loadBounds, prepareBenchmark, probeSource, TuneConfigError, type BenchmarkSource } from './config';
import { checkConstraints } from './constraints';
import { containerName, containerRunOf, namedContainerRun } from './container';
import { trialGpuMemory } from './gpu';
import { scoreRun, sloFigures, sloMet, type Score } from './objective';
import { createSearch } from './search';
import { findFreePort, launchServer, portHolderText, stopLeftoverGroup, waitPortFree, waitReady } from './server';
import { commandFor } from './space';
import { workloadNeed } from './workload-need';
import { messageOf } from '../format/errors';

export { TuneConfigError, parseTuneConfigText, readTuneConfigFile } from './config';
export { checkConstraints, type Refusal } from './constraints';

export interface TuneOptions {
  /** Parsed with TuneConfigSchema (readTuneConfigFile / parseTuneConfigText check the rest). */
  config: TuneConfig;
  /** The tune config file's folder: relative paths in the config (cwd, a benchmark file) resolve here. */
  configDir: string;
  /** The tune file, `NAME.llmtune.json`; trial result files and server logs go beside it. */
  outPath: string;
  /** Continue the tune file at outPath: its finished trials are kept, not run again. Without it an existing file is not overwritten. */
  resume: boolean;
  /** Cancels the tune: the running server is stopped before runTune settles, the file ends `cancelled`. */
  signal?: AbortSignal;
  /** The argv that runs this package's CLI, put in place of a command's first word `llmbench`, e.g. [process.execPath, '<pkg>/dist/cli.js']. */
  llmbenchCommand: readonly string[];
  /**
   * Environment that only the `llmbench` command gets (the extension's ELECTRON_RUN_AS_NODE, which
   * makes its runtime Node): other servers run without these names, even where `env` has them.
   */
  llmbenchEnv?: Readonly<Record<string, string>>;
  /** The environment servers inherit (server.env is added over it); process.env by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Asked once, with the exact argv, before the first launch; false ends the tune before anything starts. */
  confirmFirstLaunch?: (argv: string[]) => Promise<boolean>;
  onEvent?: (event: TuneEvent) => void;
  /** The engine's worker script; dist/engine-worker.js beside this bundle by default. */
  engineWorkerScript?: string;
}

/** Refusals in a row after which the constraints are taken to leave (almost) nothing to try. */
const REFUSALS_IN_A_ROW_LIMIT = 1000;
/** How long a stopped server's port may take to be free again. */
const PORT_RELEASE_MS = 5000;

/** The tune file's name without its suffix: `NAME` of `NAME.llmtune.json`. */
function tuneStem(outPath: string): string {
  const name = basename(outPath);
  return name.endsWith(TUNE_FILE_SUFFIX) ? name.slice(0, -TUNE_FILE_SUFFIX.length) : name.replace(/\.json$/, '');
}

/** Trial files beside the tune file, by the trial's number: `NAME.trial-3.log`, `NAME.trial-3.llmbench.json`, `NAME.trial-3.remeasure-2.log`. */
function trialPath(outPath: string, trial: number, suffix: string, round?: number): string {
  return join(dirname(outPath), `${tuneStem(outPath)}.trial-${trial}${round === undefined ? '' : `.remeasure-${round}`}${suffix}`);
}

/** The best trial by the search's own figures (one measurement each). */
function bestOf(trials: readonly Trial[]): BestTrial | null {
  let best: BestTrial | null = null;
  for (const t of trials) {
    if (t.status === 'complete' && t.objective !== null && (best === null || t.objective > best.objective)) {
      best = { trial: t.number, params: t.params, objective: t.objective, command: t.command };
    }
  }
  return best;
}

/** JSON with every object's keys sorted: the same config reads the same whichever order its keys were written in. */
const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));

/** A tune file to continue: the same config, no other tuner still writing it, its server left by a crash stopped. */
function resumedFile(outPath: string, config: TuneConfig, emit: (e: TuneEvent) => void): TuneFile {
  const parsed = parseTuneFile(readFileSync(outPath, 'utf8'));
  if (!parsed.ok) throw new TuneConfigError(`--resume: ${outPath}: ${parsed.error}`);
  const file = parsed.value;
  if (canonicalJson(file.config) !== canonicalJson(config)) {
    throw new TuneConfigError(`--resume: ${outPath} was made with another tune config; resume it with the config it holds, or write a new tune with another --out`);
  }
  if (file.writer && isAlive(file.writer)) {
    throw new TuneConfigError(
      `--resume: ${outPath} is being written by a tune still running (pid ${file.writer.pid} on ${file.writer.host}): wait for it to end, or stop it (Ctrl-C, or Cancel in its panel), then resume`,
    );
  }
  const left = file.runningServer;
  // The server ran where the tuner that launched it ran.
  const host = left?.host ?? file.writer?.host;
  if (left && host === hostname()) {
    const container = left.container ? { tool: containerRunOf(left.command ?? file.config.server.command)?.tool ?? 'docker', name: left.container } : undefined;
    const check = stopLeftoverGroup(left.trial, { pid: left.pid, host, ...(left.startTime ? { startTime: left.startTime } : {}), ...(left.command ? { command: left.command } : {}) }, container);
    if (check.stopped) {
      emit({ type: 'log', level: 'warn', message: `Stopped the server of trial ${left.trial} (process group ${left.pid}) left running by the tuner that stopped` });
    } else if (check.reason) {
      emit({ type: 'log', level: 'warn', message: `The server of trial ${left.trial} was not stopped: ${check.reason}` });
    }
  } else if (left) {
    emit({
      type: 'log',
      level: 'warn',
      message: `The server of trial ${left.trial} (process group ${left.pid}) was launched on ${host ?? 'a host the tune file does not name'}, not on this one: if it still runs, stop it there.`,
    });
  }
  return { ...file, status: 'running', statusReason: null, finishedAt: null, runningServer: null };
}

/** Why a tune cannot go on after a trial: its port is still taken, by a process the next trial would share the machine with. */
class PortStillTaken extends Error {}

export async function runTune(options: TuneOptions): Promise<TuneFile> {
  const { config, signal } = options;
  const outPath = resolve(options.outPath);
  const outDir = dirname(outPath);
  const emit = (event: TuneEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // A listener's failure must not stop a tune that has servers running.
    }
  };
  const baseEnv = options.env ?? process.env;
  const bench = benchmarkSource(config, options.configDir, 'the tune config', baseEnv);
  mkdirSync(outDir, { recursive: true });

  let file: TuneFile;
  if (existsSync(outPath) && !options.resume) {
    throw new TuneConfigError(`${outPath} exists: continue it with --resume, or choose another --out`);
  } else if (existsSync(outPath)) {
    file = resumedFile(outPath, config, emit);
  } else {
    file = {
      schemaVersion: TUNE_SCHEMA_VERSION,
      tool: { name: 'llm-bench', version },
      config,
      configDir: options.configDir,
      createdAt: new Date().toISOString(),
      finishedAt: null,
      status: 'running',
      statusReason: null,
      trials: [],
      best: null,
      remeasure: null,
      runningServer: null,
    };
  }
  file.writer = identifiedOnThisHost();
  const save = (): void => writeAtomically(outPath, `${JSON.stringify(file, null, 2)}\n`, 'tune file');
  save();

  const finish = (status: TuneStatus, reason: string): TuneFile => {
    file = { ...file, status, statusReason: reason, finishedAt: new Date().toISOString(), runningServer: null };
    delete file.writer;
    save();
    emit({ type: 'done', status, reason, best: file.best, trials: file.trials.length });
    return file;
  };

  const need = await benchmarkNeed(bench, emit);
  const constraintArgv = (params: Params) => commandFor(config.server, config.space, params, null, options.llmbenchCommand);
  const search = createSearch(config.space, config.search, (params) => checkConstraints(config.constraints, params, constraintArgv(params), need) === undefined);
  const context: TrialContext = {
    options,
    outPath,
    bench,
    emit,
    confirmed: options.confirmFirstLaunch === undefined,
    setRunningServer: (server) => {
      file.runningServer = server;
      save();
    },
  };
  let refusalsInARow = 0;
  const cancelled = TUNE_END_TEXT.cancelled;
  try {
    let searched: string;
    for (;;) {
      if (signal?.aborted) return finish('cancelled', cancelled);
      const launched = file.trials.filter((t) => t.status !== 'refused').length;
      if (config.budget.trials !== undefined && launched >= config.budget.trials) {
        searched = fillPlaceholders(TUNE_END_TEXT.searched.trials, [config.budget.trials]);
        break;
      }
      const spentSec = file.trials.reduce((sum, t) => sum + (Date.parse(t.endedAt) - Date.parse(t.startedAt)) / 1000, 0);
      if (config.budget.wallTimeSec !== undefined && spentSec >= config.budget.wallTimeSec) {
        searched = fillPlaceholders(TUNE_END_TEXT.searched.wallTime, [config.budget.wallTimeSec]);
        break;
      }

      const params = search.propose(file.trials.map((t) => ({ params: t.params, score: t.objective })));
      if (params === undefined) {
        searched = TUNE_END_TEXT.searched.allTried;
        break;
      }
      const number = (file.trials.at(-1)?.number ?? 0) + 1;
      const startedAt = new Date().toISOString();
      const refusal = checkConstraints(config.constraints, params, constraintArgv(params), need);
      let trial: Trial;
      let portTaken: string | null = null;
      if (refusal) {
        trial = { ...failedTrial(number, params, constraintArgv(params), startedAt), status: 'refused', reason: fillPlaceholders(TUNE_END_TEXT.refused, [refusal.rule, refusal.message]) };
        emit({ type: 'trial-start', trial: number, params, command: trial.command, port: null, logFile: null });
        if (++refusalsInARow >= REFUSALS_IN_A_ROW_LIMIT) {
          file.trials.push(trial);
          return finish('failed', fillPlaceholders(TUNE_END_TEXT.refusedInARow, [REFUSALS_IN_A_ROW_LIMIT]));
        }
      } else {
        refusalsInARow = 0;
        const outcome = await launchAndMeasure(context, number, params);
        if (outcome === 'cancelled') return finish('cancelled', cancelled);
        if (outcome === 'declined') return finish('cancelled', TUNE_END_TEXT.declined);
        trial = outcome.trial;
        portTaken = outcome.portTaken;
      }
      file.trials.push(trial);
      file.best = bestOf(file.trials);
      save();
      emit({ type: 'trial-end', trial, best: file.best });
      if (portTaken) return finish('failed', portTaken);
    }
    const remeasured = await remeasureCandidates(context, file, save);
    if (remeasured === 'cancelled') return finish('cancelled', cancelled);
    if (remeasured instanceof PortStillTaken) return finish('failed', remeasured.message);
    return finish('complete', remeasured === null ? searched : fillPlaceholders(remeasured.text, [searched, ...remeasured.figures]));
  } catch (error) {
    const message = messageOf(error);
    try {
      finish('failed', fillPlaceholders(TUNE_END_TEXT.stopped, [message]));
    } catch {
      // the file cannot be written either: the error says why
    }
    throw error;
  }
}

/** The benchmark's largest request, for the rule sets; null (and said) when the workload cannot be built here. */
async function benchmarkNeed(bench: BenchmarkSource, emit: (event: TuneEvent) => void): Promise<WorkloadNeed | null> {
  try {
    return await workloadNeed(prepareBenchmark(bench, 'http://127.0.0.1:1/v1', 'model').config);
  } catch (error) {
    emit({ type: 'log', level: 'warn', message: `The benchmark's requests could not be counted (${messageOf(error)}): the rules do not check that a server's context holds them.` });
    return null;
  }
}

interface TrialContext {
  options: TuneOptions;
  outPath: string;
  bench: BenchmarkSource;
  emit: (event: TuneEvent) => void;
  /** Whether the first launch was confirmed (or needs no confirmation). */
  confirmed: boolean;
  setRunningServer: (server: TuneFile['runningServer']) => void;
}

/** Trial `number` as failed with nothing measured: what a trial is recorded as until it shows otherwise. */
function failedTrial(number: number, params: Params, command: string[], startedAt: string): Trial {
  return {
    number,
    params,
    command,
    status: 'failed',
    reason: null,
    objective: null,
    slo: null,
    load: null,
    resultFile: null,
    logFile: null,
    port: null,
    gpuMemoryUsedMiB: null,
    gpuMemoryNote: null,
    startedAt,
    endedAt: new Date().toISOString(),
  };
}

/** What a benchmark gave: a score with its result file, a failure, or a cancel. */
type Measured = (Score & { resultFile: string }) | { failed: string } | 'cancelled';

/**
 * The environment of a server: the tuner's, less what only the `llmbench` command gets (unless it
 * is that command), with server.env over it.
 */
function serverEnv(options: TuneOptions, written: readonly string[]): Record<string, string | undefined> {
  const base = { ...(options.env ?? process.env) };
  const own = written[0] === 'llmbench';
  for (const [name, value] of Object.entries(options.llmbenchEnv ?? {})) {
    if (own) base[name] = value;
    else delete base[name];
  }
  return { ...base, ...options.config.server.env };
}

/**
 * Launches the server of trial `number` (or, with `round`, of its re-measurement), waits until
 * it answers, benchmarks it, reads its GPU memory and stops it. `portTaken` says when its port
 * was still taken after the stop: the tune does not go on then.
 */
async function launchAndMeasure(context: TrialContext, number: number, params: Params, round?: number): Promise<{ trial: Trial; portTaken: string | null } | 'cancelled' | 'declined'> {
  const { options, emit } = context;
  const { config, signal } = options;
  const startedAt = new Date().toISOString();
  const port = await findFreePort();
  let command = commandFor(config.server, config.space, params, port, options.llmbenchCommand);
  const run = containerRunOf(command);
  let container: { tool: string; name: string } | undefined;
  if (run) {
    const named = namedContainerRun(command, run, containerName(tuneStem(context.outPath), number, round));
    command = named.argv;
    container = { tool: run.tool, name: named.name };
  }
  if (!context.confirmed) {
    if (!(await options.confirmFirstLaunch!(command))) return 'declined';
    context.confirmed = true;
  }
  const outDir = dirname(context.outPath);
  const logPath = trialPath(context.outPath, number, '.log', round);
  const logFile = relative(outDir, logPath);
  emit({ type: 'trial-start', trial: number, params, command, port, logFile, ...(round !== undefined ? { round } : {}) });
  emit({ type: 'trial-stage', trial: number, stage: 'launching' });
  writeAtomically(logPath, '', 'server log');
  const server = launchServer(command, {
    env: serverEnv(options, config.server.command),
    cwd: resolve(options.configDir, config.server.cwd ?? '.'),
    logPath,
    onLine: (stream, line) => emit({ type: 'server-log', trial: number, stream, line }),
    ...(container ? { container } : {}),
  });
  if (server.pid !== undefined) {
    context.setRunningServer({
      trial: number,
      pid: server.pid,
      port,
      host: hostname(),
      ...(server.identity ? { startTime: server.identity.startTime, command: server.identity.command } : {}),
      ...(container ? { container: container.name } : {}),
    });
  }
  const base = { ...failedTrial(number, params, command, startedAt), logFile, port };
  const ended = (fields: Partial<Trial>): Trial => ({ ...base, ...fields, endedAt: new Date().toISOString() });

  let measured: Measured | { notReady: string } = 'cancelled';
  let gpu: { usedMiB: number | null; note: string | null } = { usedMiB: null, note: null };
  let portTaken: string | null = null;
  // A foreign server on the port holds it before and after ours: no reason to stop the tune.
  let foreign = false;
  try {
    emit({ type: 'trial-stage', trial: number, stage: 'waiting-ready' });
    const readiness = await waitReady(`http://127.0.0.1:${port}${config.server.readyPath}`, port, server, config.server.startTimeoutSec * 1000, signal);
    if (!readiness.ready) {
      foreign = readiness.foreign === true;
      if (!signal?.aborted) measured = { notReady: readiness.reason };
    } else {
      if (server.pid !== undefined && server.identity) {
        // A launcher that execs the server (chroot, a wrapper script) shows the server's command line only once it runs.
        const now = readCommandLine(server.pid) ?? server.identity.command;
        context.setRunningServer({ trial: number, pid: server.pid, port, host: hostname(), startTime: server.identity.startTime, command: now, ...(container ? { container: container.name } : {}) });
      }
      emit({ type: 'trial-stage', trial: number, stage: 'benchmarking' });
      const model = await servedModel(port);
      const files = { context, trial: number, round, port, model };
      measured =
        config.objective.mode === 'max-load-within-slo'
          ? await highestLoadWithinSlo(files, config.objective)
          : await measure(files, trialPath(context.outPath, number, '.llmbench.json', round), context.bench, (result) => scoreRun(result, config.objective as Extract<Objective, { maximize: unknown }>));
      gpu = await trialGpuMemory(await server.processes());
    }
  } finally {
    emit({ type: 'trial-stage', trial: number, stage: 'stopping' });
    await server.stop(config.server.stopGraceSec * 1000);
    if (!foreign && !(await waitPortFree(port, PORT_RELEASE_MS))) {
      const [afterSec, holder] = [PORT_RELEASE_MS / 1000, portHolderText(port)];
      portTaken = round === undefined ? fillPlaceholders(PORT_TEXT.stillTaken, [port, afterSec, number, holder]) : fillPlaceholders(PORT_TEXT.stillTakenRemeasure, [port, afterSec, number, round, holder]);
      emit({ type: 'log', level: 'error', message: portTaken });
    }
    context.setRunningServer(null);
  }
  if (measured === 'cancelled') return 'cancelled';
  if ('notReady' in measured) return { trial: ended({ status: 'failed-to-start', reason: measured.notReady }), portTaken };
  const memory = { gpuMemoryUsedMiB: gpu.usedMiB, gpuMemoryNote: gpu.note };
  if ('failed' in measured) return { trial: ended({ status: 'failed', reason: measured.failed, ...memory }), portTaken };
  const missed = measured.objective === null ? TRIAL_REASON_TEXT.noSlo : null;
  return {
    trial: ended({ status: 'complete', reason: missed, objective: measured.objective, slo: measured.slo, load: measured.load, resultFile: measured.resultFile, ...memory }),
    portTaken,
  };
}

/** The model the server serves (its first in /v1/models); the benchmark config's own model wins anyway. */
async function servedModel(port: number): Promise<string> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/v1/models`, { signal: AbortSignal.timeout(5000) });
    const body = (await response.json()) as { data?: Array<{ id?: unknown }> };
    const id = body.data?.[0]?.id;
    if (typeof id === 'string' && id !== '') return id;
  } catch {
    // a server without /v1/models: the benchmark must name the model
  }
  return 'default';
}

/** Where a trial's benchmarks go and what they run against. */
interface BenchmarkTarget {
  context: TrialContext;
  trial: number;
  round: number | undefined;
  port: number;
  model: string;
}

async function measure(target: BenchmarkTarget, resultPath: string, source: BenchmarkSource, score: (run: RunOverview) => Score): Promise<Measured> {
  const { options, emit, outPath } = target.context;
  const prepared = prepareBenchmark(source, `http://127.0.0.1:${target.port}/v1`, target.model);
  let run: RunOverview;
  try {
    run = await runBenchmarkInWorker(prepared.config, {
      workerScript: options.engineWorkerScript ?? join(__dirname, 'engine-worker.js'),
      ...(options.signal ? { signal: options.signal } : {}),
      resultPath,
      onEvent: (event) => emit({ type: 'benchmark', trial: target.trial, event }),
      ...(prepared.apiKey !== undefined ? { apiKey: prepared.apiKey } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) return 'cancelled';
    return { failed: fillPlaceholders(TRIAL_REASON_TEXT.couldNotRun, [messageOf(error)]) };
  }
  if (options.signal?.aborted) return 'cancelled';
  if (run.status === 'failed') return { failed: fillPlaceholders(TRIAL_REASON_TEXT.failed, [run.statusReason ?? TRIAL_REASON_TEXT.noReason]) };
  return { ...score(run), resultFile: relative(dirname(outPath), resultPath) };
}

/**
 * The highest load (rate or concurrency) whose benchmark meets every SLO: from the lowest load,
 * doubling until one misses (or the highest is met), then halving the bracket until it is
 * narrower than the stated precision. The objective is the highest load met. Each probe runs the
 * benchmark with its profile replaced by one step at the probe's load.
 */
async function highestLoadWithinSlo(target: BenchmarkTarget, objective: Extract<Objective, { mode: 'max-load-within-slo' }>): Promise<Measured> {
  const { load } = objective;
  const whole = load.kind === 'concurrency';
  let probes = 0;
  const probe = async (value: number): Promise<Measured> =>
    measure(target, trialPath(target.context.outPath, target.trial, `.load-${++probes}.llmbench.json`, target.round), probeSource(target.context.bench, load, value), (run) => {
      const summary = run.steps.find((s) => s.summary)?.summary ?? undefined;
      const figures = summary ? sloFigures(summary, objective.slo) : Object.fromEntries(Object.keys(objective.slo).map((k) => [k, null]));
      const met = summary !== undefined && summary.requests.completed > 0 && sloMet(figures, objective.slo);
      return { objective: met ? value : null, slo: { met, figures }, load: { kind: load.kind, value } };
    });

  const { low, high } = loadBounds(load);
  let met = await probe(low);
  if (met === 'cancelled' || 'failed' in met || met.objective === null) return met;
  let missedAt: number | undefined;
  while ((met.load?.value ?? high) < high) {
    const next = Math.min(high, (met.load?.value ?? low) * 2);
    const result = await probe(next);
    if (result === 'cancelled' || 'failed' in result) return result;
    if (result.objective === null) {
      missedAt = next;
      break;
    }
    met = result;
  }
  while (missedAt !== undefined) {
    const lo = met.load!.value;
    if ((missedAt - lo) / lo <= load.precision || (whole && missedAt - lo <= 1)) break;
    const mid = whole ? Math.floor((lo + missedAt) / 2) : (lo + missedAt) / 2;
    const result = await probe(mid);
    if (result === 'cancelled' || 'failed' in result) return result;
    if (result.objective === null) missedAt = mid;
    else met = result;
  }
  return met;
}

/**
 * The runs of a re-measurement in the order they go: round by round, each round in the order of
 * the candidates turned by one more place, so that no candidate always runs first (after an idle
 * machine) or last; and interleaved, so that a slow drift of the machine (other jobs, heat) falls
 * on every candidate alike instead of on whichever was measured during it.
 */
export function remeasureOrder(candidates: readonly number[], rounds: number): [trial: number, round: number][] {
  const order: [number, number][] = [];
  for (let round = 1; round <= rounds; round++) {
    for (let i = 0; i < candidates.length; i++) order.push([candidates[(i + round - 1) % candidates.length]!, round]);
  }
  return order;
}

/** Each candidate's figure over its scored re-measurements: mean and 95% Student's t interval (src/results/stats.ts). */
function summarize(candidates: readonly number[], runs: readonly RemeasureRun[]): CandidateSummary[] {
  return candidates.map((trial) => {
    const own = runs.filter((r) => r.trial === trial);
    const values = own.flatMap((r) => (r.status === 'complete' && r.objective !== null ? [r.objective] : []));
    const interval = meanInterval(values);
    return { trial, n: values.length, mean: interval?.mean ?? null, halfWidth: interval?.halfWidth ?? null, missed: own.length - values.length };
  });
}

/**
 * The noise: one measurement's standard deviation as a share of its candidate's mean, pooled over
 * the candidates with two scored runs or more (each weighted by its degrees of freedom), in percent.
 */
function noisePercent(candidates: readonly number[], runs: readonly RemeasureRun[]): number | null {
  let squares = 0;
  let freedom = 0;
  for (const trial of candidates) {
    const values = runs.flatMap((r) => (r.trial === trial && r.status === 'complete' && r.objective !== null ? [r.objective] : []));
    const stdev = sampleStdev(values);
    const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
    if (stdev === null || mean === 0) continue;
    squares += (values.length - 1) * (stdev / mean) ** 2;
    freedom += values.length - 1;
  }
  return freedom === 0 ? null : Math.sqrt(squares / freedom) * 100;
}

/**
 * The winner after re-measurement: the best mean among the candidates that scored in every run;
 * a candidate that failed or missed the SLOs in a run comes after them all (its mean leaves those
 * runs out). Null when no candidate scored at all.
 */
function bestRemeasured(file: TuneFile, remeasure: Remeasure): BestTrial | null {
  const ranked = [...remeasure.summaries]
    .filter((s) => s.mean !== null)
    .sort((a, b) => Number(a.missed > 0) - Number(b.missed > 0) || (b.mean as number) - (a.mean as number));
  const winner = ranked[0];
  const trial = winner && file.trials.find((t) => t.number === winner.trial);
  return winner && trial ? { trial: trial.number, params: trial.params, objective: winner.mean as number, command: trial.command } : null;
}

/**
 * After the search: the best `candidates` trials by the search's figures, launched and benchmarked
 * `rounds` times each, interleaved (remeasureOrder). Their own search figures are left out of the
 * means: they were picked for being high, which flatters them. Continues a re-measurement a crash
 * or a cancel cut. Resolves with the template of the tune's end and its figures after the
 * search's sentence (null when re-measurement is off), 'cancelled', or the port problem that stopped it.
 */
async function remeasureCandidates(context: TrialContext, file: TuneFile, save: () => void): Promise<{ text: string; figures: number[] } | null | 'cancelled' | PortStillTaken> {
  const { config, signal } = context.options;
  const settings = config.remeasure;
  if (settings === false) return null;
  let state = file.remeasure;
  if (!state) {
    const candidates = file.trials
      .filter((t) => t.status === 'complete' && t.objective !== null)
      .sort((a, b) => (b.objective as number) - (a.objective as number) || a.number - b.number)
      .slice(0, settings.candidates)
      .map((t) => t.number);
    if (candidates.length === 0) return { text: TUNE_END_TEXT.remeasured.none, figures: [] };
    state = { candidates, rounds: settings.rounds, status: 'running', runs: [], summaries: summarize(candidates, []), noisePercent: null };
    file.remeasure = state;
    save();
    context.emit({
      type: 'log',
      level: 'info',
      message: `Re-measuring the best ${candidates.length === 1 ? 'trial' : `${candidates.length} trials`} (${candidates.join(', ')}), ${state.rounds} rounds each, interleaved: ${candidates.length * state.rounds} more launches.`,
    });
  }
  const remeasure = state;
  const publish = (): void => {
    remeasure.summaries = summarize(remeasure.candidates, remeasure.runs);
    remeasure.noisePercent = noisePercent(remeasure.candidates, remeasure.runs);
    file.best = bestRemeasured(file, remeasure) ?? bestOf(file.trials);
    save();
    context.emit({ type: 'remeasure', remeasure, best: file.best });
  };
  if (remeasure.status !== 'complete') {
    remeasure.status = 'running';
    publish();
    for (const [trial, round] of remeasureOrder(remeasure.candidates, remeasure.rounds)) {
      if (remeasure.runs.some((r) => r.trial === trial && r.round === round)) continue;
      const params = file.trials.find((t) => t.number === trial)?.params;
      if (!params) continue;
      const outcome = signal?.aborted ? 'cancelled' : await launchAndMeasure(context, trial, params, round);
      if (outcome === 'cancelled' || outcome === 'declined') {
        remeasure.status = 'cancelled';
        publish();
        return 'cancelled';
      }
      const { number: _number, params: _params, command: _command, status, ...measured } = outcome.trial;
      remeasure.runs.push({ ...measured, trial, round, status: status === 'refused' ? 'failed' : status });
      publish();
      if (outcome.portTaken) return new PortStillTaken(outcome.portTaken);
    }
    remeasure.status = 'complete';
    publish();
  }
  const n = remeasure.candidates.length;
  return n === 1 ? { text: TUNE_END_TEXT.remeasured.one, figures: [remeasure.rounds] } : { text: TUNE_END_TEXT.remeasured.several, figures: [n, remeasure.rounds] };
}
