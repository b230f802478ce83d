/**
 * Executing one part of a step's plan: this executor's pacing (closed-loop lanes, an open loop's
 * absolute schedule with its cap, sessions' lanes and open-loop sessions) and its client calls,
 * from the step's start instant until its requests are sent or its signals stop it. Records and
 * in-flight counts leave through a sink, which is all an executor says: in this thread the sink is
 * the gather's, in a worker it would post them. It knows nothing of other executors: which
 * requests are its own, their prompts and due times, it reads from its part of the plan (plan.ts).
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { redactSecrets, runSecrets, takesMessages, type RunConfig } from '../format/config';
import type { FailoverEvent, LoadFigures, RequestRecord } from '../format/result';
import { Conversation } from '../workload/conversation';
import type { PreparedRequest, TokenCounter, Workload } from '../workload/types';
import { cancelDelayMs } from './cancel';
import { sendRequest } from './client';
import { EndpointRouter, endpointContexts } from './endpoints';
import { TraceReplayer, type TraceRowMark } from './trace-pacing';
import { OwnedIndexes, partLanes, partSlots, type ExecutorPart, type PartUsage } from './plan';
import { waitUntil } from './schedule';
import { sessionDriver } from './sessions';
import type { ThreadLoadMeter } from './thread-load';
import type { ClientContext } from './types';

/** Lanes of a closed-loop step started before yielding to the event loop: each prepares its first prompt. */
const LANE_START_BATCH = 256;

/** What an executor needs beside its part of the plan; each executor has its own. */
export interface ExecutorEnv {
  config: RunConfig;
  /** Sent as `Authorization: Bearer ...`; never logged or written. */
  apiKey: string | undefined;
  /** With `endpoints` in the config: each endpoint's key, in their order (the first is `apiKey`). */
  apiKeys?: readonly (string | undefined)[];
  /** Built from the run's config and seed: `request(i)` and `session(i)` are the same in every executor. */
  workload: Workload;
  tokenCounter: TokenCounter;
  /** This executor's connection pool for the step, sized by `partConnections`. */
  dispatcher: Dispatcher;
  /** The step's load on this executor's thread: lateness, bytes and chunks are noted in it. */
  meter: ThreadLoadMeter;
  /** A trace step's replay, opened before the step starts (`preparePart`); opened at the start when absent. */
  trace?: TraceReplayer;
}

/**
 * What an executor readies before its step's start instant, so that the requests due at the start
 * go out on time: a trace step's file opened and its first prompts built. Nothing for other steps.
 * A part prepared and then not executed should be given to `discardPrepared`.
 */
export async function preparePart(part: ExecutorPart, env: Pick<ExecutorEnv, 'config' | 'tokenCounter'>): Promise<Pick<ExecutorEnv, 'trace'>> {
  if (part.step.pacing.kind !== 'trace') return {};
  return { trace: await TraceReplayer.open(part, env) };
}

/** Frees what `preparePart` readied for a part that will not run (the file a trace replay holds open). */
export async function discardPrepared(prepared: Pick<ExecutorEnv, 'trace'>): Promise<void> {
  await prepared.trace?.close();
}

/** What stops a step's executors; the gather owns them (gather.ts's StepGather). */
export interface StepSignals {
  /** The step ends: nothing more is sent, requests in flight are cancelled (and recorded as such). */
  stop: AbortSignal;
  /** Nothing more is sent; requests in flight finish. */
  drain: AbortSignal;
}

/** Where an executor's output goes. */
export interface ExecutorSink {
  /** Requests this executor has in flight, after one went out or ended. */
  inFlight(count: number): void;
  /**
   * A request ended: its record as the client measured it (times in ms from the step start, to the
   * microsecond; `index` the step-local request index; its error's message without the run's
   * secrets). Throws when the record cannot be kept (the result file cannot be written): the
   * executor then stops and rethrows once its requests have settled.
   */
  record(record: RequestRecord): void;
  /** The executor's send lateness since its previous report (for the live panel), a few times a second. */
  lateness(recent: LoadFigures | null): void;
  /** Failover took an endpoint out of the turn or gave it back (a run over several endpoints with `failover`). */
  failover?(event: FailoverEvent): void;
}

const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;
const roundNullable = (ms: number | null): number | null => (ms === null ? null : roundMs(ms));

/**
 * A record as it is kept: times to the microsecond (all a record needs; it keeps result files
 * about half the size) and the error's message without the run's secrets, which a server may echo.
 * Done by the executor, so that with worker threads each does its own. The chunk times are
 * rounded in place: the client hands its record over, and a copy per request would double the
 * garbage of the hottest array.
 */
