/**
 * The plan of a run: which steps it has and, per step, what every request is and when it is due,
 * computed from the config and its seed alone (a sweep's rate steps also from the summaries its
 * first steps gathered). Pure and deterministic; everything here is plain data (numbers, strings,
 * typed arrays: no closures), so that a step's plan can be posted to a worker thread or sent to a
 * shard and give there exactly what it gives here. Executing it is execute.ts's, merging and
 * judging the records gather.ts's; docs/architecture.md draws the three.
 *
 * Request k of a step (k = 0, 1, ... in the step) is:
 * - its prompt: `workload.request(first.prompt + k)`, where `first` is the step's RunCursor
 *   (multi-turn steps: a turn's prompt is its session's, `workload.session(first.session + j)` for
 *   the step's j-th session, with the history its replies built);
 * - warm-up when k < warmup;
 * - due at `schedule[k]` seconds from the step start (open loop), at the step start (a closed loop
 *   whose queue is ready at once), or when a lane of its executor frees (any other closed loop);
 * - a trace step's request k is entry k of its trace slice, read from the file by each executor
 *   (src/workload/trace.ts): its prompt built from the entry's lengths and hash ids, due at the
 *   entry's scaled time. The plan holds the source and the slice, never the rows.
 *
 * A step split over N executors (worker threads, shards) gives request k to one executor by
 * `executorOf`, so that N executors send exactly the requests one would.
 */
import { stepRequests, sweepRates, type Arrival, type RampConfig, type RunConfig } from '../format/config';
import type { StepProfile, StepSummary, TraceReplay } from '../format/result';
import type { TraceSource } from '../format/trace';
import { stepName } from '../format/step-name';
import { fillPlaceholders, SWEEP_PLAN_TEXT } from '../format/warning-text';
import { mixSeed } from '../workload/sources';
import { absoluteSchedule, arrivalSchedule, rampRate, rampTargets, type ArrivalSchedule } from './schedule';

/** Concurrency of a throughput step (and of a sweep's rate steps) when none is configured. */
export const DEFAULT_THROUGHPUT_CONCURRENCY = 256;
/** Connections allowed to an open-loop step (to each of its executors) without a concurrency cap. */
export const UNCAPPED_CONNECTION_LIMIT = 1024;

/** How a step's requests are released. */
export type Pacing =
  /**
   * `lanes` lanes (the concurrency, never more than the step's requests), each sending its next
   * request when the previous one ends. `dueAtStart`: every request is due at the step start (a
   * throughput step with a request count, its whole queue ready at once), so its queueing shows in
   * its send lateness; otherwise a request is due when its lane frees.
   */
  | { kind: 'closed'; lanes: number; dueAtStart: boolean }
  /** Requests due at absolute times (seconds from the step start), at most `maxConcurrency` in flight when set. */
  | { kind: 'open'; schedule: ArrivalSchedule; maxConcurrency: number | null }
  /**
   * A trace replayed: request k is the k-th entry (from 0) of `source`'s slice (its window and
   * maxRequests), due at the entry's scaled time; `count` entries in all (the step's `requests`),
   * as the scan before the run found them. Each executor reads the file itself and takes its own
   * entries (k mod N), so the plan stays a few hundred bytes however long the trace.
   */
  | { kind: 'trace'; source: TraceSource; count: number; maxConcurrency: number | null };

/** One step of a run, as data. */
export interface StepPlan {
  name: string;
  /** What the result file says the step was. */
  profile: StepProfile;
  pacing: Pacing;
  /** Requests the step may send, warm-up included (a multi-turn step: turns); null when only its duration limits it. */
  requests: number | null;
  /** Requests 0 .. warmup - 1 of the step are warm-up, left out of its statistics. */
  warmup: number;
  /** Requests sent within this many seconds of the step start are warm-up too; null: none. */
  warmupSec: number | null;
  /** The step ends after this long, whatever is in flight (unless `needsRate` keeps it). */
  durationSec: number | null;
  /** Requests are sessions' turns (`sessions` in the config): an open loop's schedule starts sessions. */
  sessions: boolean;
  /**
   * The step must measure a request rate (a sweep places its rates from it). Until every request
   * of the first round (one per lane) has ended, the rate is the ramp-up's, with the quickest
   * requests over-represented: if the duration ends before that, the step sends no more and lets
   * the requests in flight finish (gather.ts's overrun note).
   */
  needsRate: boolean;
}

