/**
 * Runs a benchmark: turns the configured profile into steps, drives each step's load (closed
 * loop or an absolute arrival schedule), records every request as it completes, summarizes each
 * step and reports events as it goes. The client measures single requests; this file decides
 * when they go out and when a step or the run ends.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { knownSecrets, redactHeaders, redactSecrets, redactUrl, RunConfigSchema, stepRequests, sweepRates, canonicalLabels, type Arrival, type Labels, type RampConfig, type RunConfig } from '../format/config';
import type { PlannedStep, ProgressSnapshot, RunEvent } from '../format/events';
import {
  describeZodError,
  SCHEMA_VERSION,
  type RequestRecord,
  type ResultDocument,
  type RunStatus,
  type StepProfile,
  type StepSummary,
} from '../format/result';
import packageJson from '../../package.json';
import { onThisHost } from '../processes/alive';
import { createDispatcher, sendRequest } from './client';
import { BadInputError } from '../format/errors';
import { checkFileDescriptors } from './fd-limit';
import { RunMonitor } from '../observe/monitor';
import { probeEngineLabels } from '../observe/probe';
import { absoluteSchedule, arrivalSchedule, rampTargets, waitUntil, type ArrivalSchedule } from './schedule';
import { isMeasured } from '../results/stats';
import { sessionDriver } from './sessions';
import { stepName } from '../format/step-name';
import { Conversation } from '../workload/conversation';
import { createTokenCounter } from '../workload/tokenizer';
import type { PreparedRequest, SessionPlan, TokenCounter, Workload } from '../workload/types';
import type { ClientContext, RunBenchmark, RunOptions } from './types';
import { createWorkload } from '../workload/sources';
import { ResultWriter } from '../results/writer';

/** Concurrency of a throughput step (and of a sweep's rate steps) when none is configured. */
export const DEFAULT_THROUGHPUT_CONCURRENCY = 256;
/** Connections allowed to an open-loop step without a concurrency cap. */
export const UNCAPPED_CONNECTION_LIMIT = 1024;
/** The run stops when its first requests all fail this way: retrying cannot help. */
const FAIL_FAST_AFTER = 3;
const PROGRESS_INTERVAL_MS = 250;
const PROGRESS_WINDOW_MS = 1000;
const RECENT_VALUES_LIMIT = 100;
/** Lanes of a closed-loop step started before yielding to the event loop: each prepares its first prompt. */
const LANE_START_BATCH = 256;

/** How a step's requests are released. */
type Pacing =
  /** `concurrency` lanes, each sending its next request when the previous one ends. */
  | { kind: 'closed'; concurrency: number; readyAtStart: boolean; /** Warm-up and measured requests, Infinity when a duration alone ends the step. */ sends: number }
  /** Requests sent at absolute times, optionally capped at `maxConcurrency` in flight. */
  | { kind: 'open'; schedule: ArrivalSchedule; maxConcurrency: number | undefined };

interface StepPlan {
  name: string;
  profile: StepProfile;
  pacing: Pacing;
  /**
   * The step must measure a request rate (a sweep places its rates from it). Until every request
   * of the first round (one per concurrent slot) has ended, the rate is the ramp-up's, with the
   * quickest requests over-represented: if the duration ends before that, the step stops sending
   * and lets the requests in flight finish.
   */
  needsRate?: boolean;
}

