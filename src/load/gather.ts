/**
 * Gathering a run: the records of every executor of a step go through here into the one writer,
 * with progress summed over the executors, each step summarized (exact percentiles from the raw
 * records, src/results/), the run judged (an endpoint that cannot serve it, a client that failed,
 * maxErrors, a duration that ended before a rate could be measured, the outcome and the token
 * cross-check) and its events emitted. One per run, in the thread that owns the result file; it
 * knows nothing of how executors pace their requests (execute.ts) or where they run.
 */
import { performance } from 'node:perf_hooks';
import { knownSecrets, redactSecrets, redactUrl, type RunConfig } from '../format/config';
import type { PlannedStep, ProgressSnapshot, RunEvent } from '../format/events';
import type { RequestRecord, ResultDocument, RunStatus, StepSummary } from '../format/result';
import { RunMonitor } from '../observe/monitor';
import { isMeasured } from '../results/stats';
import { ResultWriter } from '../results/writer';
import type { ExecutorSink, StepSignals } from './execute';
import { stepConnections, type RunPlan, type StepPlan } from './plan';
import type { RunOptions } from './types';

/** The run stops when its first requests all fail this way: retrying cannot help. */
const FAIL_FAST_AFTER = 3;
const PROGRESS_INTERVAL_MS = 250;
const PROGRESS_WINDOW_MS = 1000;
const RECENT_VALUES_LIMIT = 100;

const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;
const roundNullable = (ms: number | null): number | null => (ms === null ? null : roundMs(ms));

/**
 * Microsecond precision is all a record needs; it keeps result files about half the size.
 * The chunk times are rounded in place: the client hands its record over, and a copy per
 * request would double the garbage of the hottest array.
 */
function roundRecordTimes(r: RequestRecord): RequestRecord {
  const chunkMs = r.chunkMs;
  for (let i = 0; i < chunkMs.length; i++) chunkMs[i] = roundMs(chunkMs[i] as number);
  return {
    ...r,
    scheduledMs: roundMs(r.scheduledMs),
    sentMs: roundMs(r.sentMs),
    queueMs: roundMs(r.queueMs),
    firstTokenMs: roundNullable(r.firstTokenMs),
    endMs: roundNullable(r.endMs),
  };
}

/** Errors that say the endpoint cannot serve this run at all, whatever the load. */
function hopelessFailure(r: RequestRecord): string | null {
  const error = r.error;
  if (!error) return null;
  if (error.kind === 'connect' || error.kind === 'timeout-connect') return `could not connect (${error.message})`;
  if (error.kind === 'http' && (r.httpStatus === 401 || r.httpStatus === 403)) return `HTTP ${r.httpStatus}: check the API key (${error.message})`;
  if (error.kind === 'http' && r.httpStatus === 404) return `HTTP 404: check that the base URL ends in /v1 and the model name (${error.message})`;
  return null;
}

/** A step's warm-up requests (the first `warmup` it sends, never more than it sends). */
function stepWarmup(step: StepPlan): number {
  return step.requests === null ? step.warmup : Math.min(step.warmup, step.requests);
}

/** A step as the run-start event announces it: its measured requests, warm-up and duration limit. */
function plannedStep(step: StepPlan): PlannedStep {
  const warmup = stepWarmup(step);
  const measured = step.requests === null ? 0 : step.requests - warmup;
  return { name: step.name, profile: step.profile, requests: measured > 0 ? measured : null, warmup, durationSec: step.durationSec };
}

/**
 * A step's running counts for progress events: totals over its executors, and rates over the last
 * second. Completed and failed count measured requests, as the step's table does; warm-up requests
 * are counted apart.
 */
class StepProgress {
  completed = 0;
  failed = 0;
  warmupEnded = 0;
  warmupFailed = 0;
  private readonly inFlightBy: number[];
  private inFlightTotal = 0;
  private readonly recentCompletions: { atMs: number; tokens: number }[] = [];
  private recentTtft: number[] = [];
  private recentLatency: number[] = [];

  constructor(
    private readonly stepIndex: number,
    private readonly stepStartMs: number,
    /** Measured requests planned (warm-up not included); null when a duration alone ends the step. */
    private readonly plannedRequests: number | null,
    private readonly plannedDurationSec: number | null,
    private readonly plannedWarmup: number,
    executors: number,
  ) {
    this.inFlightBy = new Array<number>(executors).fill(0);
  }