/** The steps known before a run starts, and what the run will hold at most. */
export interface RunPlan {
  /** Steps of one repeat, in order; a sweep's rate steps follow them once `planSweepRates` placed them. */
  steps: StepPlan[];
  /** How many times the steps run (`repeat.count`). */
  repeats: number;
  /** Steps the run will run unless cut short, a sweep's rate steps and the repeats counted. */
  stepCount: number;
  /** A sweep's rate steps, placed later: their in-flight cap (null for no sweep). */
  sweepCap: number | null;
}

/**
 * Where a step's prompts and sessions start: request k of the step takes prompt `prompt + k`,
 * its j-th session is session `session + j`. A run's first step starts at zero; each later step
 * starts where the steps before it stopped (`cursorAfter`), which is known once they are gathered:
 * a step cut by its duration uses as many prompts as it sent.
 */
export interface RunCursor {
  prompt: number;
  session: number;
}

export const RUN_START: RunCursor = { prompt: 0, session: 0 };

/**
 * One executor's part of a step: executor `executor` of `executors` sends the step's requests and
 * starts its sessions that `executorOf` gives it. Plain data, posted as is.
 */
export interface ExecutorPart {
  step: StepPlan;
  executor: number;
  executors: number;
  /** The step's cursor: the same for every executor of the step. */
  first: RunCursor;
}

/** What an executor used of the prompts and sessions: one past the highest step-local index it took of each (0: none). */
export interface PartUsage {
  prompts: number;
  sessions: number;
  /** An open loop's first scheduled session (step-local) this executor did not start because the step's turns were spent. */
  firstUnstartedSession?: number;
}

/** A note a plan has for the run's log (a sweep that cannot place its rates, say). */
export interface PlanNote {
  level: 'info' | 'warn';
  message: string;
}

/**
 * Requests a step sends: warm-up plus its measured requests (`stepRequests`: a concurrency step's
 * sized from its concurrency when the limits ask), or unbounded when only a duration limits it.
 */
function plannedSends(config: RunConfig, concurrency?: number): number {
  const measured = stepRequests(config.limits, concurrency);
  return measured === null ? Infinity : config.limits.warmup + measured;
}

const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

/** A step's fields that come from the run's limits and its sessions. */
function stepLimits(config: RunConfig, sends: number): Pick<StepPlan, 'requests' | 'warmup' | 'warmupSec' | 'durationSec' | 'sessions' | 'needsRate'> {
  return {
    requests: Number.isFinite(sends) ? sends : null,
    warmup: config.limits.warmup,
    warmupSec: config.limits.warmupSec ?? null,
    durationSec: config.limits.durationSec ?? null,
    sessions: config.sessions !== undefined,
    needsRate: false,
  };
}

function closedStep(config: RunConfig, name: string, profile: StepProfile, concurrency: number, readyAtStart: boolean): StepPlan {
  // Only a concurrency step is sized from its level: a throughput step's concurrency is a cap.
  const sends = plannedSends(config, profile.kind === 'concurrency' ? concurrency : undefined);
  const lanes = Math.min(concurrency, sends);
  return { name, profile, pacing: { kind: 'closed', lanes, dueAtStart: readyAtStart && Number.isFinite(sends) }, ...stepLimits(config, sends) };
}

