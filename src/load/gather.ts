/**
 * Gathering a run: the records of every executor of a step go through here into the one writer,
 * with progress summed over the executors, each step summarized (exact percentiles from the raw
 * records, src/results/), the run judged (an endpoint that cannot serve it, a client that failed,
 * maxErrors, a duration that ended before a rate could be measured, the outcome and the token
 * cross-check) and its events emitted. One per run, in the thread that owns the result file; it
 * knows nothing of how executors pace their requests (execute.ts) or where they run.
 */
import { performance } from 'node:perf_hooks';
import { endpointsOf, redactSecrets, redactUrl, runSecrets, STEP_END_DEFAULTS, type RunConfig } from '../format/config';
import type { PlannedStep, ProgressSnapshot, RunEvent } from '../format/events';
import { reasoningCountNotes } from '../format/metrics';
import { STEP_WARNING_KINDS, type CacheReset, type ClientLoad, type FailoverEvent, type LoadFigures, type RequestRecord, type ResultDocument, type RunStatus, type Step, type StepSummary, type StepWarning, type ThreadLoad, type WorkersInfo } from '../format/result';
import { fillPlaceholders, HOPELESS_TEXT, MAX_ERRORS_TEXT, STATUS_REASON_TEXT } from '../format/warning-text';
import { RunMonitor, type ClientOutputTokens, type ServerLoad } from '../observe/monitor';
import { outputTokensBound } from '../workload/sources';
import { isMeasured } from '../results/stats';
import { ResultWriter } from '../results/writer';
import { clientBoundWarnings } from './client-bound';
import type { ExecutorSink, StepSignals } from './execute';
import { errorRateStop, sampleIntervalMs, SaturationGuard } from './guards';
import { stepConnections, type RunPlan, type StepPlan } from './plan';
import { SendCounter, traceStepWarnings } from './trace-gather';
import { maxWorkers } from './workers';
import type { RunOptions } from './types';
import { messageOf } from '../format/errors';

/** The run stops when its first requests all fail this way: retrying cannot help. */
const FAIL_FAST_AFTER = 3;
const PROGRESS_INTERVAL_MS = 250;
const PROGRESS_WINDOW_MS = 1000;
const RECENT_VALUES_LIMIT = 100;

const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