  /** Requests that ended, warm-up included. */
  get ended(): number {
    return this.completed + this.failed + this.warmupEnded;
  }

  /** Requests in flight, summed over the executors. */
  get inFlight(): number {
    return this.inFlightTotal;
  }

  setInFlight(executor: number, count: number): void {
    this.inFlightTotal += count - (this.inFlightBy[executor] ?? 0);
    this.inFlightBy[executor] = count;
  }

  add(r: RequestRecord): void {
    if (r.warmup) {
      if (r.error?.kind === 'cancelled') return;
      this.warmupEnded++;
      if (r.error !== null) this.warmupFailed++;
    } else if (r.error === null) {
      this.completed++;
      this.recentCompletions.push({ atMs: performance.now(), tokens: r.outputTokens ?? 0 });
      if (r.firstTokenMs !== null && this.recentTtft.length < RECENT_VALUES_LIMIT) this.recentTtft.push(r.firstTokenMs - r.sentMs);
      if (r.endMs !== null && this.recentLatency.length < RECENT_VALUES_LIMIT) this.recentLatency.push(r.endMs - r.sentMs);
    } else if (r.error.kind !== 'cancelled') {
      this.failed++;
    }
  }

  /** The current state; the recent values are handed over once. */
  snapshot(): ProgressSnapshot {
    const now = performance.now();
    const recent = this.recentCompletions;
    while (recent.length > 0 && (recent[0]?.atMs ?? now) < now - PROGRESS_WINDOW_MS) recent.shift();
    const windowSec = Math.min(PROGRESS_WINDOW_MS, now - this.stepStartMs) / 1000;
    const tokens = recent.reduce((sum, c) => sum + c.tokens, 0);
    const result: ProgressSnapshot = {
      stepIndex: this.stepIndex,
      elapsedSec: (now - this.stepStartMs) / 1000,
      completed: this.completed,
      failed: this.failed,
      inFlight: this.inFlight,
      plannedRequests: this.plannedRequests !== null && this.plannedRequests > 0 ? this.plannedRequests : null,
      plannedDurationSec: this.plannedDurationSec,
      ...(this.plannedWarmup > 0 ? { warmup: { planned: this.plannedWarmup, ended: this.warmupEnded } } : {}),
      requestsPerSecond: windowSec > 0 ? recent.length / windowSec : 0,
      outputTokensPerSecond: windowSec > 0 ? tokens / windowSec : 0,
      recentTtftMs: this.recentTtft,
      recentLatencyMs: this.recentLatency,
    };
    this.recentTtft = [];
    this.recentLatency = [];
    return result;
  }
}

/**
 * One run's gathering: its events, its writer, its monitor, its verdict. `stop` aborts when the run
 * must stop (the caller's cancel, an endpoint that cannot serve it, a client failure); every
 * step's own stop follows it.
 */
export class RunGather {
  private readonly stopRun = new AbortController();
  /** Set once any request got an answer that shows the endpoint is usable. */
  private endpointUsable = false;
  private hopelessCount = 0;
  /** Why the endpoint cannot serve this run, once the first requests all said so. */
  private hopeless: string | null = null;
  /** Warm-up requests that failed: the step tables leave them out, the verdict names them apart. */
  private warmupFailures = 0;
  private failure: string | null = null;
  /** The first measured request's failure, for the verdict of a run where every one failed. */
  private firstMeasuredError: string | null = null;
  /** Output tokens of every request (warm-up and failed ones too: the server generated them), for the cross-check. */
  private readonly clientTokens = { outputTokens: 0, estimated: false, failed: 0 };
  /** Echoed back by a server, these would reach the file and the terminal. */
  private readonly secrets: string[];

  constructor(
    private readonly config: RunConfig,
    private readonly options: RunOptions,
    private readonly writer: ResultWriter,
    /** The server's metrics and the GPUs, watched on the run's clock. */
    private readonly monitor: RunMonitor,
    /** performance.now() at the origin of the run's clock. */
    private readonly clockOrigin: number,
  ) {
    this.secrets = knownSecrets(config.endpoint, options.apiKey);
  }

  /** A step ends once this many of its requests have failed (`limits.maxErrors`). */
  get maxErrors(): number | undefined {
    return this.config.limits.maxErrors;
  }