export function keptRecord(r: RequestRecord, secrets: readonly string[]): RequestRecord {
  const chunkMs = r.chunkMs;
  for (let i = 0; i < chunkMs.length; i++) chunkMs[i] = roundMs(chunkMs[i] as number);
  r.scheduledMs = roundMs(r.scheduledMs);
  r.sentMs = roundMs(r.sentMs);
  r.queueMs = roundMs(r.queueMs);
  r.firstTokenMs = roundNullable(r.firstTokenMs);
  r.endMs = roundNullable(r.endMs);
  const reasoning = r.reasoning;
  if (reasoning !== undefined) {
    // The duration as the difference of the rounded times it spans, so that the file agrees with itself.
    const durationMs = reasoning.durationMs === null || reasoning.firstMs === null ? roundNullable(reasoning.durationMs) : roundMs(roundMs(reasoning.firstMs + reasoning.durationMs) - roundMs(reasoning.firstMs));
    r.reasoning = { ...reasoning, firstMs: roundNullable(reasoning.firstMs), answerFirstMs: roundNullable(reasoning.answerFirstMs), durationMs };
  }
  if (r.error !== null) r.error = { kind: r.error.kind, message: redactSecrets(r.error.message, secrets) };
  return r;
}

/** Waiters for a free slot under a concurrency cap. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }
  /** Whether a slot is free now. */
  get available(): boolean {
    return this.free > 0;
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

/**
 * Sends this executor's part of a step, the step having started at `startMs` (performance.now()),
 * and resolves once every request it sent has ended, with how many of the step's prompts and
 * sessions it used. A failure of the engine itself (a record that cannot be written) stops it and
 * rejects once its requests in flight have settled; request failures are records, never thrown.
 */
export async function executePart(part: ExecutorPart, startMs: number, env: ExecutorEnv, signals: StepSignals, sink: ExecutorSink): Promise<PartUsage> {
  const { step, first } = part;
  const { config, workload } = env;
  const pacing = step.pacing;
  // The executor's own stop: the step's, or an engine failure here.
  const halt = new AbortController();
  const followStep = (): void => halt.abort();
  signals.stop.addEventListener('abort', followStep, { once: true });
  if (signals.stop.aborted) halt.abort();
  const signal = halt.signal;
  const drain = signals.drain;
  const meter = env.meter;
  const secrets = runSecrets(config, env.apiKeys ?? [env.apiKey]);
  // A wait for the next send ends at the drain too: nothing more will go out.
  const pacingSignal = AbortSignal.any([signal, drain]);
  const context: ClientContext = { config, apiKey: env.apiKey, dispatcher: env.dispatcher, signal, stepStartMs: startMs, tokenCounter: env.tokenCounter, received: meter };
  // One endpoint unless the config has several; each request goes where the router says.
  const router = new EndpointRouter(endpointContexts(context, env.apiKeys), config.endpointStrategy ?? 'round-robin', config.failover, () => performance.now() - startMs, (event) => sink.failover?.(event));
  const manyEndpoints = config.endpoints !== undefined;

  const requests = OwnedIndexes.of(part, step.requests ?? Infinity);
  const used: PartUsage = { prompts: 0, sessions: 0 };
  const prompt = (k: number): PreparedRequest => {
    used.prompts = k + 1;
    return workload.request(first.prompt + k);
  };

  let inFlight = 0;
  let engineError: unknown = null;
  /**
   * Sends one request, due `readyMs` (step time: its send time, or when its lane or slot freed);
   * `scheduledMs` is what its record says it was scheduled at. Resolves true when the request
   * failed (or could not be recorded).
   */
  const send = async (prepared: PreparedRequest, index: number, scheduledMs: number, readyMs: number, turn?: { session: number; turn: number }, row?: TraceRowMark): Promise<boolean> => {
    sink.inFlight(++inFlight);
    meter.dispatched(performance.now() - startMs - readyMs);
    const endpoint = router.pick();
    router.started(endpoint);
    try {
      // Warm-up: the step's first requests, and what goes out within its warm-up seconds.
      const warmup = index < step.warmup || (step.warmupSec !== null && performance.now() - startMs < step.warmupSec * 1000);
      const cancelAfterMs = cancelDelayMs(config.cancel, config.seed, first, index, warmup);
      const measured = await sendRequest(prepared, { index, warmup, scheduledMs, ...(cancelAfterMs !== undefined ? { cancelAfterMs } : {}) }, router.contexts[endpoint] as ClientContext);
      router.ended(endpoint, measured);
      measured.session = turn?.session ?? null;
      measured.turn = turn?.turn ?? null;
      if (manyEndpoints) measured.endpoint = endpoint;
      if (row) measured.trace = row;
      meter.recorded(measured.chunkMs.length);
      sink.record(keptRecord(measured, secrets));
      return measured.error !== null;
    } catch (error) {
      engineError ??= error;
      halt.abort();
      return true;
    } finally {
      sink.inFlight(--inFlight);
    }
  };

  // Multi-turn steps: a turn takes the executor's next request index when it goes out; the j-th
  // session of the step is the workload's session first.session + j.
  const conversation = (j: number): Conversation => {
    used.sessions = Math.max(used.sessions, j + 1);
    const id = first.session + j;
    return new Conversation(id, (workload.session as NonNullable<Workload['session']>)(id));
  };
  const sessionStarts = OwnedIndexes.of(part, pacing.kind === 'open' ? pacing.schedule.length : pacing.kind === 'trace' ? pacing.count : Infinity);
  const sessions =
    step.sessions && config.sessions && workload.session
      ? sessionDriver(
          config.sessions,
          () => conversation(sessionStarts.take()),
          // The record is scheduled when the turn was due (a cap's wait is then queue time); the
          // meter's lateness counts from when the driver handed the turn over, after any slot wait.
          (prepared, turn, dueAtMs) => {
            if (!requests.more) return Promise.resolve(true);
            const readyMs = performance.now() - startMs;
            return send(prepared, requests.take(), dueAtMs - startMs, readyMs, turn);
          },
          takesMessages(config.endpoint.api),
          env.tokenCounter,
          () => yieldToEventLoop(),
        )
      : null;
  const withinBudget = (): boolean => !drain.aborted && requests.more;
  // Every thinking session waits on the executor's signal: as many listeners as sessions between turns.
  if (sessions) setMaxListeners(0, signal);

  try {
    if (pacing.kind === 'trace') {
      const slotCount = partSlots(part);
      const replayer = env.trace ?? (await TraceReplayer.open(part, env));
      // Due at its send time, or when a slot freed if it had to wait for one (as an open loop's).
      const slots = slotCount === null ? undefined : new Slots(slotCount);
      let slotFreedMs: number | null = null;
      const gate = slots && {
        acquire: async (stop: AbortSignal): Promise<boolean> => {
          const waited = !slots.available;
          const got = await slots.acquire(stop);
          slotFreedMs = waited ? performance.now() - startMs : null;
          return got;
        },
        release: () => slots.release(),
      };
      await replayer.run(startMs, { stop: signal, drain }, gate, (prepared, index, scheduledMs, row) => send(prepared, index, scheduledMs, slotFreedMs === null ? scheduledMs : Math.max(scheduledMs, slotFreedMs), undefined, row));
    } else if (sessions && pacing.kind === 'closed') {
      await Promise.all(Array.from({ length: partLanes(part) }, () => sessions.lane(withinBudget, signal)));
    } else if (sessions && pacing.kind === 'open') {
      const slotCount = partSlots(part);
      const slots = slotCount === null ? undefined : new Slots(slotCount);
      const running: Promise<void>[] = [];
      for (let j = sessionStarts.take(); j !== Infinity; j = sessionStarts.take()) {
        const dueAtMs = startMs + (pacing.schedule[j] ?? 0) * 1000;
        await waitUntil(dueAtMs, pacingSignal);
        if (signal.aborted || drain.aborted) break;
        if (!requests.more) {
          // The step's turns are spent before its schedule is: the sessions not started are said (plan.ts, scheduleCutNote).
          used.firstUnstartedSession = j;
          break;
        }
        running.push(sessions.run(conversation(j), withinBudget, signal, slots, dueAtMs));
      }
      await Promise.all(running);
    } else if (pacing.kind === 'closed') {
      const lane = async (): Promise<void> => {
        while (!signal.aborted && !drain.aborted && requests.more) {
          const readyMs = performance.now() - startMs;
          const index = requests.take();
          const prepared = prompt(index);
          const failed = await send(prepared, index, pacing.dueAtStart ? 0 : readyMs, readyMs);
          // A failure that needed no network I/O (EMFILE, a body that cannot be built) settles
          // without leaving the event loop's current pass: without yielding, the lanes would
          // spin and the duration timer and a cancel would never run.
          if (failed) await yieldToEventLoop();
        }
      };
      const lanes: Promise<void>[] = [];
      const laneCount = partLanes(part);
      for (let i = 0; i < laneCount && !signal.aborted; i++) {
        lanes.push(lane());
        if (i % LANE_START_BATCH === LANE_START_BATCH - 1) await yieldToEventLoop();
      }
      await Promise.all(lanes);
    } else {
      const slotCount = partSlots(part);
      const slots = slotCount === null ? undefined : new Slots(slotCount);
      const pending = new Set<Promise<boolean>>();
      const times = pacing.schedule;
      for (let index = requests.take(); index !== Infinity; index = requests.take()) {
        const scheduledMs = (times[index] ?? 0) * 1000;
        // Prepared before the wait, so that the send happens on time.
        const prepared = prompt(index);
        await waitUntil(startMs + scheduledMs, pacingSignal);
        if (signal.aborted || drain.aborted) break;
        // Due at its send time, or when a slot freed if it had to wait for one.
        let readyMs = scheduledMs;
        if (slots) {
          const waited = !slots.available;
          if (!(await slots.acquire(signal))) break;
          if (waited) readyMs = Math.max(scheduledMs, performance.now() - startMs);
        }
        const sent: Promise<boolean> = send(prepared, index, scheduledMs, readyMs).finally(() => {
          slots?.release();
          pending.delete(sent);
        });
        pending.add(sent);
      }
      await Promise.all(pending);
    }
  } finally {
    signals.stop.removeEventListener('abort', followStep);
  }
  if (engineError !== null) throw engineError;
  return used;
}
