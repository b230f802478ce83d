/**
 * What a running benchmark reports as it goes. The engine emits these; the command line draws
 * progress from them, the extension host forwards them (coalesced) to the live panel, and the
 * worker thread relays them across `postMessage`, where they are parsed again.
 */
import * as z from 'zod';
import { ClientLoadSchema, LoadFiguresSchema, RunStatusSchema, StepProfileSchema, StepSummarySchema, WorkersInfoSchema } from './result';
import { HardwareSchema, MetricSeriesSchema, ServerEngineSchema, ServerMetricsInfoSchema } from './server-metrics';

/** A rolling snapshot of the current step, emitted a few times per second. */
export const ProgressSnapshotSchema = z.object({
  stepIndex: z.number().int().nonnegative(),
  /** Seconds since the step started. */
  elapsedSec: z.number().nonnegative(),
  /** Measured requests that completed and failed so far: what the step's table will count (warm-up apart). */
  completed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  inFlight: z.number().int().nonnegative(),
  /** Measured requests the step will send, when known (a request limit); warm-up not included. */
  plannedRequests: z.number().int().positive().nullable(),
  /** The step's warm-up requests: how many, and how many have ended; absent without warm-up. */
  warmup: z.object({ planned: z.number().int().positive(), ended: z.number().int().nonnegative() }).optional(),
  /** Seconds the step will last, when known (a duration limit). */
  plannedDurationSec: z.number().positive().nullable(),
  /** Over the last window (about one second). */
  requestsPerSecond: z.number().nonnegative(),
  outputTokensPerSecond: z.number().nonnegative(),
  /** Latest completed requests' values, for live distributions; may be empty. */
  recentTtftMs: z.array(z.number()),
  recentLatencyMs: z.array(z.number()),
  /** Each worker with a share of the step: its requests in flight and its send lateness over its last report. */
  workers: z
    .array(z.object({ worker: z.number().int().nonnegative(), inFlight: z.number().int().nonnegative(), sendLatenessMs: LoadFiguresSchema.nullable() }))
    .optional(),
  /** A trace step: requests sent over the last second (against the recorded load, the profile's `trace.recordedRates`). */
  sentPerSecond: z.number().nonnegative().optional(),
  /** A trace step: send lateness so far (sent minus due, ms), from the requests ended; null before one. */
  sendLatenessMs: z.object({ p50: z.number(), p99: z.number(), max: z.number(), count: z.number().int().nonnegative() }).nullable().optional(),
});
export type ProgressSnapshot = z.infer<typeof ProgressSnapshotSchema>;

/** A step as planned before it runs. */
export const PlannedStepSchema = z.object({
  name: z.string(),
  profile: StepProfileSchema,
  requests: z.number().int().positive().nullable().optional(),
  warmup: z.number().int().nonnegative().optional(),
  durationSec: z.number().positive().nullable().optional(),
});
export type PlannedStep = z.infer<typeof PlannedStepSchema>;

export const RunEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run-start'),
    /**
     * Steps known up front (one repeat's); a sweep adds its rate steps once the first two are
     * measured. Each with its measured requests (null when a duration alone ends it), its warm-up and
     * its duration limit: what the time left is estimated from.
     */
    plannedSteps: z.array(PlannedStepSchema),
    /** The profile's repeats and the pause before each after the first; absent: once. */
    repeat: z.object({ count: z.number().int().positive(), pauseSec: z.number().nonnegative() }).optional(),
    /** Steps the run will run unless it is cut short: the planned ones and a sweep's rate steps, times the repeats. Every front end counts steps by it. */
    stepCount: z.number().int().nonnegative(),
    resultPath: z.string().nullable(),
    /** Worker threads sending the requests, and why that many. */
    workers: WorkersInfoSchema.optional(),
    /** Set when the server's metrics are scraped during the run. */
    serverMetrics: ServerMetricsInfoSchema.optional(),
    hardware: HardwareSchema.optional(),
  }),
  z.object({
    type: z.literal('step-start'),
    stepIndex: z.number().int().nonnegative(),
    name: z.string(),
    profile: StepProfileSchema,
    /** Which repeat of the profile, in a run that repeats it. */
    repeat: z.number().int().nonnegative().optional(),
    /** Milliseconds on the run's clock, the time axis of `sampled` events. */
    startMs: z.number().nonnegative().optional(),
  }),
  /**
   * New server and GPU samples, one event per scrape: each series carries only the samples taken
   * since the previous event (merge with `mergeSeries` from src/views/server-quantities.ts).
   */
  z.object({
    type: z.literal('sampled'),
    engine: ServerEngineSchema,
    series: z.array(MetricSeriesSchema),
  }),
  /**
   * Scraping the server's metrics (or reading the GPUs) failed: said once per kind of failure, with
   * the words of the run's warning (also sent as a `log` warning and kept in the result's `warnings`).
   */
  z.object({
    type: z.literal('sampling-problem'),
    source: z.enum(['server', 'gpu']),
    message: z.string(),
  }),
  z.object({ type: z.literal('progress'), snapshot: ProgressSnapshotSchema }),
  z.object({
    type: z.literal('step-end'),
    stepIndex: z.number().int().nonnegative(),
    name: z.string(),
    summary: StepSummarySchema,
    client: ClientLoadSchema.optional(),
  }),
  z.object({
    type: z.literal('log'),
    level: z.enum(['info', 'warn', 'error']),
    message: z.string(),
  }),
  z.object({
    type: z.literal('run-end'),
    status: RunStatusSchema,
    reason: z.string().nullable(),
    resultPath: z.string().nullable(),
  }),
]);
export type RunEvent = z.infer<typeof RunEventSchema>;