  /** Aborts when the run must stop. */
  get stop(): AbortSignal {
    return this.stopRun.signal;
  }

  get stopped(): boolean {
    return this.stopRun.signal.aborted;
  }

  /** Stops the run: every step in progress stops, no other starts. */
  cancel(): void {
    this.stopRun.abort();
  }

  redact(text: string): string {
    return redactSecrets(text, this.secrets);
  }

  emit(event: RunEvent): void {
    if (event.type === 'log') this.options.onEvent?.({ ...event, message: this.redact(event.message) });
    else if (event.type === 'run-end' && event.reason !== null) this.options.onEvent?.({ ...event, reason: this.redact(event.reason) });
    else this.options.onEvent?.(event);
  }

  log(level: 'info' | 'warn' | 'error', message: string): void {
    this.emit({ type: 'log', level, message });
  }

  /** Says the run started, with the steps planned so far, and starts watching the server and GPUs. */
  started(plan: RunPlan): void {
    this.emit({
      type: 'run-start',
      plannedSteps: plan.steps.map(plannedStep),
      stepCount: plan.stepCount,
      ...(this.config.repeat ? { repeat: this.config.repeat } : {}),
      resultPath: this.options.resultPath ?? null,
      ...(this.monitor.serverMetrics ? { serverMetrics: this.monitor.serverMetrics } : {}),
      ...(this.monitor.hardware ? { hardware: this.monitor.hardware } : {}),
    });
    this.monitor.start(
      (event) => this.emit(event),
      (source, message) => {
        const said = this.redact(message);
        this.log('warn', said);
        this.emit({ type: 'sampling-problem', source, message: said });
        this.writer.addWarning(said);
      },
    );
  }

  /** Opens a step in the file; its executors start once `StepGather.start` has said when. */
  beginStep(step: StepPlan, repeat: number | undefined, executors: number): StepGather {
    const stepIndex = this.writer.document.steps.length;
    this.writer.startStep(step.name, step.profile, repeat);
    return new StepGather(this, step, stepIndex, repeat, executors);
  }

  /** Writes, judges and counts one record of a step (its times rounded, its error redacted). */
  addRecord(raw: RequestRecord): RequestRecord {
    const r = roundRecordTimes(raw);
    if (r.error !== null) r.error = { kind: r.error.kind, message: this.redact(r.error.message) };
    this.writer.addRecord(r);
    this.clientTokens.outputTokens += r.outputTokens ?? 0;
    if (r.outputTokensSource === 'estimate') this.clientTokens.estimated = true;
    if (r.error !== null && r.error.kind !== 'cancelled') this.clientTokens.failed++;
    if (r.warmup && r.error !== null && r.error.kind !== 'cancelled') this.warmupFailures++;
    if (this.firstMeasuredError === null && r.error !== null && isMeasured(r)) this.firstMeasuredError = r.error.message;
    this.judgeEndpoint(r);
    this.judgeClient(r);
    return r;
  }

  /** Closes a step in the file with its summary, on the run's clock. */
  endStep(stepIndex: number, name: string, note: string | null, startMs: number): StepSummary {
    const summary = this.writer.endStep({
      note,
      startMs: roundMs(startMs - this.clockOrigin),
      endMs: roundMs(performance.now() - this.clockOrigin),
      sampled: this.monitor.take(),
    });
    this.emit({ type: 'step-end', stepIndex, name, summary });
    return summary;
  }

  /** A step's start instant on the run's clock. */
  onRunClock(ms: number): number {
    return roundMs(ms - this.clockOrigin);
  }

  /** Ends a run whose steps all ended: the cross-check, the verdict, the file finished, run-end. */
  async finish(): Promise<ResultDocument> {
    // After the last request: a last scrape closes the cross-check's window.
    await this.monitor.stop(true);
    // A run cut short (cancelled, or failed) abandoned streams the server went on generating: the
    // counts cannot agree, and saying so would only blame another client.
    const crossCheck = this.stopped ? null : this.monitor.crossCheck(this.clientTokens);
    if (crossCheck !== null) this.writer.setTokenCrossCheck(crossCheck.counts);
    if (crossCheck?.warning) {
      this.log('warn', crossCheck.warning);
      this.writer.addWarning(crossCheck.warning);
    }
    const [status, reason] = this.outcome();
    const doc = this.writer.finish(status, reason, this.monitor.take());
    this.emit({ type: 'run-end', status, reason, resultPath: this.options.resultPath ?? null });
    return doc;
  }