function parseConfig(input: RunConfig): RunConfig {
  const parsed = RunConfigSchema.safeParse(input);
  if (!parsed.success) throw new BadInputError(`Invalid run configuration: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

/**
 * Requests a step sends: warm-up plus its measured requests (`stepRequests`: a concurrency step's
 * sized from its concurrency when the limits ask), or unbounded when only a duration limits it.
 */
function plannedSends(config: RunConfig, concurrency?: number): number {
  const measured = stepRequests(config.limits, concurrency);
  return measured === null ? Infinity : config.limits.warmup + measured;
}

interface RateStep {
  name: string;
  rate: number;
  arrival: Arrival;
  burstiness: number;
  maxConcurrency: number | undefined;
  /** Added to the run's seed so that each rate step draws its own gaps. */
  seedOffset: number;
}

/** An open-loop step: as many requests as the limits allow, on a precomputed schedule. */
function ratePlan(config: RunConfig, { name, rate, arrival, burstiness, maxConcurrency, seedOffset }: RateStep): StepPlan {
  const { durationSec, warmup } = config.limits;
  const byDuration = durationSec === undefined ? Infinity : warmup + Math.ceil(rate * durationSec);
  const count = Math.min(plannedSends(config), byDuration);
  const schedule = arrivalSchedule({ count, rate, arrival, burstiness, seed: config.seed + seedOffset });
  return {
    name,
    profile: {
      kind: 'rate',
      rate,
      arrival,
      ...(arrival === 'gamma' ? { burstiness } : {}),
      ...(maxConcurrency !== undefined ? { concurrency: maxConcurrency } : {}),
    },
    pacing: { kind: 'open', schedule, maxConcurrency },
  };
}

/** An open-loop step whose target rate moves from the ramp's start to its end over the step's requests. */
function rampPlan(config: RunConfig, ramp: RampConfig, arrival: Arrival, burstiness: number, maxConcurrency: number | undefined): StepPlan {
  const { strategy, startRate, endRate } = ramp;
  const count = plannedSends(config);
  const schedule = arrivalSchedule({ count, rate: ramp, arrival, burstiness, seed: config.seed });
  const targetRates = rampTargets(schedule, ramp).map((p) => ({ atSec: roundMs(p.atSec), rate: roundMs(p.rate) }));
  const profile: StepProfile = {
    kind: 'rate',
    arrival,
    ...(arrival === 'gamma' ? { burstiness } : {}),
    ...(maxConcurrency !== undefined ? { concurrency: maxConcurrency } : {}),
    ramp: { strategy, startRate, endRate, targetRates },
  };
  return { name: stepName(profile, arrival), profile, pacing: { kind: 'open', schedule, maxConcurrency } };
}

function throughputPlan(maxConcurrency: number | undefined, sends: number): StepPlan {
  const concurrency = maxConcurrency ?? DEFAULT_THROUGHPUT_CONCURRENCY;
  return { name: 'throughput', profile: { kind: 'throughput', concurrency }, pacing: { kind: 'closed', concurrency, readyAtStart: true, sends } };
}

const synchronousPlan = (sends: number): StepPlan => ({
  name: 'synchronous',
  profile: { kind: 'synchronous', concurrency: 1 },
  pacing: { kind: 'closed', concurrency: 1, readyAtStart: false, sends },
});

/** The steps known before the run starts; a sweep adds its rate steps after measuring. */
function initialPlans(config: RunConfig): StepPlan[] {
  const profile = config.profile;
  switch (profile.kind) {
    case 'synchronous':
      return [synchronousPlan(plannedSends(config))];
    case 'concurrency':
      return profile.levels.map((concurrency) => ({
        name: stepName({ kind: 'concurrency', concurrency }),
        profile: { kind: 'concurrency', concurrency },
        pacing: { kind: 'closed', concurrency, readyAtStart: false, sends: plannedSends(config, concurrency) },
      }));
    case 'rate':
      if (profile.ramp !== undefined) return [rampPlan(config, profile.ramp, profile.arrival, profile.burstiness, profile.maxConcurrency)];
      return (profile.rates ?? []).map((rate, i) =>
        ratePlan(config, {
          name: stepName({ kind: 'rate', rate }, profile.arrival),
          rate,
          arrival: profile.arrival,
          burstiness: profile.burstiness,
          maxConcurrency: profile.maxConcurrency,
          seedOffset: i,
        }),
      );
    case 'schedule': {
      const all = absoluteSchedule(profile.times);
      const schedule = all.subarray(0, Math.min(all.length, plannedSends(config)));
      return [
        {
          name: 'schedule',
          profile: { kind: 'schedule', ...(profile.maxConcurrency !== undefined ? { concurrency: profile.maxConcurrency } : {}) },
          pacing: { kind: 'open', schedule, maxConcurrency: profile.maxConcurrency },
        },
      ];
    }
    case 'throughput':
      return [throughputPlan(profile.maxConcurrency, plannedSends(config))];
    case 'sweep':
      return [synchronousPlan(plannedSends(config)), throughputPlan(undefined, plannedSends(config))].map((plan) => ({ ...plan, needsRate: true }));
  }
}

/** Steps the run will run unless it is cut short: its initial plans and a sweep's rate steps, once per repeat. */
function plannedStepCount(config: RunConfig, plans: readonly StepPlan[]): number {
  const sweepSteps = config.profile.kind === 'sweep' ? config.profile.rateCount : 0;
  return (plans.length + sweepSteps) * (config.repeat?.count ?? 1);
}

/** A step as the run-start event announces it: its measured requests, warm-up and duration limit. */
function plannedStep(config: RunConfig, plan: StepPlan): PlannedStep {
  const sends = plan.pacing.kind === 'open' ? plan.pacing.schedule.length : plan.pacing.sends;
  const warmup = Math.min(config.limits.warmup, sends);
  return {
    name: plan.name,
    profile: plan.profile,
    requests: Number.isFinite(sends) && sends - warmup > 0 ? sends - warmup : null,
    warmup,
    durationSec: config.limits.durationSec ?? null,
  };
}

/** Connections a step may hold open at once: its concurrency, or its cap, or the uncapped limit. */
function stepConnections(pacing: Pacing): number {
  if (pacing.kind === 'closed') return Math.min(pacing.concurrency, pacing.sends);
  return Math.min(pacing.maxConcurrency ?? UNCAPPED_CONNECTION_LIMIT, Math.max(pacing.schedule.length, 1));
}

/** The most connections any step of the run may open; a sweep's later rate steps are capped at the throughput concurrency. */
function mostConnections(plans: StepPlan[], config: RunConfig): number {
  const planned = plans.map((plan) => stepConnections(plan.pacing));
  if (config.profile.kind === 'sweep') planned.push(Math.min(DEFAULT_THROUGHPUT_CONCURRENCY, plannedSends(config)));
  return Math.max(...planned);
}

export { sweepRates } from '../format/config';

/** Waiters for a free slot under a concurrency cap. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }
  /** Resolves true with a slot, or false when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = (): void => {
        signal.removeEventListener('abort', giveUp);
        resolve(true);
      };
      const giveUp = (): void => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        resolve(false);
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', giveUp, { once: true });
    });
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

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

/** Errors that say the endpoint cannot serve this run at all, whatever the load. */
function hopelessFailure(r: RequestRecord): string | null {
  const error = r.error;
  if (!error) return null;
  if (error.kind === 'connect' || error.kind === 'timeout-connect') return `could not connect (${error.message})`;
  if (error.kind === 'http' && (r.httpStatus === 401 || r.httpStatus === 403)) return `HTTP ${r.httpStatus}: check the API key (${error.message})`;
  if (error.kind === 'http' && r.httpStatus === 404) return `HTTP 404: check that the base URL ends in /v1 and the model name (${error.message})`;
  return null;
}

/**
 * A step's running counts for progress events: totals, and rates over the last second. Completed and
 * failed count measured requests, as the step's table does; warm-up requests are counted apart.
 */
class StepProgress {
  inFlight = 0;
  completed = 0;
  failed = 0;
  warmupEnded = 0;
  warmupFailed = 0;
  private readonly recentCompletions: { atMs: number; tokens: number }[] = [];
  private recentTtft: number[] = [];
  private recentLatency: number[] = [];

  constructor(
    private readonly stepIndex: number,
    private readonly stepStartMs: number,
    /** Measured requests planned (warm-up not included); Infinity when a duration alone ends the step. */
    private readonly plannedRequests: number,
    private readonly plannedDurationSec: number | undefined,
    private readonly plannedWarmup: number,
  ) {}

  /** Requests that ended, warm-up included. */
  get ended(): number {
    return this.completed + this.failed + this.warmupEnded;
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
      plannedRequests: Number.isFinite(this.plannedRequests) && this.plannedRequests > 0 ? this.plannedRequests : null,
      plannedDurationSec: this.plannedDurationSec ?? null,
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

class BenchmarkRun {
  private readonly cancelled = new AbortController();
  private nextPrompt = 0;
  /** The next session's number: sessions are numbered in order of start across the run. */
  private nextSession = 0;
  /** Set once any request got an answer that shows the endpoint is usable. */
  private endpointUsable = false;
  private hopelessCount = 0;
  /** Why the endpoint cannot serve this run, once the first requests all said so. */
  private hopeless: string | null = null;
  /** Warm-up requests that failed: the step tables leave them out, the verdict names them apart. */
  private warmupFailures = 0;
  private failure: string | null = null;
  /** Echoed back by a server, these would reach the file and the terminal. */
  private readonly secrets: string[];

  constructor(
    private readonly config: RunConfig,
    private readonly options: RunOptions,
    private readonly workload: Workload,
    private readonly tokenCounter: TokenCounter,
    private readonly writer: ResultWriter,
    private readonly plans: StepPlan[],
    /** How the engine label was found (or why not), logged once the run has started. */
    private readonly engineNote: string | null,
    /** The server's metrics and the GPUs, watched on the run's clock. */
    private readonly monitor: RunMonitor,
    /** performance.now() at the origin of the run's clock. */
    private readonly clockOrigin: number,
  ) {
    this.secrets = knownSecrets(config.endpoint, options.apiKey);
  }

  private redact(text: string): string {
    return redactSecrets(text, this.secrets);
  }

  private emit(event: RunEvent): void {
    if (event.type === 'log') this.options.onEvent?.({ ...event, message: this.redact(event.message) });
    else if (event.type === 'run-end' && event.reason !== null) this.options.onEvent?.({ ...event, reason: this.redact(event.reason) });
    else this.options.onEvent?.(event);
  }

  private log(level: 'info' | 'warn' | 'error', message: string): void {
    this.emit({ type: 'log', level, message });
  }

  private get stopped(): boolean {
    return this.cancelled.signal.aborted;
  }

  async execute(): Promise<ResultDocument> {
    const onCancel = (): void => this.cancelled.abort();
    this.options.signal?.addEventListener('abort', onCancel, { once: true });
    if (this.options.signal?.aborted) this.cancelled.abort();
    try {
      const plans = this.plans;
      this.emit({
        type: 'run-start',
        plannedSteps: plans.map((plan) => plannedStep(this.config, plan)),
        stepCount: plannedStepCount(this.config, plans),
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
      if (this.engineNote !== null) this.log('info', this.engineNote);
      if (this.config.endpoint.api === 'chat' && this.tokenCounter.chatNote !== null) this.log('info', this.tokenCounter.chatNote);
      for (const warning of extraBodyWarnings(this.config)) this.log('warn', warning);
      const repeats = this.config.repeat?.count ?? 1;
      // A sweep places its rates once, from the first repeat, so that every repeat runs the same steps.
      let sweepPlans: StepPlan[] | null = null;
      for (let repeat = 0; repeat < repeats && !this.stopped; repeat++) {
        if (repeat > 0) await this.pauseBetweenRepeats(repeat);
        const repeatIndex = this.config.repeat === undefined ? undefined : repeat;
        const summaries: StepSummary[] = [];
        for (const plan of plans) {
          if (this.stopped) break;
          summaries.push(await this.runStep(plan, repeatIndex));
        }
        if (this.config.profile.kind !== 'sweep' || this.stopped) continue;
        sweepPlans ??= this.sweepRatePlans(summaries);
        for (const plan of sweepPlans) {
          if (this.stopped) break;
          await this.runStep(plan, repeatIndex);
        }
      }
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
    } catch (error) {
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
      throw error;
    } finally {
      this.options.signal?.removeEventListener('abort', onCancel);
    }
  }

  /** The pause the run's `repeat.pauseSec` asks for before a repeat; a cancel ends it at once. */
  private async pauseBetweenRepeats(repeat: number): Promise<void> {
    const pauseSec = this.config.repeat?.pauseSec ?? 0;
    this.log('info', `Repeat ${repeat + 1} of ${this.config.repeat?.count ?? 1}${pauseSec > 0 ? ` after a pause of ${pauseSec} s` : ''}.`);
    if (pauseSec > 0) await waitUntil(performance.now() + pauseSec * 1000, this.cancelled.signal);
  }

  /** A sweep's rate steps, placed between its measured synchronous and throughput rates; none when those were not measured. */
  private sweepRatePlans(summaries: StepSummary[]): StepPlan[] {
    const profile = this.config.profile;
    if (profile.kind !== 'sweep') return [];
    const synchronousRate = summaries[0]?.requestsPerSecond ?? null;
    const throughputRate = summaries[1]?.requestsPerSecond ?? null;
    if (!synchronousRate || !throughputRate) {
      this.log('warn', 'The sweep cannot place its rates: the synchronous or throughput step measured no request rate.');
      return [];
    }
    if (throughputRate <= synchronousRate) {
      this.log('warn', `Throughput (${throughputRate.toFixed(2)} req/s) is not above synchronous (${synchronousRate.toFixed(2)} req/s): the server does not gain from concurrency.`);
    }
    const rates = sweepRates(synchronousRate, throughputRate, profile.rateCount);
    this.log('info', `Sweep rates: ${rates.map((r) => r.toFixed(2)).join(', ')} req/s`);
    return rates.map((rate, i) =>
      ratePlan(this.config, {
        name: stepName({ kind: 'rate', rate }),
        rate,
        arrival: profile.arrival,
        burstiness: profile.burstiness,
        maxConcurrency: DEFAULT_THROUGHPUT_CONCURRENCY,
        seedOffset: i,
      }),
    );
  }

  /** The first measured request's failure, for the verdict of a run where every one failed. */
  private firstMeasuredError: string | null = null;
  /** Output tokens of every request (warm-up and failed ones too: the server generated them), for the cross-check. */
  private readonly clientTokens = { outputTokens: 0, estimated: false, failed: 0 };

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
      this.cancelled.abort();
    }
  }

  /** A request this machine could not send ends the run: what it measured would be the client's limit, not the server. */
  private judgeClient(record: RequestRecord): void {
    if (record.error?.kind !== 'client' || this.failure !== null) return;
    this.failure = `The client failed, not the server: ${record.error.message} The run was stopped: its figures would measure this machine.`;
    this.log('error', this.failure);
    this.cancelled.abort();
  }

  private async runStep(plan: StepPlan, repeat: number | undefined): Promise<StepSummary> {
    const config = this.config;
    const stepIndex = this.writer.document.steps.length;
    this.writer.startStep(plan.name, plan.profile, repeat);

    const stepStop = new AbortController();
    const stopStep = (): void => stepStop.abort();
    this.cancelled.signal.addEventListener('abort', stopStep, { once: true });
    if (this.stopped) stepStop.abort();

    const pacing = plan.pacing;
    const sends = pacing.kind === 'open' ? pacing.schedule.length : pacing.sends;
    const connections = stepConnections(pacing);
    const dispatcher: Dispatcher = createDispatcher(connections, config.request);
    const stepStartMs = performance.now();
    this.emit({ type: 'step-start', stepIndex, name: plan.name, profile: plan.profile, startMs: roundMs(stepStartMs - this.clockOrigin), ...(repeat !== undefined ? { repeat } : {}) });
    const context: ClientContext = {
      config,
      apiKey: this.options.apiKey,
      dispatcher,
      signal: stepStop.signal,
      stepStartMs,
      tokenCounter: this.tokenCounter,
    };

    const durationSec = config.limits.durationSec;
    const warmup = Math.min(config.limits.warmup, sends);
    const progress = new StepProgress(stepIndex, stepStartMs, sends - warmup, durationSec, warmup);
    // Set when the duration ended with no rate measured: nothing more is sent, what is in flight finishes.
    let overrun: string | null = null;
    const durationTimer =
      durationSec === undefined
        ? undefined
        : setTimeout(() => {
            const ended = progress.ended;
            if (plan.needsRate && ended < connections && progress.inFlight > 0) {
              overrun = `${ended} requests had ended at the ${durationSec} s duration, fewer than the ${connections} in flight at once: too few to measure a rate beyond the ramp-up. The step sent no more requests and ran until the ${progress.inFlight} in flight finished.`;
              this.log('warn', `${plan.name}: ${overrun}`);
              return;
            }
            if (progress.inFlight > 0) {
              this.log('info', `${plan.name}: duration of ${durationSec} s reached; ${progress.inFlight} requests in flight are cancelled.`);
            }
            stepStop.abort();
          }, durationSec * 1000);
    const progressTimer = setInterval(() => this.emit({ type: 'progress', snapshot: progress.snapshot() }), PROGRESS_INTERVAL_MS);
    progressTimer.unref();

    const maxErrors = config.limits.maxErrors;
    const record = (raw: RequestRecord): void => {
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
      progress.add(r);
      if (maxErrors !== undefined && r.error !== null && r.error.kind !== 'cancelled' && progress.failed + progress.warmupFailed === maxErrors) {
        this.log('warn', `${plan.name}: ${maxErrors} requests failed (maxErrors); the step ends early.`);
        stepStop.abort();
      }
    };

    // A failure of the engine itself (the result file cannot be written, ...) ends the step
    // and is rethrown once every request in flight has settled.
    let engineError: unknown = null;
    /** Resolves true when the request failed (or could not be recorded). */
    const send = async (prepared: PreparedRequest, index: number, scheduledMs: number, turn?: { session: number; turn: number }): Promise<boolean> => {
      progress.inFlight++;
      try {
        const measured = await sendRequest(prepared, { index, warmup: index < config.limits.warmup, scheduledMs }, context);
        record({ ...measured, session: turn?.session ?? null, turn: turn?.turn ?? null });
        return measured.error !== null;
      } catch (error) {
        engineError ??= error;
        stepStop.abort();
        return true;
      } finally {
        progress.inFlight--;
      }
    };

    // Multi-turn runs: turns claim request indexes as single requests do; sessions are numbered across the run.
    let claimedTurns = 0;
    const sessions =
      config.sessions && this.workload.session
        ? sessionDriver(
            config.sessions,
            () => new Conversation(this.nextSession, (this.workload.session as (index: number) => SessionPlan)(this.nextSession++)),
            (prepared, turn) => (claimedTurns < sends ? send(prepared, claimedTurns++, performance.now() - stepStartMs, turn) : Promise.resolve(true)),
            config.endpoint.api === 'chat',
            this.tokenCounter,
            () => yieldToEventLoop(),
          )
        : null;
    const withinBudget = (): boolean => overrun === null && claimedTurns < sends;
    // Every thinking session waits on the step's signal: as many listeners as sessions between turns.
    if (sessions) setMaxListeners(0, stepStop.signal);

    try {
      if (sessions && pacing.kind === 'closed') {
        const laneCount = Math.min(pacing.concurrency, sends);
        await Promise.all(Array.from({ length: laneCount }, () => sessions.lane(withinBudget, stepStop.signal)));
      } else if (sessions && pacing.kind === 'open') {
        const slots = pacing.maxConcurrency === undefined ? undefined : new Slots(pacing.maxConcurrency);
        const running: Promise<void>[] = [];
        for (const at of pacing.schedule) {
          await waitUntil(stepStartMs + at * 1000, stepStop.signal);
          if (stepStop.signal.aborted || !withinBudget()) break;
          running.push(sessions.run(withinBudget, stepStop.signal, slots));
        }
        await Promise.all(running);
      } else if (pacing.kind === 'closed') {
        let claimed = 0;
        const lane = async (): Promise<void> => {
          while (!stepStop.signal.aborted && overrun === null && claimed < sends) {
            const index = claimed++;
            const prepared = this.workload.request(this.nextPrompt++);
            const failed = await send(prepared, index, pacing.readyAtStart && Number.isFinite(sends) ? 0 : performance.now() - stepStartMs);
            // A failure that needed no network I/O (EMFILE, a body that cannot be built) settles
            // without leaving the event loop's current pass: without yielding, the lanes would
            // spin and the duration timer and a cancel would never run.
            if (failed) await yieldToEventLoop();
          }
        };
        const lanes: Promise<void>[] = [];
        const laneCount = Math.min(pacing.concurrency, sends);
        for (let i = 0; i < laneCount && !stepStop.signal.aborted; i++) {
          lanes.push(lane());
          if (i % LANE_START_BATCH === LANE_START_BATCH - 1) await yieldToEventLoop();
        }
        await Promise.all(lanes);
      } else {
        const slots = pacing.maxConcurrency === undefined ? undefined : new Slots(pacing.maxConcurrency);
        const pending = new Set<Promise<boolean>>();
        const times = pacing.schedule;
        for (let index = 0; index < times.length; index++) {
          const scheduledMs = (times[index] ?? 0) * 1000;
          // Prepared before the wait, so that the send happens on time.
          const prepared = this.workload.request(this.nextPrompt++);
          await waitUntil(stepStartMs + scheduledMs, stepStop.signal);
          if (stepStop.signal.aborted || overrun !== null) break;
          if (slots && !(await slots.acquire(stepStop.signal))) break;
          const sent: Promise<boolean> = send(prepared, index, scheduledMs).finally(() => {
            slots?.release();
            pending.delete(sent);
          });
          pending.add(sent);
        }
        await Promise.all(pending);
      }
    } finally {
      clearTimeout(durationTimer);
      clearInterval(progressTimer);
      this.cancelled.signal.removeEventListener('abort', stopStep);
      // Nothing is in flight any more: close the step's sockets without waiting on them.
      await dispatcher.destroy();
    }
    if (engineError !== null) throw engineError;

    this.emit({ type: 'progress', snapshot: progress.snapshot() });
    const summary = this.writer.endStep({
      note: overrun,
      startMs: roundMs(stepStartMs - this.clockOrigin),
      endMs: roundMs(performance.now() - this.clockOrigin),
      sampled: this.monitor.take(),
    });
    this.emit({ type: 'step-end', stepIndex, name: plan.name, summary });
    return summary;
  }
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

/**
 * Runs the configured benchmark in this thread and resolves with the final document. Bad
 * configuration and unreadable datasets or tokenizers reject before anything is sent or
 * written; after that, request failures are recorded, never thrown.
 */
export const runBenchmark: RunBenchmark = async (input, options) => {
  const config = parseConfig(input);
  const tokenCounter = await createTokenCounter(config.tokenizer);
  const workload = await createWorkload(config, tokenCounter);
  // Plans are built before the file exists so that a bad schedule creates no file.
  const plans = initialPlans(config);
  checkFileDescriptors(mostConnections(plans, config));
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
  return new BenchmarkRun(config, options, workload, tokenCounter, writer, plans, probed?.message ?? null, monitor, clockOrigin).execute();
};