function openStep(config: RunConfig, name: string, profile: StepProfile, schedule: ArrivalSchedule, maxConcurrency: number | undefined): StepPlan {
  return { name, profile, pacing: { kind: 'open', schedule, maxConcurrency: maxConcurrency ?? null }, ...stepLimits(config, schedule.length) };
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

/**
 * An open-loop step: as many requests as the limits allow, on a precomputed schedule; with
 * sessions, as many session starts as its turns fill (sessionStartsFor), its turns limited by the
 * request limit alone.
 */
function rateStep(config: RunConfig, { name, rate, arrival, burstiness, maxConcurrency, seedOffset }: RateStep): StepPlan {
  const { durationSec, warmup } = config.limits;
  const byDuration = durationSec === undefined ? Infinity : warmup + Math.ceil(rate * durationSec);
  const sends = plannedSends(config);
  const count = Math.min(sessionStartsFor(config, sends), byDuration);
  const schedule = arrivalSchedule({ count, rate, arrival, burstiness, seed: config.seed + seedOffset });
  const profile: StepProfile = {
    kind: 'rate',
    rate,
    arrival,
    ...(arrival === 'gamma' ? { burstiness } : {}),
    ...(maxConcurrency !== undefined ? { concurrency: maxConcurrency } : {}),
  };
  const step = openStep(config, name, profile, schedule, maxConcurrency);
  return config.sessions === undefined ? step : { ...step, ...stepLimits(config, sends) };
}

/**
 * The mean rate a schedule asks for: its sends after the first over the time to its last (what an
 * achieved send rate is measured against); a schedule of one send asks for `single`.
 */
function meanScheduleRate(schedule: ArrivalSchedule, single: number): number {
  const span = schedule[schedule.length - 1] ?? 0;
  return schedule.length > 1 && span > 0 ? (schedule.length - 1) / span : single;
}

/**
 * The sessions an open loop starts for `sends` turns: as many as those turns fill when every
 * session has the same number of turns (synthetic sessions), else one per turn (a dataset's
 * conversations differ in length: the turns run out first, and the step says so, scheduleCutNote).
 */
function sessionStartsFor(config: RunConfig, sends: number): number {
  const turns = config.sessions !== undefined && config.workload.kind === 'synthetic' ? config.sessions.turns : undefined;
  return turns === undefined ? sends : Math.ceil(sends / turns);
}

/**
 * An open-loop step whose target rate moves from the ramp's start to its end over the step's
 * requests; with sessions, over its session starts, as many as its turns fill: the whole ramp is
 * sent, and its recorded target over time is the one the step follows.
 */
function rampStep(config: RunConfig, ramp: RampConfig, arrival: Arrival, burstiness: number, maxConcurrency: number | undefined): StepPlan {
  const { strategy, startRate, endRate } = ramp;
  const sends = plannedSends(config);
  const schedule = arrivalSchedule({ count: sessionStartsFor(config, sends), rate: ramp, arrival, burstiness, seed: config.seed });
  const targetRates = rampTargets(schedule, ramp).map((p) => ({ atSec: roundMs(p.atSec), rate: roundMs(p.rate) }));
  const profile: StepProfile = {
    kind: 'rate',
    arrival,
    ...(arrival === 'gamma' ? { burstiness } : {}),
    ...(maxConcurrency !== undefined ? { concurrency: maxConcurrency } : {}),
    ramp: { strategy, startRate, endRate, targetRates, meanRate: roundMs(meanScheduleRate(schedule, startRate)) },
  };
  // The step's request limit counts turns, whatever its number of session starts.
  return { ...openStep(config, stepName(profile, arrival), profile, schedule, maxConcurrency), ...stepLimits(config, sends) };
}

function throughputStep(config: RunConfig, maxConcurrency: number | undefined): StepPlan {
  const concurrency = maxConcurrency ?? DEFAULT_THROUGHPUT_CONCURRENCY;
  return closedStep(config, 'throughput', { kind: 'throughput', concurrency }, concurrency, true);
}

const synchronousStep = (config: RunConfig): StepPlan => closedStep(config, 'synchronous', { kind: 'synchronous', concurrency: 1 }, 1, false);

/** The steps of one repeat known before the run starts; a sweep adds its rate steps after measuring. */
function initialSteps(config: RunConfig, trace: TraceReplay | undefined): StepPlan[] {
  const profile = config.profile;
  switch (profile.kind) {
    case 'synchronous':
      return [synchronousStep(config)];
    case 'concurrency':
      return profile.levels.map((concurrency) => {
        const stepProfile: StepProfile = { kind: 'concurrency', concurrency };
        return closedStep(config, stepName(stepProfile), stepProfile, concurrency, false);
      });
    case 'rate':
      if (profile.ramp !== undefined) return [rampStep(config, profile.ramp, profile.arrival, profile.burstiness, profile.maxConcurrency)];
      return (profile.rates ?? []).map((rate, i) =>
        rateStep(config, {
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
      const stepProfile: StepProfile = { kind: 'schedule', ...(profile.maxConcurrency !== undefined ? { concurrency: profile.maxConcurrency } : {}) };
      return [openStep(config, 'schedule', stepProfile, schedule, profile.maxConcurrency)];
    }
    case 'throughput':
      return [throughputStep(config, profile.maxConcurrency)];
    case 'sweep':
      return [synchronousStep(config), throughputStep(config, undefined)].map((step) => ({ ...step, needsRate: true }));
    case 'trace':
      if (trace === undefined) throw new Error('A trace profile is planned from its scan (scanTrace in src/workload/trace-scan.ts): none was given.');
      return [traceStep(config, profile, trace)];
  }
}

/** The source a trace profile replays: its TraceSource fields. */
export function traceSourceOf(profile: Extract<RunConfig['profile'], { kind: 'trace' }>): TraceSource {
  const { kind: _kind, maxConcurrency: _cap, ...source } = profile;
  return source;
}

/** A trace step: the scanned slice, its first `count` entries (warm-up and request limits applied by the scan). */
function traceStep(config: RunConfig, profile: Extract<RunConfig['profile'], { kind: 'trace' }>, trace: TraceReplay): StepPlan {
  const stepProfile: StepProfile = { kind: 'trace', ...(profile.maxConcurrency !== undefined ? { concurrency: profile.maxConcurrency } : {}), trace };
  return {
    name: stepName(stepProfile),
    profile: stepProfile,
    pacing: { kind: 'trace', source: traceSourceOf(profile), count: trace.requests, maxConcurrency: profile.maxConcurrency ?? null },
    requests: trace.requests,
    warmup: config.limits.warmup,
    warmupSec: config.limits.warmupSec ?? null,
    durationSec: config.limits.durationSec ?? null,
    sessions: false,
    needsRate: false,
  };
}

/** The entries a trace step replays at most: warm-up and measured requests when a request limit is set. */
export const traceRequestLimit = (config: RunConfig): number => plannedSends(config);

/** Connections a step may hold open at once, over all its executors: its lanes, or its cap, or the uncapped limit. */
export function stepConnections(step: StepPlan): number {
  const pacing = step.pacing;
  if (pacing.kind === 'closed') return pacing.lanes;
  return Math.min(pacing.maxConcurrency ?? UNCAPPED_CONNECTION_LIMIT, Math.max(scheduled(pacing), 1));
}

/** Requests an open-loop or trace step has due times for. */
function scheduled(pacing: Exclude<Pacing, { kind: 'closed' }>): number {
  return pacing.kind === 'open' ? pacing.schedule.length : pacing.count;
}

/**
 * The seed a repeat draws its arrival schedules with: the run's own for the first repeat, and for
 * each later one a seed of its own, so that the repeats' intervals hold the variance of arrivals
 * as well as that of the server (their prompts already differ: they continue across repeats).
 */
export function repeatSeed(seed: number, repeat: number): number {
  return repeat === 0 ? seed : mixSeed(seed, -1_000_000 - repeat);
}

/**
 * The steps of repeat `repeat` known before it starts: the plan's own for the first, drawn again
 * with the repeat's seed for the others; a trace's send times are the trace's, the same every repeat.
 */
export function stepsOfRepeat(config: RunConfig, plan: RunPlan, repeat: number): StepPlan[] {
  if (repeat === 0 || config.profile.kind === 'trace') return plan.steps;
  return initialSteps({ ...config, seed: repeatSeed(config.seed, repeat) }, undefined);
}

/**
 * The plan of a run before it starts. Throws on a schedule that cannot be (times that are not
 * ascending, say): nothing has been sent or written then. A trace profile needs `trace`, what the
 * scan of its file found (src/workload/trace-scan.ts).
 */
export function planRun(config: RunConfig, trace?: TraceReplay): RunPlan {
  const steps = initialSteps(config, trace);
  const sweep = config.profile.kind === 'sweep';
  const repeats = config.repeat?.count ?? 1;
  return {
    steps,
    repeats,
    stepCount: (steps.length + (config.profile.kind === 'sweep' ? config.profile.rateCount : 0)) * repeats,
    // A sweep's rate steps are capped at the throughput concurrency.
    sweepCap: sweep ? Math.min(DEFAULT_THROUGHPUT_CONCURRENCY, plannedSends(config)) : null,
  };
}

/**
 * The most connections any step of the run may hold open at once over `executors` executors, for
 * the file-descriptor check before the run: each executor of an uncapped open loop may open up to
 * UNCAPPED_CONNECTION_LIMIT, so the sum over the executors counts.
 */
export function mostConnections(plan: RunPlan, executors: number): number {
  const sums = plan.steps.map((step) => partition(step, executors, RUN_START).reduce((sum, part) => sum + partConnections(part), 0));
  return Math.max(plan.sweepCap ?? 0, ...sums);
}

// The sweep's rates are format/config.ts's `sweepRates`: the live panel's time left places them too.
export { sweepRates };

/**
 * A sweep's rate steps, placed between the request rates its synchronous and throughput steps
 * measured (`summaries`: those two, in order, as gathered), with what the log should say about
 * them. None when those rates were not measured; none for a profile that is no sweep. Every repeat
 * places them from the first repeat's summaries, drawing its schedules with its own seed.
 */
export function planSweepRates(config: RunConfig, summaries: readonly StepSummary[], repeat = 0): { steps: StepPlan[]; notes: PlanNote[] } {
  const profile = config.profile;
  if (profile.kind !== 'sweep') return { steps: [], notes: [] };
  const synchronousRate = summaries[0]?.requestsPerSecond ?? null;
  const throughputRate = summaries[1]?.requestsPerSecond ?? null;
  if (!synchronousRate || !throughputRate) {
    return { steps: [], notes: [{ level: 'warn', message: SWEEP_PLAN_TEXT.cannotPlace }] };
  }
  const notes: PlanNote[] = [];
  if (throughputRate <= synchronousRate) {
    notes.push({
      level: 'warn',
      message: fillPlaceholders(SWEEP_PLAN_TEXT.noGain, [throughputRate.toFixed(2), synchronousRate.toFixed(2)]),
    });
  }
  const rates = sweepRates(synchronousRate, throughputRate, profile.rateCount);
  notes.push({ level: 'info', message: fillPlaceholders(SWEEP_PLAN_TEXT.rates, [rates.map((r) => r.toFixed(2)).join(', ')]) });
  const seeded = { ...config, seed: repeatSeed(config.seed, repeat) };
  const steps = rates.map((rate, i) =>
    rateStep(seeded, {
      name: stepName({ kind: 'rate', rate }),
      rate,
      arrival: profile.arrival,
      burstiness: profile.burstiness,
      maxConcurrency: DEFAULT_THROUGHPUT_CONCURRENCY,
      seedOffset: i,
    }),
  );
  return { steps, notes };
}

// ---- partition ----------------------------------------------------------------------------------

/**
 * How many executors a step can use: an open loop capped at C in flight, C at most (each must
 * hold a slot); a closed loop, its lanes (an executor without a lane sends nothing).
 */
function executorsUsed(step: StepPlan, executors: number): number {
  const pacing = step.pacing;
  if (pacing.kind === 'closed') return Math.min(executors, pacing.lanes);
  return Math.min(executors, pacing.maxConcurrency ?? executors);
}

/**
 * The executor that sends request k of a step (and starts its k-th session) when it is split over
 * `executors`:
 * - open loop: k mod N, N the executors it can use (all, or at most its concurrency cap);
 * - closed loop: request k belongs to lane k mod L of its L lanes, and lane l to executor l mod N.
 *   An executor's share of the requests is its share of the lanes; when N divides L this is k mod N.
 * A step's sessions follow the same rule by their order in the step, so a session stays whole on
 * the executor that starts it.
 */
export function executorOf(step: StepPlan, executors: number, k: number): number {
  const pacing = step.pacing;
  if (pacing.kind === 'closed') return pacing.lanes === 0 ? 0 : (k % pacing.lanes) % executors;
  return k % executorsUsed(step, executors);
}

/** Splits a step over `executors` executors that start it at the same cursor. */
export function partition(step: StepPlan, executors: number, first: RunCursor): ExecutorPart[] {
  if (!Number.isInteger(executors) || executors < 1) throw new Error(`A step is split over a whole number of executors, at least 1, got ${executors}.`);
  return Array.from({ length: executors }, (_, executor) => ({ step, executor, executors, first }));
}

/** The lanes of a closed-loop part: lanes l with l mod N = its executor. The first L mod N executors get one more. */
export function partLanes(part: ExecutorPart): number {
  const pacing = part.step.pacing;
  if (pacing.kind !== 'closed') return 0;
  const { executor, executors } = part;
  return Math.floor(pacing.lanes / executors) + (executor < pacing.lanes % executors ? 1 : 0);
}

/**
 * The in-flight cap of an open-loop part: the step's cap shared over the executors it can use,
 * the remainder to the first; null when the step has none; 0 for an executor the step cannot use.
 */
export function partSlots(part: ExecutorPart): number | null {
  const pacing = part.step.pacing;
  if (pacing.kind === 'closed' || pacing.maxConcurrency === null) return null;
  const used = executorsUsed(part.step, part.executors);
  if (part.executor >= used) return 0;
  return Math.floor(pacing.maxConcurrency / used) + (part.executor < pacing.maxConcurrency % used ? 1 : 0);
}

/**
 * The step-local indexes one executor owns, ascending, below a limit: its requests (limit: the
 * step's requests) or its sessions (limit: an open loop's session starts; none for a closed loop).
 */
export class OwnedIndexes {
  private round = 0;
  private position = 0;
  private nextIndex: number;

  private constructor(
    /** Each round of `period` indexes holds these offsets, ascending. */
    private readonly offsets: readonly number[],
    private readonly period: number,
    private readonly limit: number,
  ) {
    this.nextIndex = this.at();
  }

  /** Indexes k < limit with executorOf(step, executors, k) = executor. */
  static of(part: ExecutorPart, limit: number): OwnedIndexes {
    const { step, executor, executors } = part;
    const pacing = step.pacing;
    const period = pacing.kind === 'closed' ? pacing.lanes : executorsUsed(step, executors);
    const offsets: number[] = [];
    for (let offset = executor; offset < period; offset += executors) offsets.push(offset);
    return new OwnedIndexes(offsets, period, limit);
  }

  private at(): number {
    const offset = this.offsets[this.position];
    if (offset === undefined) return Infinity;
    const k = this.round * this.period + offset;
    return k < this.limit ? k : Infinity;
  }

  /** Whether an index is left. */
  get more(): boolean {
    return this.nextIndex !== Infinity;
  }

  /** The next index, taken; Infinity when none is left. */
  take(): number {
    const k = this.nextIndex;
    if (k === Infinity) return k;
    this.position++;
    if (this.position === this.offsets.length) {
      this.position = 0;
      this.round++;
    }
    this.nextIndex = this.at();
    return k;
  }
}

/** A request as the plan has it; for tests, and for checking that a split sends the requests one executor sends. */
export interface PlannedRequest {
  /** Step-local index k. */
  index: number;
  /** The workload's prompt index; null for a session's turn (its prompt is its session's). */
  promptIndex: number | null;
  /** Seconds from the step start; null: when a lane of its executor frees (or, in a trace step, as its entry says). */
  dueSec: number | null;
  warmup: boolean;
}

/** The limit of a step's request indexes; `cap` bounds an unbounded one for a listing. */
const requestLimit = (step: StepPlan, cap = Infinity): number => Math.min(step.requests ?? Infinity, cap);

/** The requests of a part, in index order (at most `cap` indexes of the step looked at, for a step only a duration limits). */
export function plannedRequests(part: ExecutorPart, cap = Infinity): PlannedRequest[] {
  const { step, first } = part;
  const limit = requestLimit(step, cap);
  if (limit === Infinity) throw new Error(`Step ${step.name} has no request limit: give the listing a cap.`);
  const pacing = step.pacing;
  const owned = OwnedIndexes.of(part, limit);
  const planned: PlannedRequest[] = [];
  for (let k = owned.take(); k !== Infinity; k = owned.take()) {
    // A trace entry's due time is in the file, read as the step goes.
    const dueSec = pacing.kind === 'open' ? (pacing.schedule[k] ?? 0) : pacing.kind === 'closed' && pacing.dueAtStart ? 0 : null;
    planned.push({ index: k, promptIndex: step.sessions ? null : first.prompt + k, dueSec, warmup: k < step.warmup });
  }
  return planned;
}

/** A session an open-loop part starts, with its start time; a closed loop's sessions start as its lanes free. */
export interface PlannedSession {
  /** The step-local order j of the session. */
  ordinal: number;
  /** The workload's session number. */
  session: number;
  /** Seconds from the step start; null: when a lane frees. */
  dueSec: number | null;
}

/** The sessions of a part, in order (at most `cap` of the step's looked at). */
export function plannedSessions(part: ExecutorPart, cap = Infinity): PlannedSession[] {
  const { step, first } = part;
  const pacing = step.pacing;
  const limit = Math.min(pacing.kind === 'open' ? pacing.schedule.length : Infinity, cap);
  if (limit === Infinity) throw new Error(`Step ${step.name} starts sessions as its lanes free: give the listing a cap.`);
  const owned = OwnedIndexes.of(part, limit);
  const planned: PlannedSession[] = [];
  for (let j = owned.take(); j !== Infinity; j = owned.take()) {
    planned.push({ ordinal: j, session: first.session + j, dueSec: pacing.kind === 'open' ? (pacing.schedule[j] ?? 0) : null });
  }
  return planned;
}

/**
 * Connections a part may hold open at once: its lanes, its slots, or the uncapped limit (never more
 * than its requests). 0: the part has no share of the step (fewer lanes, slots or requests than
 * executors), and its executor sits the step out.
 */
export function partConnections(part: ExecutorPart): number {
  const step = part.step;
  if (step.pacing.kind === 'closed') return partLanes(part);
  const used = executorsUsed(step, part.executors);
  const due = scheduled(step.pacing);
  const owned = part.executor < Math.min(used, due) ? Math.ceil((due - part.executor) / used) : 0;
  return Math.min(partSlots(part) ?? UNCAPPED_CONNECTION_LIMIT, owned);
}

/**
 * What the step's record says when its turns ran out before its schedule did (an open loop's
 * sessions, PartUsage.firstUnstartedSession): how many of its scheduled session starts were sent,
 * and for a ramp, the rate it reached. Null when the schedule was sent to its end, or the step is
 * no open loop of sessions.
 */
export function scheduleCutNote(step: StepPlan, usages: readonly PartUsage[]): string | null {
  const pacing = step.pacing;
  const started = Math.min(...usages.map((u) => u.firstUnstartedSession ?? Infinity));
  if (pacing.kind !== 'open' || !Number.isFinite(started)) return null;
  const planned = pacing.schedule.length;
  const ramp = step.profile.ramp;
  const reached = ramp
    ? `: its ramp reached ${rampRate(Math.max(started - 1, 0), planned, ramp.strategy, ramp.startRate, ramp.endRate).toFixed(2)} req/s, not ${ramp.endRate.toFixed(2)}, and its recorded target rates go on past what was sent`
    : '';
  return `Its ${step.requests ?? 'allowed'} turns were spent after ${started} of its ${planned} scheduled session starts (its sessions had more turns than planned)${reached}.`;
}

/** Where the next step starts: after the highest prompt and session any executor of this step took. */
export function cursorAfter(first: RunCursor, usages: readonly PartUsage[]): RunCursor {
  return {
    prompt: first.prompt + Math.max(0, ...usages.map((u) => u.prompts)),
    session: first.session + Math.max(0, ...usages.map((u) => u.sessions)),
  };
}