  /** Ends a run the engine itself failed (the file cannot be written, ...): the file says why, as far as it can be written. */
  async fail(error: unknown): Promise<void> {
    const engineError = `The engine stopped with an error: ${error instanceof Error ? error.message : String(error)}`;
    // A run that had already failed (the client out of file descriptors, say, which can also stop
    // the writer) stays failed for that reason: it is no partial measurement.
    const [status, reason]: ['failed' | 'partial', string] = this.failure ? ['failed', `${this.failure} ${engineError}`] : ['partial', engineError];
    await this.monitor.stop(false);
    try {
      this.writer.finish(status, reason);
    } catch {
      // The file may be what failed; the original error is the one worth reporting.
      this.writer.abandon();
    }
    this.emit({ type: 'run-end', status, reason, resultPath: this.options.resultPath ?? null });
  }

  private outcome(): [Exclude<RunStatus, 'running'>, string | null] {
    if (this.hopeless !== null) return ['failed', this.hopelessReason(this.hopeless)];
    if (this.failure) return ['failed', this.failure];
    // Every step has ended by now: their summaries count the run's measured requests.
    const summaries = this.writer.document.steps.flatMap((step) => (step.summary ? [step.summary] : []));
    const measured = summaries.reduce((n, s) => n + s.requests.total, 0);
    const failed = summaries.reduce((n, s) => n + s.requests.failed, 0);
    const userCancelled = this.options.signal?.aborted === true;
    if (measured > 0 && failed === measured) {
      const kinds = new Map<string, number>();
      // `errors` also counts requests the run cancelled, which are not measured.
      for (const s of summaries) for (const [kind, n] of Object.entries(s.errors)) if (kind !== 'cancelled') kinds.set(kind, (kinds.get(kind) ?? 0) + n);
      const summary = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(', ');
      return ['failed', `Every measured request failed (${summary}); the first: ${this.firstMeasuredError ?? ''}`];
    }
    if (userCancelled) return ['partial', 'Cancelled before the run finished; every request measured until then is kept.'];
    if (measured === 0) return ['failed', 'No measured request finished within the step limits (all were warm-up or cut off).'];
    return ['complete', null];
  }

  /**
   * The verdict of a run stopped because its first requests could not be served, with the one count
   * the step tables show (measured requests), the warm-up ones named apart.
   */
  private hopelessReason(hopeless: string): string {
    const measured = this.writer.document.steps.reduce((n, step) => n + (step.summary?.requests.failed ?? 0), 0);
    const warm = this.warmupFailures;
    const plural = (n: number, word: string) => `${n} ${word} request${n === 1 ? '' : 's'}`;
    const counted = measured > 0 ? `${plural(measured, 'measured')} failed${warm > 0 ? ` (after ${plural(warm, 'warm-up')}, not counted in the table)` : ''}` : `${plural(warm, 'warm-up')} failed before any was measured`;
    return `${counted} at ${redactUrl(this.config.endpoint.baseUrl)}: ${hopeless}. The run was stopped rather than send more.`;
  }

  /** Notes the run-level verdict a record gives: the first requests all hopeless end the run. */
  private judgeEndpoint(record: RequestRecord): void {
    if (this.endpointUsable || record.error?.kind === 'cancelled') return;
    const hopeless = hopelessFailure(record);
    if (hopeless === null) {
      this.endpointUsable = true;
      return;
    }
    this.hopelessCount++;
    if (this.hopelessCount >= FAIL_FAST_AFTER && this.failure === null) {
      this.hopeless = hopeless;
      // Said without a count: requests in flight may still fail before the stop reaches them. The
      // run's verdict counts them once every step has ended, as its table does.
      this.failure = `Requests to ${redactUrl(this.config.endpoint.baseUrl)} fail from the start: ${hopeless}. The run was stopped rather than send more.`;
      this.log('error', this.failure);
      this.cancel();
    }
  }

  /** A request this machine could not send ends the run: what it measured would be the client's limit, not the server. */
  private judgeClient(record: RequestRecord): void {
    if (record.error?.kind !== 'client' || this.failure !== null) return;
    this.failure = `The client failed, not the server: ${record.error.message} The run was stopped: its figures would measure this machine.`;
    this.log('error', this.failure);
    this.cancel();
  }
}

