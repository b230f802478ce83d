/**
 * The tuner's public API, for the command line (`llmbench tune`) and the extension host: launch
 * a server per trial with flags chosen by the search, benchmark it, score it, stop it, and write
 * the tune file (`*.llmtune.json`) after every trial. Nothing here imports `vscode`.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { version } from '../../package.json';
import { parseTuneFile, TUNE_FILE_SUFFIX, TUNE_SCHEMA_VERSION, type BestTrial, type Objective, type Params, type Trial, type TuneConfig, type TuneEvent, type TuneFile, type TuneStatus } from '../format/tune';
// The engine's modules one by one, not its index: the extension host bundles this file, and the
// index would bring the whole engine (the HTTP client, tokenizers) into it.
import { runBenchmarkInWorker, type RunOverview } from '../load/worker-host';
import { onThisHost } from '../processes/alive';
import { writeAtomically } from '../results/writer';
import { benchmarkSource, prepareBenchmark, TuneConfigError, type BenchmarkSource } from './config';
import { checkConstraints } from './constraints';
import { readGpuMemoryUsedMiB } from './gpu';
import { scoreRun, sloFigures, sloMet, type Score } from './objective';
import { createSearch } from './search';
import { findFreePort, killLeftoverGroup, launchServer, waitPortFree, waitReady } from './server';
import { commandFor } from './space';

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

/** Trial files beside the tune file, by the trial's number: `NAME.trial-3.log`, `NAME.trial-3.llmbench.json`. */
function trialPath(outPath: string, trial: number, suffix: string): string {
  const name = basename(outPath);
  const stem = name.endsWith(TUNE_FILE_SUFFIX) ? name.slice(0, -TUNE_FILE_SUFFIX.length) : name.replace(/\.json$/, '');
  return join(dirname(outPath), `${stem}.trial-${trial}${suffix}`);
}

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

/** A tune file to continue: the same config, its server left by a crash stopped. */
function resumedFile(outPath: string, config: TuneConfig, emit: (e: TuneEvent) => void): TuneFile {
  const parsed = parseTuneFile(readFileSync(outPath, 'utf8'));
  if (!parsed.ok) throw new TuneConfigError(`--resume: ${outPath}: ${parsed.error}`);
  const file = parsed.value;
  if (canonicalJson(file.config) !== canonicalJson(config)) {
    throw new TuneConfigError(`--resume: ${outPath} was made with another tune config; resume it with the config it holds, or write a new tune with another --out`);
  }
  const left = file.runningServer;
  // The server ran where the tuner that launched it ran: the file's writer.
  const host = file.writer?.host;
  if (left && host === hostname()) {
    if (killLeftoverGroup({ pid: left.pid, host })) {
      emit({ type: 'log', level: 'warn', message: `Stopped the server of trial ${left.trial} (process group ${left.pid}) left running by the tuner that stopped` });
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
      runningServer: null,
    };
  }
  file.writer = onThisHost();
  const save = (): void => writeAtomically(outPath, `${JSON.stringify(file, null, 2)}\n`, 'tune file');
  save();

  const finish = (status: TuneStatus, reason: string): TuneFile => {
    file = { ...file, status, statusReason: reason, finishedAt: new Date().toISOString(), runningServer: null };
    delete file.writer;
    save();
    emit({ type: 'done', status, reason, best: file.best, trials: file.trials.length });
    return file;
  };

  const constraintArgv = (params: Params) => commandFor(config.server, config.space, params, null, options.llmbenchCommand);
  const search = createSearch(config.space, config.search, (params) => checkConstraints(config.constraints, params, constraintArgv(params)) === undefined);
  const context: TrialContext = {
    options,
    outPath,
    env: { ...baseEnv, ...config.server.env },
    bench,
    emit,
    confirmed: options.confirmFirstLaunch === undefined,
    setRunningServer: (server) => {
      file.runningServer = server;
      save();
    },
  };
  let refusalsInARow = 0;
  try {
    for (;;) {
      if (signal?.aborted) return finish('cancelled', 'Cancelled: the running server was stopped. Continue with --resume.');
      const launched = file.trials.filter((t) => t.status !== 'refused').length;
      if (config.budget.trials !== undefined && launched >= config.budget.trials) return finish('complete', `The budget of ${config.budget.trials} launched trials is spent.`);
      const spentSec = file.trials.reduce((sum, t) => sum + (Date.parse(t.endedAt) - Date.parse(t.startedAt)) / 1000, 0);
      if (config.budget.wallTimeSec !== undefined && spentSec >= config.budget.wallTimeSec) return finish('complete', `The budget of ${config.budget.wallTimeSec} s is spent.`);

      const params = search.propose(file.trials.map((t) => ({ params: t.params, score: t.objective })));
      if (params === undefined) return finish('complete', 'Every combination the constraints allow has been tried.');
      const number = (file.trials.at(-1)?.number ?? 0) + 1;
      const startedAt = new Date().toISOString();
      const refusal = checkConstraints(config.constraints, params, constraintArgv(params));
      let trial: Trial | 'cancelled' | 'declined';
      if (refusal) {
        trial = { ...failedTrial(number, params, constraintArgv(params), startedAt), status: 'refused', reason: `refused by rule ${refusal.rule}: ${refusal.message}` };
        emit({ type: 'trial-start', trial: number, params, command: trial.command, port: null, logFile: null });
        if (++refusalsInARow >= REFUSALS_IN_A_ROW_LIMIT) {
          file.trials.push(trial);
          return finish('failed', `The constraints refused ${REFUSALS_IN_A_ROW_LIMIT} combinations in a row: they leave (almost) nothing to try. Widen the space or loosen the rules.`);
        }
      } else {
        refusalsInARow = 0;
        trial = await runTrial(context, number, params);
      }
      if (trial === 'cancelled') return finish('cancelled', 'Cancelled: the running server was stopped. Continue with --resume.');
      if (trial === 'declined') return finish('cancelled', 'The first launch was not confirmed: nothing was started.');
      file.trials.push(trial);
      file.best = bestOf(file.trials);
      save();
      emit({ type: 'trial-end', trial, best: file.best });
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    try {
      finish('failed', `The tune stopped: ${message}`);
    } catch {
      // the file cannot be written either: the error says why
    }
    throw error;
  }
}

interface TrialContext {
  options: TuneOptions;
  outPath: string;
  env: Readonly<Record<string, string | undefined>>;
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
    startedAt,
    endedAt: new Date().toISOString(),
  };
}

