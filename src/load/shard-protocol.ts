/**
 * What shards and their coordinator say to each other (shards.ts), over one TCP connection per
 * shard, one JSON message per line, each parsed on arrival like any outside input:
 *
 *   shard -> coordinator   hello (run token, index, count, config hash, host, pid)
 *   coordinator -> shard   welcome (run id) | refused (why), then the connection closes
 *   coordinator -> shard   ping, answered by pong with the shard's clock (CLOCK_ROUNDS times)
 *   coordinator -> shard   clock: the offset and its uncertainty, as estimated
 *   then the executor exchange (executor-protocol.ts) wrapped in `command` and `reply`,
 *   and at the run's end `end` with its status.
 *
 * Also the clock every shard and coordinator reads, and the NTP-style offset estimate.
 */
import { performance } from 'node:perf_hooks';
import * as z from 'zod';
import { ExecutorReplySchema } from './executor-protocol';

/** Round trips the coordinator times to each shard; it keeps the shortest. */
export const CLOCK_ROUNDS = 8;

/** A shard's place in its run, as `llmbench run --shards` resolved it (src/cluster/shard-command.ts). */
export const ShardRoleSchema = z.object({
  shards: z.number().int().positive(),
  shard: z.number().int().nonnegative(),
  coordinator: z.object({ host: z.string().min(1), port: z.number().int().min(1).max(65535) }),
  /** From the launcher's environment only; never written anywhere. */
  token: z.string().min(1),
  /** How long the coordinator waits for every shard to register, and a shard for the coordinator. */
  registerTimeoutMs: z.number().int().positive(),
});
export type ShardRole = z.infer<typeof ShardRoleSchema>;

const count = z.number().int().nonnegative();

export const ShardHelloSchema = z.object({
  type: z.literal('hello'),
  token: z.string(),
  shard: count,
  shards: z.number().int().positive(),
  configHash: z.string(),
  host: z.string(),
  pid: z.number().int().positive(),
});

/** Shard -> coordinator. A `reply` is checked against ExecutorReplySchema by the executor's channel. */
export const ShardMessageSchema = z.discriminatedUnion('type', [
  ShardHelloSchema,
  z.object({ type: z.literal('pong'), id: count, clockMs: z.number() }),
  z.object({ type: z.literal('reply'), reply: z.unknown() }),
]);
export type ShardMessage = z.input<typeof ShardMessageSchema>;

/** Coordinator -> shard. A `command`'s part carries an open loop's schedule as a plain array (`toWire`). */
export const CoordinatorMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('welcome'), runId: z.string() }),
  z.object({ type: z.literal('refused'), message: z.string() }),
  z.object({ type: z.literal('ping'), id: count }),
  z.object({ type: z.literal('clock'), offsetMs: z.number(), uncertaintyMs: z.number().nonnegative(), rttMs: z.number().nonnegative() }),
  z.object({ type: z.literal('command'), command: z.unknown() }),
  z.object({ type: z.literal('end'), status: z.enum(['complete', 'partial', 'failed']), reason: z.string().nullable() }),
]);
export type CoordinatorMessage = z.input<typeof CoordinatorMessageSchema>;

export { ExecutorReplySchema };

/**
 * This process's clock in ms since the epoch: the wall clock at its start plus the monotonic time
 * since. Tests only: LLMBENCH_TEST_CLOCK_SHIFT_MS moves it, as a machine whose clock is off would.
 */
export function clockShiftMs(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const shift = Number(env['LLMBENCH_TEST_CLOCK_SHIFT_MS'] ?? 0);
  return Number.isFinite(shift) ? shift : 0;
}

export function shardClockMs(shift: number): number {
  return performance.timeOrigin + performance.now() + shift;
}

/** One timed round trip: sent at `sentMs` and answered at `answeredMs` (coordinator's clock), the shard's clock `peerMs` in between. */
export interface ClockSample {
  sentMs: number;
  peerMs: number;
  answeredMs: number;
}

export interface ClockOffset {
  /** The shard's clock minus the coordinator's. */
  offsetMs: number;
  /** Half the round trip of the sample kept: the true offset is within offsetMs ± this, whatever the path's asymmetry. */
  uncertaintyMs: number;
  rttMs: number;
}

/**
 * NTP's estimate from the round trip with the shortest time: the shard read its clock somewhere
 * between the send and the answer, so its offset is its reading minus their midpoint, give or take
 * half the round trip. Longer round trips waited in a queue somewhere and only widen that bound.
 */
export function estimateOffset(samples: readonly ClockSample[]): ClockOffset {
  let best: ClockSample | undefined;
  for (const s of samples) if (best === undefined || s.answeredMs - s.sentMs < best.answeredMs - best.sentMs) best = s;
  if (best === undefined) throw new Error('estimateOffset: no round trip was timed');
  const rttMs = Math.max(0, best.answeredMs - best.sentMs);
  const round = (ms: number): number => Math.round(ms * 1000) / 1000;
  return { offsetMs: round(best.peerMs - (best.sentMs + best.answeredMs) / 2), uncertaintyMs: round(rttMs / 2), rttMs: round(rttMs) };
}

/** An executor command as it travels to a shard: an open loop's Float64Array schedule as a plain array (JSON keeps every double exactly). */
export function commandToWire(command: unknown): unknown {
  const c = command as { type?: string; part?: { step: { pacing: { kind: string; schedule?: Float64Array } } } };
  if (c.type !== 'part' || c.part?.step.pacing.kind !== 'open' || !(c.part.step.pacing.schedule instanceof Float64Array)) return command;
  const { part } = c;
  return { ...c, part: { ...part, step: { ...part.step, pacing: { ...part.step.pacing, schedule: Array.from(part.step.pacing.schedule as Float64Array) } } } };
}

/** The other way: a received part's schedule back to the Float64Array the executor takes. */
export function commandFromWire(command: unknown): unknown {
  const c = command as { type?: string; part?: { step?: { pacing?: { kind?: string; schedule?: unknown } } } };
  const schedule = c?.part?.step?.pacing?.schedule;
  if (c?.type !== 'part' || c.part?.step?.pacing?.kind !== 'open' || !Array.isArray(schedule) || !schedule.every((n) => typeof n === 'number')) return command;
  const part = c.part as { step: { pacing: object } };
  return { ...c, part: { ...part, step: { ...part.step, pacing: { ...part.step.pacing, schedule: Float64Array.from(schedule as number[]) } } } };
}