/**
 * One step's gathering, over all its executors: their signals (stop, drain), a sink for each,
 * progress summed over them, the step's timers (its duration, progress events) and its end.
 */
export class StepGather {
  private readonly stopStep = new AbortController();
  private readonly drainStep = new AbortController();
  private readonly followRun = (): void => this.stopStep.abort();
  private progress: StepProgress | null = null;
  private startMs = 0;
  private durationTimer: NodeJS.Timeout | undefined;
  private progressTimer: NodeJS.Timeout | undefined;
  /** Set when the duration ended with no rate measured: nothing more is sent, what is in flight finishes. */
  private overrun: string | null = null;

  constructor(
    private readonly run: RunGather,
    private readonly step: StepPlan,
    readonly stepIndex: number,
    private readonly repeat: number | undefined,
    private readonly executors: number,
  ) {
    run.stop.addEventListener('abort', this.followRun, { once: true });
    if (run.stopped) this.stopStep.abort();
  }

  /** What every executor of the step watches: `stop` ends the step and cancels what is in flight, `drain` ends its sending. */
  get signals(): StepSignals {
    return { stop: this.stopStep.signal, drain: this.drainStep.signal };
  }

  /** Ends the step: nothing more is sent, what is in flight is cancelled. */
  stopNow(): void {
    this.stopStep.abort();
  }

  /** The step's executors start at `startMs` (performance.now()): the step-start event and its timers. */
  start(startMs: number): void {
    const { step, run } = this;
    this.startMs = startMs;
    const warmup = stepWarmup(step);
    const progress = new StepProgress(this.stepIndex, startMs, step.requests === null ? null : step.requests - warmup, step.durationSec, warmup, this.executors);
    this.progress = progress;
    run.emit({ type: 'step-start', stepIndex: this.stepIndex, name: step.name, profile: step.profile, startMs: run.onRunClock(startMs), ...(this.repeat !== undefined ? { repeat: this.repeat } : {}) });
    const durationSec = step.durationSec;
    if (durationSec !== null) {
      const firstRound = stepConnections(step);
      this.durationTimer = setTimeout(() => {
        const ended = progress.ended;
        if (step.needsRate && ended < firstRound && progress.inFlight > 0) {
          this.overrun = `${ended} requests had ended at the ${durationSec} s duration, fewer than the ${firstRound} in flight at once: too few to measure a rate beyond the ramp-up. The step sent no more requests and ran until the ${progress.inFlight} in flight finished.`;
          run.log('warn', `${step.name}: ${this.overrun}`);
          this.drainStep.abort();
          return;
        }
        if (progress.inFlight > 0) {
          run.log('info', `${step.name}: duration of ${durationSec} s reached; ${progress.inFlight} requests in flight are cancelled.`);
        }
        this.stopStep.abort();
      }, durationSec * 1000);
    }
    this.progressTimer = setInterval(() => run.emit({ type: 'progress', snapshot: progress.snapshot() }), PROGRESS_INTERVAL_MS);
    this.progressTimer.unref();
  }

  /** Where executor `executor` sends its records and in-flight counts. A record that cannot be written throws. */
  sinkFor(executor: number): ExecutorSink {
    const progress = this.progress;
    if (progress === null) throw new Error('A step takes records once it has started.');
    const { run, step } = this;
    const maxErrors = run.maxErrors;
    return {
      inFlight: (count) => progress.setInFlight(executor, count),
      record: (raw) => {
        const r = run.addRecord(raw);
        progress.add(r);
        if (maxErrors !== undefined && r.error !== null && r.error.kind !== 'cancelled' && progress.failed + progress.warmupFailed === maxErrors) {
          run.log('warn', `${step.name}: ${maxErrors} requests failed (maxErrors); the step ends early.`);
          this.stopStep.abort();
        }
      },
    };
  }

  /** Every executor has returned: the timers stop and the step no longer follows the run's stop. */
  settled(): void {
    clearTimeout(this.durationTimer);
    clearInterval(this.progressTimer);
    this.run.stop.removeEventListener('abort', this.followRun);
  }

  /** The step's last progress, its summary in the file and its step-end event. */
  end(): StepSummary {
    if (this.progress !== null) this.run.emit({ type: 'progress', snapshot: this.progress.snapshot() });
    return this.run.endStep(this.stepIndex, this.step.name, this.overrun, this.startMs);
  }
}
