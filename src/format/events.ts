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
  completed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  inFlight: z.number().int().nonnegative(),
  /** Requests the step will send, when known (a request limit). */
  plannedRequests: z.number().int().positive().nullable(),
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

export const RunEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run-start'),
    /** Steps known up front; a sweep adds its rate steps once the first two are measured. */
    plannedSteps: z.array(z.object({ name: z.string(), profile: StepProfileSchema })),
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