/** What a benchmark gave: a score with its result file, a failure, or a cancel. */
type Measured = (Score & { resultFile: string }) | { failed: string } | 'cancelled';

async function runTrial(context: TrialContext, number: number, params: Params): Promise<Trial | 'cancelled' | 'declined'> {
  const { options, emit } = context;
  const { config, signal } = options;
  const startedAt = new Date().toISOString();
  const port = await findFreePort();
  const command = commandFor(config.server, config.space, params, port, options.llmbenchCommand);
  if (!context.confirmed) {
    if (!(await options.confirmFirstLaunch!(command))) return 'declined';
    context.confirmed = true;
  }
  const outDir = dirname(context.outPath);
  const logPath = trialPath(context.outPath, number, '.log');
  const logFile = relative(outDir, logPath);
  emit({ type: 'trial-start', trial: number, params, command, port, logFile });
  emit({ type: 'trial-stage', trial: number, stage: 'launching' });
  writeAtomically(logPath, '', 'server log');
  const server = launchServer(command, {
    env: context.env,
    cwd: resolve(options.configDir, config.server.cwd ?? '.'),
    logPath,
    onLine: (stream, line) => emit({ type: 'server-log', trial: number, stream, line }),
  });
  if (server.pid !== undefined) context.setRunningServer({ trial: number, pid: server.pid, port });
  const base = { ...failedTrial(number, params, command, startedAt), logFile, port };
  const ended = (fields: Partial<Trial>): Trial => ({ ...base, ...fields, endedAt: new Date().toISOString() });

  let measured: Measured;
  let gpuMemoryUsedMiB: number | null = null;
  let portNote = '';
  try {
    emit({ type: 'trial-stage', trial: number, stage: 'waiting-ready' });
    const readiness = await waitReady(`http://127.0.0.1:${port}${config.server.readyPath}`, server, config.server.startTimeoutSec * 1000, signal);
    if (!readiness.ready) {
      if (signal?.aborted) return 'cancelled';
      return ended({ status: 'failed-to-start', reason: readiness.reason });
    }
    emit({ type: 'trial-stage', trial: number, stage: 'benchmarking' });
    const model = await servedModel(port);
    measured =
      config.objective.mode === 'max-load-within-slo'
        ? await highestLoadWithinSlo(context, number, port, model, config.objective)
        : await measure(context, trialPath(context.outPath, number, '.llmbench.json'), number, port, model, {}, (run) => scoreRun(run, config.objective as Extract<Objective, { maximize: unknown }>));
    gpuMemoryUsedMiB = await readGpuMemoryUsedMiB();
  } finally {
    emit({ type: 'trial-stage', trial: number, stage: 'stopping' });
    await server.stop(config.server.stopGraceSec * 1000);
    if (!(await waitPortFree(port, PORT_RELEASE_MS))) {
      portNote = ` Port ${port} was still taken ${PORT_RELEASE_MS / 1000} s after the server stopped.`;
      emit({ type: 'log', level: 'warn', message: `Trial ${number}:${portNote}` });
    }
    context.setRunningServer(null);
  }
  if (measured === 'cancelled') return 'cancelled';
  if ('failed' in measured) return ended({ status: 'failed', reason: measured.failed + portNote, gpuMemoryUsedMiB });
  const missed = measured.objective === null ? 'No step met the SLOs.' : '';
  return ended({
    status: 'complete',
    reason: `${missed}${portNote}`.trim() || null,
    objective: measured.objective,
    slo: measured.slo,
    load: measured.load,
    resultFile: measured.resultFile,
    gpuMemoryUsedMiB,
  });
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

async function measure(context: TrialContext, resultPath: string, trial: number, port: number, model: string, overrides: Record<string, unknown>, score: (run: RunOverview) => Score): Promise<Measured> {
  const { options, emit } = context;
  const prepared = prepareBenchmark(context.bench, `http://127.0.0.1:${port}/v1`, model, overrides);
  let run: RunOverview;
  try {
    run = await runBenchmarkInWorker(prepared.config, {
      workerScript: options.engineWorkerScript ?? join(__dirname, 'engine-worker.js'),
      ...(options.signal ? { signal: options.signal } : {}),
      resultPath,
      onEvent: (event) => emit({ type: 'benchmark', trial, event }),
      ...(prepared.apiKey !== undefined ? { apiKey: prepared.apiKey } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) return 'cancelled';
    return { failed: `The benchmark could not run: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (options.signal?.aborted) return 'cancelled';
  if (run.status === 'failed') return { failed: `The benchmark failed: ${run.statusReason ?? 'no reason given'}` };
  return { ...score(run), resultFile: relative(dirname(context.outPath), resultPath) };
}

/**
 * The highest load (rate or concurrency) whose benchmark meets every SLO: from the lowest load,
 * doubling until one misses (or the highest is met), then halving the bracket until it is
 * narrower than the stated precision. The objective is the highest load met.
 */
async function highestLoadWithinSlo(context: TrialContext, trial: number, port: number, model: string, objective: Extract<Objective, { mode: 'max-load-within-slo' }>): Promise<Measured> {
  const { load } = objective;
  const whole = load.kind === 'concurrency';
  const profileAt = (value: number) => (whole ? { kind: 'concurrency', levels: [value] } : { kind: 'rate', rates: [value] });
  let probes = 0;
  const probe = async (value: number): Promise<Measured> =>
    measure(context, trialPath(context.outPath, trial, `.load-${++probes}.llmbench.json`), trial, port, model, { profile: profileAt(value) }, (run) => {
      const summary = run.steps.find((s) => s.summary)?.summary ?? undefined;
      const figures = summary ? sloFigures(summary, objective.slo) : Object.fromEntries(Object.keys(objective.slo).map((k) => [k, null]));
      const met = summary !== undefined && summary.requests.completed > 0 && sloMet(figures, objective.slo);
      return { objective: met ? value : null, slo: { met, figures }, load: { kind: load.kind, value } };
    });

  const low = whole ? Math.max(1, Math.round(load.min)) : load.min;
  const high = whole ? Math.max(low, Math.round(load.max)) : load.max;
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
