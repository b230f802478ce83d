/**
 * The messages between a run's gather and an executor in a worker thread (executors.ts,
 * executor-worker.ts); both sides parse what they receive. The same exchange would carry a part to
 * a shard and its records back (issue 24): a part of the plan, one start instant, stop and drain,
 * records in batches with the executor's in-flight count, and at the part's end what it used and
 * what its thread went through.
 */
import * as z from 'zod';
import { RunConfigSchema } from '../format/config';
import { FailoverEventSchema, LoadFiguresSchema, RequestRecordReadSchema, StepProfileSchema, ThreadLoadSchema } from '../format/result';
import { TraceSourceSchema } from '../format/trace';
import type { ExecutorPart, PartUsage } from './plan';

const count = z.number().int().nonnegative();

const PacingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('closed'), lanes: count, dueAtStart: z.boolean() }),
  z.object({ kind: z.literal('open'), schedule: z.custom<Float64Array>((value) => value instanceof Float64Array, 'a Float64Array of send times'), maxConcurrency: z.number().int().positive().nullable() }),
  // The trace's file is read by each executor for the rows it owns (plan.ts, traceStep).
  z.object({ kind: z.literal('trace'), source: TraceSourceSchema, count, maxConcurrency: z.number().int().positive().nullable() }),
]);

/** plan.ts's ExecutorPart, as it travels. */
export const ExecutorPartSchema = z.object({
  step: z.object({
    name: z.string(),
    profile: StepProfileSchema,
    pacing: PacingSchema,
    requests: count.nullable(),
    warmup: count,
    warmupSec: z.number().nonnegative().nullable(),
    durationSec: z.number().positive().nullable(),
    sessions: z.boolean(),
    needsRate: z.boolean(),
  }),
  executor: count,
  executors: z.number().int().positive(),
  first: z.object({ prompt: count, session: count }),
});
// The schema describes plan.ts's type exactly: a change to one that the other lacks fails the build.
const partFits: z.ZodType<ExecutorPart> = ExecutorPartSchema;
void partFits;

/** plan.ts's PartUsage, as it travels back. */
export const PartUsageSchema = z.object({ prompts: count, sessions: count, firstUnstartedSession: count.optional() });
const usageFits: z.ZodType<PartUsage> = PartUsageSchema;
void usageFits;

/** Gather -> executor. */
export const ExecutorCommandSchema = z.discriminatedUnion('type', [
  /**
   * Builds the executor's workload and token counter from the run's config and seed: `ready`, or
   * `failed`. `apiKeys`: with `endpoints` in the config, each endpoint's key in their order.
   */
  z.object({ type: z.literal('init'), config: RunConfigSchema, apiKey: z.string().optional(), apiKeys: z.array(z.string().optional()).optional() }),
  /** The executor's part of the next step; it readies it (a trace's file opened, its first prompts built: execute.ts's preparePart) and answers `armed`. */
  z.object({ type: z.literal('part'), part: ExecutorPartSchema }),
  /** The step starts at `atMs`, on the executor's clock (`performance.timeOrigin + performance.now()`). */
  z.object({ type: z.literal('start'), atMs: z.number() }),
  /** The step ends: nothing more is sent, what is in flight is cancelled. */
  z.object({ type: z.literal('stop') }),
  /** Nothing more is sent; what is in flight finishes. */
  z.object({ type: z.literal('drain') }),
  z.object({ type: z.literal('close') }),
]);
export type ExecutorCommand = z.input<typeof ExecutorCommandSchema>;

/** Executor -> gather. */
export const ExecutorReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('armed') }),
  /**
   * Records that ended since the previous batch (already rounded and redacted: execute.ts's
   * keptRecord), the requests in flight now, now and then the send lateness since its last report,
   * and the failover events since the previous batch, in order.
   */
  z.object({
    type: z.literal('batch'),
    records: z.array(RequestRecordReadSchema),
    inFlight: count,
    lateness: LoadFiguresSchema.nullable().optional(),
    failovers: z.array(FailoverEventSchema).optional(),
  }),
  /** The part is over: every request it sent has ended and been in a batch. `startLateMs`: how late it began after `atMs`. */
  z.object({ type: z.literal('done'), usage: PartUsageSchema, load: ThreadLoadSchema, startLateMs: z.number() }),
  /** Init or the part failed; `badInput`: the config, a dataset or a tokenizer cannot be used. */
  z.object({ type: z.literal('failed'), message: z.string(), badInput: z.boolean() }),
]);
export type ExecutorReply = z.input<typeof ExecutorReplySchema>;
