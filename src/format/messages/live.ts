/**
 * Messages between the extension host and the live run panel. The host reduces the engine's
 * events into a `LiveState` and sends the whole state, coalesced to a few updates per second and
 * only while the panel is visible (a hidden webview receives nothing). Time series in the state are
 * bounded in length, so an update stays small however long the run. Both sides parse every message
 * (src/format/messages/protocol.ts carries them).
 */
import * as z from 'zod';
import { PlannedStepSchema, ProgressSnapshotSchema } from '../events';
import { RunStatusSchema, StepProfileSchema, StepSummarySchema, WorkersInfoSchema } from '../result';
import { ServerEngineSchema } from '../server-metrics';
import { statePanelSchemas } from './protocol';

export const LivePhaseSchema = z.enum(['starting', 'running', 'cancelling', 'finished']);
export type LivePhase = z.infer<typeof LivePhaseSchema>;

export const LiveStepSchema = z.object({
  name: z.string(),
  profile: StepProfileSchema,
  /** Which repeat of the profile, in a run that repeats it (its label then says so). */
  repeat: z.number().int().nonnegative().optional(),
  /** Seconds from the start of the run. */
  startedAtSec: z.number().nonnegative(),
  /** Null while the step runs. */
  summary: StepSummarySchema.nullable(),
});
export type LiveStep = z.infer<typeof LiveStepSchema>;

/** Parallel arrays, one entry per sample: x is seconds since the run started. */
export const LiveSeriesSchema = z.object({
  t: z.array(z.number()),
  requestsPerSecond: z.array(z.number()),
  outputTokensPerSecond: z.array(z.number()),
  inFlight: z.array(z.number()),
  /** Failed requests so far in the run (cumulative). */
  failed: z.array(z.number()),
  /** Requests sent over the last second, in trace steps (0 elsewhere): against the trace's recorded load. */
  sentPerSecond: z.array(z.number()).default([]),
  /** Progress samples per point: doubles each time the series reaches its bound. */
  stride: z.number().int().positive(),
  /** Samples merged into the last point so far (it is complete at `stride`). */
  lastCount: z.number().int().nonnegative(),
});
export type LiveSeries = z.infer<typeof LiveSeriesSchema>;

/** One quantity over time, bounded the same way: `v[i]` at `t[i]` seconds since the run started. */
export const LiveLineSchema = z.object({
  t: z.array(z.number()),
  v: z.array(z.number()),
  stride: z.number().int().positive(),
  lastCount: z.number().int().nonnegative(),
});
export type LiveLine = z.infer<typeof LiveLineSchema>;

/** The quantities of the server strip (src/views/server-quantities.ts names), each present once the engine gave a value. */
export const LIVE_SERVER_QUANTITIES = ['runningRequests', 'waitingRequests', 'kvCacheUsage', 'generatedTokens'] as const;
export type LiveServerQuantity = (typeof LIVE_SERVER_QUANTITIES)[number];

export const LiveServerLinesSchema = z.object({
  runningRequests: LiveLineSchema,
  waitingRequests: LiveLineSchema,
  /** A fraction, 0..1. */
  kvCacheUsage: LiveLineSchema,
  /** Tokens per second, from the server's counter. */
  generatedTokens: LiveLineSchema,
});
export type LiveServerLines = z.infer<typeof LiveServerLinesSchema>;

/** The server's own metrics as the run goes (scraped from its /metrics). */
export const LiveServerSchema = z.object({
  url: z.string(),
  engine: ServerEngineSchema,
  intervalMs: z.number().int().positive(),
  /** Scrapes that brought samples so far. */
  scrapes: z.number().int().nonnegative(),
  /** What went wrong with scraping, when the scraper said (404, timeout, not Prometheus text, too many series): the latest. */
  problem: z.string().nullable(),
  lines: LiveServerLinesSchema,
  /** A run over several endpoints: each one's own lines (`lines` are their sum, or mean for a fraction), by endpoint index. */
  replicas: z.array(z.object({ endpoint: z.string(), lines: LiveServerLinesSchema })).default([]),
});
export type LiveServer = z.infer<typeof LiveServerSchema>;

export const LiveLogSchema = z.object({ level: z.enum(['info', 'warn', 'error']), message: z.string() });

export const LiveStateSchema = z.object({
  run: z.object({
    /** Unique per run, so a restored panel can tell a finished run from the current one. */
    id: z.string(),
    model: z.string(),
    baseUrl: z.string(),
    profile: z.string(),
    startedAt: z.string(),
    labels: z.array(z.tuple([z.string(), z.string()])),
    /** Steps the profile will run, when known (a sweep's count is known from its config). */
    expectedSteps: z.number().int().positive().nullable(),
    /** One repeat's steps as planned (measured requests, warm-up, duration limit), from the engine's start: the time left is estimated from them. */
    plan: z.array(PlannedStepSchema).default([]),
    /** The profile's repeats and the pause between them; absent: once. */
    repeat: z.object({ count: z.number().int().positive(), pauseSec: z.number().nonnegative() }).optional(),
    resultPath: z.string().nullable(),
  }),
  phase: LivePhaseSchema,
  /** Set once the run ended. */
  status: RunStatusSchema.nullable(),
  statusReason: z.string().nullable(),
  elapsedSec: z.number().nonnegative(),
  /** The worker threads sending the requests, once the run said (null before, or a state kept before workers). */
  workers: WorkersInfoSchema.nullable().default(null),
  steps: z.array(LiveStepSchema),
  /** The running step's latest progress; null between steps. */
  current: ProgressSnapshotSchema.nullable(),
  series: LiveSeriesSchema,
  /** Null when the run does not scrape the server's metrics (turned off, or a state kept before they existed). */
  server: LiveServerSchema.nullable().default(null),
  /** Failed requests per error kind over the run. */
  errors: z.record(z.string(), z.number().int().nonnegative()),
  /** The latest warnings and errors of the run (bounded). */
  logs: z.array(LiveLogSchema),
});
export type LiveState = z.infer<typeof LiveStateSchema>;

/** The host's one event (the whole state) and what the panel keeps with setState, so a reload restores the last view before the host answers. */
export const { events: HostToLiveMessageSchema, viewState: LiveViewStateSchema } = statePanelSchemas(LiveStateSchema);
export type HostToLiveMessage = z.infer<typeof HostToLiveMessageSchema>;
export type LiveViewState = z.infer<typeof LiveViewStateSchema>;