/** Errors that say the endpoint cannot serve this run at all, whatever the load. */
function hopelessFailure(r: RequestRecord): string | null {
  const error = r.error;
  if (!error) return null;
  const { why } = HOPELESS_TEXT;
  if (error.kind === 'connect' || error.kind === 'timeout-connect') return fillPlaceholders(why.connect, [error.message]);
  if (error.kind === 'http' && (r.httpStatus === 401 || r.httpStatus === 403)) return fillPlaceholders(why.apiKey, [r.httpStatus, error.message]);
  if (error.kind === 'http' && r.httpStatus === 404) return fillPlaceholders(why.notFound, [error.message]);
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
  private readonly latenessBy: (LoadFigures | null)[];
  private inFlightTotal = 0;
  private readonly recentCompletions: { atMs: number; tokens: number }[] = [];
  private recentTtft: number[] = [];
  private recentLatency: number[] = [];
  /** Sends over the last second, and the send lateness of a trace step so far. */
  readonly sends = new SendCounter();
  private readonly traceStep: boolean;

  constructor(
    private readonly stepIndex: number,
    private readonly stepStartMs: number,
    /** Measured requests planned (warm-up not included); null when a duration alone ends the step. */
    private readonly plannedRequests: number | null,
    private readonly plannedDurationSec: number | null,
    private readonly plannedWarmup: number,
    executors: number,
    traceStep = false,
  ) {
    this.inFlightBy = new Array<number>(executors).fill(0);
    this.latenessBy = new Array<LoadFigures | null>(executors).fill(null);
    this.traceStep = traceStep;
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
    // An executor says its count after each send (one more) and each end (one less).
    if (count > (this.inFlightBy[executor] ?? 0)) this.sends.sent(performance.now());
    this.inFlightTotal += count - (this.inFlightBy[executor] ?? 0);
    this.inFlightBy[executor] = count;
  }

  setLateness(executor: number, recent: LoadFigures | null): void {
    this.latenessBy[executor] = recent;
  }

  add(r: RequestRecord): void {
    if (this.traceStep && r.error?.kind !== 'cancelled') this.sends.late(r.sentMs - r.scheduledMs);
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
      workers: this.inFlightBy.map((inFlight, worker) => ({ worker, inFlight, sendLatenessMs: this.latenessBy[worker] ?? null })),
      ...(this.traceStep ? { sentPerSecond: this.sends.perSecond(now, windowSec), sendLatenessMs: this.sends.lateness() } : {}),
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
  /** Per endpoint (one unless `endpoints`): set once a request got an answer that shows it usable, or its first requests all hopeless. */
  private readonly judged: { usable: boolean; hopeless: number; verdict: string | null }[];
  /** Why the endpoints cannot serve this run, once the first requests to each all said so: "at URL: why". */
  private hopeless: string | null = null;
  /** Warm-up requests that failed: the step tables leave them out, the verdict names them apart. */
  private warmupFailures = 0;
  private failure: string | null = null;
  /** Why the run lost a worker, if it did. */
  private lost: string | null = null;
  /** The first measured request's failure, for the verdict of a run where every one failed. */
  private firstMeasuredError: string | null = null;
  /** Output tokens of every request (warm-up and failed ones too: the server generated them), for the cross-check. */
  private readonly clientTokens: ClientOutputTokens = { counted: 0, estimated: { requests: 0, atLeast: 0, atMost: 0 }, failed: 0 };
  /** The most output tokens one request may ask for; null when nothing bounds it. */
  private readonly outputBound: number | null;
  /** Requests cancelled once the server had them: what its abort counter should see. */
  private cancelledOnServer = 0;
  /** Measured responses whose reasoning the server's usage did not count: split here by the estimate, or by the tokenizer. */
  private readonly reasoningCounted = { estimate: 0, tokenizer: 0 };
  /** Echoed back by a server, these would reach the file and the terminal. */
  private readonly secrets: string[];

  constructor(
    readonly config: RunConfig,
    private readonly options: RunOptions,
    private readonly writer: ResultWriter,
    /** The server's metrics and the GPUs, watched on the run's clock. */
    private readonly monitor: RunMonitor,
    /** performance.now() at the origin of the run's clock. */
    private readonly clockOrigin: number,
    /** The workers that send the run's requests. */
    private readonly workers: WorkersInfo,
  ) {
    this.secrets = runSecrets(config, options.apiKeys ?? [options.apiKey]);
    this.outputBound = outputTokensBound(config);
    this.judged = endpointsOf(config).map(() => ({ usable: false, hopeless: 0, verdict: null }));
  }

  /** Says something of the run in its log; a warning is kept in the file's warnings too. */
  note({ level, message }: { level: 'info' | 'warn'; message: string }): void {
    const said = this.redact(message);
    this.log(level, said);
    if (level === 'warn') this.writer.addWarning(said);
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
      workers: this.workers,
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

  /** Something the run noticed that does not fail it: in the log and, once, in the result's warnings. */
  warn(message: string): void {
    const said = this.redact(message);
    this.log('warn', said);
    this.writer.addWarning(said);
  }

  /**
   * Opens a step in the file; its executors start once `StepGather.start` has said when. `idle`: the
   * server's state at its start and the wait for it (cooldown.ts), a busy server's warning included;
   * `cacheReset`: whether the server's cache was emptied first.
   */
  beginStep(
    step: StepPlan,
    repeat: number | undefined,
    executors: number,
    idle?: { startedOn: Step['startedOn']; warning: StepWarning | null },
    cacheReset?: CacheReset,
  ): StepGather {
    const stepIndex = this.writer.document.steps.length;
    this.writer.startStep(step.name, step.profile, repeat, idle?.startedOn, cacheReset);
    if (idle?.warning) this.log('warn', `${step.name}: ${idle.warning.message}`);
    return new StepGather(this, step, stepIndex, repeat, executors, idle?.warning ? [idle.warning] : []);
  }

  /** The run's limits (stop guards, drain). */
  get limits(): RunConfig['limits'] {
    return this.config.limits;
  }

  /** The server's running and waiting requests at the latest scrape (null when they cannot be read). */
  get serverLoad(): ServerLoad | null {
    return this.monitor.latestLoad;
  }

  /** Scrapes the server's running and waiting requests now (null when they cannot be read). */
  readServerLoad(): Promise<ServerLoad | null> {
    return this.monitor.readLoad();
  }

  /** Stops the run for a reason that fails it (a stop guard whose scope is the run). */
  stopRunFor(reason: string): void {
    if (this.failure !== null) return;
    this.failure = reason;
    this.log('error', reason);
    this.cancel();
  }

  /** Writes, judges and counts one record of a step, as executor `executor` kept it (execute.ts's keptRecord). */
  addRecord(r: RequestRecord, executor: number): RequestRecord {
    r.worker = executor;
    this.writer.addRecord(r);
    this.countOutput(r);
    // Cancelled once the server had it (answering, or sent and cut by design): what its abort count should see.
    if (r.error?.kind === 'cancelled' && (r.httpStatus !== null || r.cancelAfterMs !== undefined)) this.cancelledOnServer++;
    if (r.warmup && r.error !== null && r.error.kind !== 'cancelled') this.warmupFailures++;
    if (this.firstMeasuredError === null && r.error !== null && isMeasured(r)) this.firstMeasuredError = r.error.message;
    const reasoningSource = r.reasoning?.tokensSource;
    if (r.error === null && isMeasured(r) && (reasoningSource === 'estimate' || reasoningSource === 'tokenizer')) this.reasoningCounted[reasoningSource]++;
    this.judgeEndpoint(r);
    this.judgeClient(r);
    return r;
  }

  /**
   * Closes a step in the file with its summary (what the run saw about it among its warnings), on
   * the run's clock, with what its client went through and whether that made the client the limit
   * (client-bound.ts): a warning of the step's summary like the others.
   */
  endStep(stepIndex: number, name: string, note: string | null, startMs: number, client: ClientLoad | null, warnings: StepWarning[] = [], failovers: FailoverEvent[] = []): StepSummary {
    const summary = this.writer.endStep({
      note,
      startMs: roundMs(startMs - this.clockOrigin),
      endMs: roundMs(performance.now() - this.clockOrigin),
      sampled: this.monitor.take(),
      ...(client !== null ? { client } : {}),
      warnings: [...warnings, ...(client === null ? [] : clientBoundWarnings(client, maxWorkers(), this.options.shard !== undefined && this.options.shard.shards > 1 ? 'shard' : 'worker'))],
      failovers,
    });
    // What the records and the client's threads show (too short, client-bound) is said here; the run's own warnings were said when they happened.
    for (const warning of summary.warnings ?? []) if (!warnings.includes(warning)) this.log('warn', `${name}: ${warning.message}`);
    this.emit({ type: 'step-end', stepIndex, name, summary, ...(client !== null ? { client } : {}) });
    return summary;
  }

  /**
   * A worker was lost mid-step (its thread crashed or stopped answering): the run stops, its file
   * says why and ends partial, and everything recorded is kept.
   */
  lose(message: string): void {
    if (this.lost !== null) return;
    this.lost = message;
    this.log('error', message);
    this.writer.addWarning(message);
    this.cancel();
  }

  /**
   * Adds a record's output to the client's side of the cross-check. A count the server reported
   * (or the tokenizer made of the whole text) is counted; an estimate (usage off, or a stream cut
   * before its usage came) only bounds what the server generated: at least one token per content
   * chunk received, at most the request's max_tokens.
   */
  private countOutput(r: RequestRecord): void {
    const tokens = this.clientTokens;
    if (r.error !== null && r.error.kind !== 'cancelled') tokens.failed++;
    const estimated = r.outputTokensSource === 'estimate' || r.outputTokensSource === 'chunks';
    if (!estimated) {
      tokens.counted += r.outputTokens ?? 0;
      return;
    }
    tokens.estimated.requests++;
    tokens.estimated.atLeast += r.chunkMs.length > 0 ? r.chunkMs.length : Math.min(1, r.outputTokens ?? 0);
    tokens.estimated.atMost += this.outputBound ?? Infinity;
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
    const aborts = this.stopped ? null : this.monitor.abortCheck(this.cancelledOnServer);
    if (aborts !== null) {
      this.log(aborts.level, aborts.message);
      if (aborts.level === 'warn') this.writer.addWarning(aborts.message);
    }
    // The terminal's table shows mean reasoning tokens; the result view says the same from the records.
    for (const note of reasoningCountNotes(this.reasoningCounted.estimate, 0)) this.log('warn', note);
    for (const note of reasoningCountNotes(0, this.reasoningCounted.tokenizer)) this.log('info', note);
    const [status, reason] = this.outcome();
    const doc = this.writer.finish(status, reason, this.monitor.take());
    this.emit({ type: 'run-end', status, reason, resultPath: this.options.resultPath ?? null });
    return doc;
  }

  /** Ends a run the engine itself failed (the file cannot be written, ...): the file says why, as far as it can be written. */
  async fail(error: unknown): Promise<void> {
    // A run that had already failed (the client out of file descriptors, say, which can also stop
    // the writer) stays failed for that reason: it is no partial measurement.
    const [status, reason]: ['failed' | 'partial', string] = this.failure
      ? ['failed', fillPlaceholders(STATUS_REASON_TEXT.engineStoppedAfter, [this.failure, messageOf(error)])]
      : ['partial', fillPlaceholders(STATUS_REASON_TEXT.engineStopped, [messageOf(error)])];
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
      return ['failed', fillPlaceholders(STATUS_REASON_TEXT.allFailed, [summary, this.firstMeasuredError ?? ''])];
    }
    if (this.lost !== null) return ['partial', this.lost];
    if (userCancelled) return ['partial', STATUS_REASON_TEXT.cancelled];
    if (measured === 0) return ['failed', STATUS_REASON_TEXT.nothingMeasured];
    return ['complete', null];
  }

  /**
   * The verdict of a run stopped because its first requests could not be served, with the one count
   * the step tables show (measured requests), the warm-up ones named apart.
   */
  private hopelessReason(hopeless: string): string {
    const measured = this.writer.document.steps.reduce((n, step) => n + (step.summary?.requests.failed ?? 0), 0);
    const warm = this.warmupFailures;
    const { stopped, requests } = HOPELESS_TEXT;
    const measuredRequests = fillPlaceholders(measured === 1 ? requests.measuredOne : requests.measured, [measured]);
    const warmRequests = fillPlaceholders(warm === 1 ? requests.warmUpOne : requests.warmUp, [warm]);
    if (measured === 0) return fillPlaceholders(stopped.warmUpOnly, [warmRequests, hopeless]);
    return warm > 0 ? fillPlaceholders(stopped.afterWarmUp, [measuredRequests, warmRequests, hopeless]) : fillPlaceholders(stopped.measured, [measuredRequests, hopeless]);
  }

  /**
   * Notes the verdict a record gives on its endpoint: an endpoint whose first requests all fail
   * hopelessly cannot serve the run. The run ends when every endpoint is so; while another serves,
   * it goes on, saying which endpoint failed (its requests fail, or go elsewhere with failover).
   */
  private judgeEndpoint(record: RequestRecord): void {
    const index = record.endpoint ?? 0;
    const judged = this.judged[index];
    if (judged === undefined || judged.usable || judged.verdict !== null || record.error?.kind === 'cancelled') return;
    const hopeless = hopelessFailure(record);
    if (hopeless === null) {
      judged.usable = true;
      return;
    }
    judged.hopeless++;
    if (judged.hopeless < FAIL_FAST_AFTER) return;
    const url = redactUrl(endpointsOf(this.config)[index]?.baseUrl ?? this.config.endpoint.baseUrl);
    // Said without a count: requests in flight may still fail before the stop reaches them. The
    // run's verdict counts them once every step has ended, as its table does.
    judged.verdict = fillPlaceholders(HOPELESS_TEXT.verdict, [url, hopeless]);
    if (this.judged.some((j) => j.verdict === null)) {
      this.note({
        level: 'warn',
        message: fillPlaceholders(this.config.failover ? HOPELESS_TEXT.goesOn.failover : HOPELESS_TEXT.goesOn.share, [url, hopeless]),
      });
      return;
    }
    if (this.failure !== null) return;
    this.hopeless = this.judged.map((j) => j.verdict!).reduce((joined, verdict) => fillPlaceholders(HOPELESS_TEXT.joined, [joined, verdict]));
    this.failure = `Requests fail from the start ${this.hopeless}. The run was stopped rather than send more.`;
    this.log('error', this.failure);
    this.cancel();
  }

  /** A request this machine could not send ends the run: what it measured would be the client's limit, not the server. */
  private judgeClient(record: RequestRecord): void {
    if (record.error?.kind !== 'client' || this.failure !== null) return;
    this.failure = fillPlaceholders(STATUS_REASON_TEXT.clientFailed, [record.error.message]);
    this.log('error', this.failure);
    this.cancel();
  }
}

/**
 * The step's first completions, whose median latency says when it has filled up (the
 * over-saturation guard's start). The first ones, not the latest: past the knee the latest grow
 * with the queue, and a start that moved with them would never come.
 */
const FIRST_LATENCIES = 32;

/**
 * One step's gathering, over all its executors: their signals (stop, drain), a sink for each,
 * progress summed over them, the step's timers (its duration and drain, progress events, the stop
 * guards) and its end.
 */
export class StepGather {
  private readonly stopStep = new AbortController();
  private readonly drainStep = new AbortController();
  private readonly followRun = (): void => this.stopStep.abort();
  private progress: StepProgress | null = null;
  private startMs = 0;
  private durationTimer: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private progressTimer: NodeJS.Timeout | undefined;
  private guardTimer: NodeJS.Timeout | undefined;
  /** Set when the duration ended with no rate measured: nothing more is sent, what is in flight finishes. */
  private overrun: string | null = null;
  /** What failover did during the step. */
  private readonly failovers: FailoverEvent[] = [];
  /** Trace steps: requests whose prompt was built after their send time. */
  private promptsLate = 0;
  /** The step's warnings so far: a busy server at its start, the stop that ended it. */
  private readonly warnings: StepWarning[];
  /** The stop guard (or maxErrors) that ended the step early, if one did. */
  stoppedBy: StepWarning | null = null;
  /** Records of the step, of every kind: the backlog is what is due and not among them. */
  private recordsEnded = 0;
  private firstCompletionSec = Infinity;
  private readonly firstLatenciesMs: number[] = [];

  constructor(
    private readonly run: RunGather,
    private readonly step: StepPlan,
    readonly stepIndex: number,
    private readonly repeat: number | undefined,
    private readonly executors: number,
    warnings: StepWarning[] = [],
  ) {
    this.warnings = [...warnings];
    run.stop.addEventListener('abort', this.followRun, { once: true });
    if (run.stopped) this.stopStep.abort();
  }

  get name(): string {
    return this.step.name;
  }

  /** What every executor of the step watches: `stop` ends the step and cancels what is in flight, `drain` ends its sending. */
  get signals(): StepSignals {
    return { stop: this.stopStep.signal, drain: this.drainStep.signal };
  }

  /** Ends the step: nothing more is sent, what is in flight is cancelled. */
  stopNow(): void {
    this.stopStep.abort();
  }

  /** The step's executors start at `startMs` (performance.now(), now or a moment later): the step-start event and its timers. */
  start(startMs: number): void {
    const { step, run } = this;
    this.startMs = startMs;
    const warmup = stepWarmup(step);
    const progress = new StepProgress(this.stepIndex, startMs, step.requests === null ? null : step.requests - warmup, step.durationSec, warmup, this.executors, step.pacing.kind === 'trace');
    this.progress = progress;
    run.emit({ type: 'step-start', stepIndex: this.stepIndex, name: step.name, profile: step.profile, startMs: run.onRunClock(startMs), ...(this.repeat !== undefined ? { repeat: this.repeat } : {}) });
    const durationSec = step.durationSec;
    // The executors start at startMs, which may be a moment after now: the duration counts from it.
    if (durationSec !== null) this.durationTimer = setTimeout(() => this.durationReached(progress, durationSec), Math.max(0, startMs + durationSec * 1000 - performance.now()));
    this.progressTimer = setInterval(() => run.emit({ type: 'progress', snapshot: progress.snapshot() }), PROGRESS_INTERVAL_MS);
    this.progressTimer.unref();
    this.startSaturationGuard();
  }

  /**
   * The duration ran out. A rate-measuring step whose first round has not ended sends no more and
   * lets its requests finish (gather's overrun note); any other step stops sending and lets what is
   * in flight finish for up to `drainSec` (their latencies count; their completions fall after the
   * steady window, so not in its rates), then cancels what is left.
   */
  private durationReached(progress: StepProgress, durationSec: number): void {
    const { step, run } = this;
    const ended = progress.ended;
    const firstRound = stepConnections(step);
    if (step.needsRate && ended < firstRound && progress.inFlight > 0) {
      this.overrun = `${ended} requests had ended at the ${durationSec} s duration, fewer than the ${firstRound} in flight at once: too few to measure a rate beyond the ramp-up. The step sent no more requests and ran until the ${progress.inFlight} in flight finished.`;
      run.log('warn', `${step.name}: ${this.overrun}`);
      this.drainStep.abort();
      return;
    }
    const drainSec = run.limits.drainSec ?? STEP_END_DEFAULTS.drainSec;
    if (progress.inFlight === 0 || drainSec <= 0) {
      if (progress.inFlight > 0) run.log('info', `${step.name}: duration of ${durationSec} s reached; ${progress.inFlight} requests in flight are cancelled (--drain-sec 0).`);
      this.stopStep.abort();
      return;
    }
    run.log('info', `${step.name}: duration of ${durationSec} s reached; sending stopped, the ${progress.inFlight} requests in flight may finish within ${drainSec} s (--drain-sec).`);
    this.drainStep.abort();
    this.drainTimer = setTimeout(() => {
      if (progress.inFlight > 0) run.log('info', `${step.name}: the ${drainSec} s drain ended; ${progress.inFlight} requests still in flight are cancelled.`);
      this.stopStep.abort();
    }, drainSec * 1000);
  }

  /**
   * The over-saturation guard (guards.ts) of an open-loop step: its schedule says what is due, its
   * records what has ended, the server's latest scrape what waits there.
   */
  private startSaturationGuard(): void {
    const { step, run } = this;
    const pacing = step.pacing;
    if (pacing.kind !== 'open' || step.sessions || run.limits.saturationStop === false) return;
    const schedule = pacing.schedule;
    const limit = Math.min(schedule.length, step.requests ?? Infinity);
    /** Requests due by tSec: the schedule is ascending. */
    const dueBy = (tSec: number): number => {
      let low = 0;
      let high = limit;
      while (low < high) {
        const middle = (low + high) >> 1;
        if ((schedule[middle] as number) <= tSec) low = middle + 1;
        else high = middle;
      }
      return low;
    };
    const windowSec = run.limits.saturationWindowSec ?? STEP_END_DEFAULTS.saturationWindowSec;
    const guard = new SaturationGuard({ windowSec, dueBetween: (from, to) => dueBy(to) - dueBy(Math.max(0, from)) });
    const stepOnRunClock = run.onRunClock(this.startMs);
    this.guardTimer = setInterval(() => {
      if (this.stopStep.signal.aborted || this.drainStep.signal.aborted) return;
      const nowSec = (performance.now() - this.startMs) / 1000;
      guard.addBacklog(nowSec, dueBy(nowSec) - this.recordsEnded);
      const load = run.serverLoad;
      if (load !== null && load.tMs >= stepOnRunClock) guard.addWaiting((load.tMs - stepOnRunClock) / 1000, load.waiting);
      const verdict = guard.check(nowSec, Math.max(this.firstCompletionSec, (2 * medianOf(this.firstLatenciesMs)) / 1000));
      if (verdict) this.stopFor(verdict);
    }, sampleIntervalMs(windowSec));
    this.guardTimer.unref();
  }

  /** A guard ends the step: said in the log and kept with the step; what is in flight is cancelled. */
  private stopFor(warning: StepWarning): void {
    if (this.stoppedBy !== null) return;
    this.stoppedBy = warning;
    this.warnings.push(warning);
    this.run.log('warn', `${this.step.name}: ${warning.message}`);
    this.stopStep.abort();
  }

  /** Notes what the guards read of a record: its end, and a success's latency. */
  private noteEnded(r: RequestRecord): void {
    this.recordsEnded++;
    if (r.error !== null || r.endMs === null) return;
    this.firstCompletionSec = Math.min(this.firstCompletionSec, r.endMs / 1000);
    if (this.firstLatenciesMs.length < FIRST_LATENCIES) this.firstLatenciesMs.push(r.endMs - r.sentMs);
  }

  /** Where executor `executor` sends its records and in-flight counts. A record that cannot be written throws. */
  sinkFor(executor: number): ExecutorSink {
    const progress = this.progress;
    if (progress === null) throw new Error('A step takes records once it has started.');
    const { run } = this;
    const limits = run.limits;
    return {
      inFlight: (count) => progress.setInFlight(executor, count),
      lateness: (recent) => progress.setLateness(executor, recent),
      record: (kept) => {
        const r = run.addRecord(kept, executor);
        progress.add(r);
        if (r.trace?.promptLate) this.promptsLate++;
        this.noteEnded(r);
        if (r.error === null || r.error.kind === 'cancelled') return;
        if (limits.maxErrors !== undefined && progress.failed + progress.warmupFailed === limits.maxErrors) {
          this.stopFor({
            kind: STEP_WARNING_KINDS.maxErrors,
            message: fillPlaceholders(MAX_ERRORS_TEXT, [limits.maxErrors, limits.maxErrors]),
            figures: { failed: limits.maxErrors, maxErrors: limits.maxErrors },
          });
        }
        if (limits.maxErrorRate !== undefined && this.stoppedBy === null) {
          const scope = limits.maxErrorRateScope ?? 'step';
          const stop = errorRateStop(progress.failed, progress.completed + progress.failed, limits.maxErrorRate, limits.maxErrorRateMin ?? STEP_END_DEFAULTS.maxErrorRateMin, scope);
          if (stop) {
            this.stopFor(stop);
            if (scope === 'run') run.stopRunFor(`${this.step.name}: ${stop.message}`);
          }
        }
      },
      failover: (event) => {
        const url = redactUrl(endpointsOf(run.config)[event.endpoint]?.baseUrl ?? '');
        const said = { ...event, reason: run.redact(event.reason) };
        this.failovers.push(said);
        run.log('warn', `${this.step.name}: endpoint ${event.endpoint} (${url}) ${event.event === 'out' ? 'is out' : 'is back'} at ${(event.atMs / 1000).toFixed(1)} s: ${said.reason}.`);
      },
    };
  }

  /** Adds to what the step's record says about how it ran (its note), and says it in the log. */
  addNote(text: string): void {
    this.overrun = this.overrun === null ? text : `${this.overrun} ${text}`;
    this.run.log('warn', `${this.step.name}: ${text}`);
  }

  /** Every executor has returned: the timers stop and the step no longer follows the run's stop. */
  settled(): void {
    clearTimeout(this.durationTimer);
    clearTimeout(this.drainTimer);
    clearInterval(this.progressTimer);
    clearInterval(this.guardTimer);
    this.run.stop.removeEventListener('abort', this.followRun);
  }

  /**
   * The step's last progress, its summary in the file (with its warnings) and its step-end event.
   * `loads`: what each executor that had a share of the step went through, with how late it began
   * after the common start instant (ms); none when no executor finished its share.
   */
  end(loads: readonly { executor: number; load: ThreadLoad; startLateMs: number }[] = []): StepSummary {
    if (this.progress !== null) this.run.emit({ type: 'progress', snapshot: this.progress.snapshot() });
    const starts = loads.map((l) => l.startLateMs);
    const client: ClientLoad | null =
      loads.length === 0
        ? null
        : {
            workers: this.executors,
            threads: loads.map(({ executor, load }) => ({ worker: executor, ...load })),
            startSkewMs: loads.length > 1 ? Math.max(...starts) - Math.min(...starts) : null,
          };
    const summary = this.run.endStep(this.stepIndex, this.step.name, this.overrun, this.startMs, client, this.warnings, this.failovers);
    if (this.step.pacing.kind === 'trace') for (const message of traceStepWarnings(this.step.name, summary, this.promptsLate)) this.run.note({ level: 'warn', message });
    return summary;
  }
}

/** The median of some values (0 for none). */
function medianOf(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
