/**
 * Messages between the extension host and the two tune views: the `*.llmtune.json` editor (the host
 * reads the file and the trials' result files and sends a `TuneView`) and the live tune panel (the
 * host reduces the tuner's events into a `TuneLiveState` and sends the whole state, coalesced; the
 * panel builds its view from it with src/views/tune.ts). Both sides parse every message
 * (src/format/messages/protocol.ts carries them).
 */
import * as z from 'zod';
import { statePanelSchemas } from './protocol';
import { BestTrialSchema, ParamsSchema, RemeasureSchema, TrialNumberSchema, TrialSchema, TrialStageSchema, TrialStatusSchema, TuneConfigSchema, TuneStatusSchema } from '../tune';

const PointSchema = z.tuple([z.number(), z.number()]);

/** A scatter or line chart of a tune, described as data (drawn by webview/shared/charts.ts). */
export const TuneChartSchema = z.object({
  id: z.string(),
  title: z.string(),
  /** Shown on hover over the title. */
  description: z.string(),
  x: z.object({
    title: z.string(),
    log: z.boolean().optional(),
    /** Categories (string choices, on/off) drawn at 0, 1, 2... */
    categories: z.array(z.string()).optional(),
    /** Whole numbers only (trials): a tick at each, none between. */
    integer: z.boolean().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
  }),
  y: z.object({ title: z.string() }),
  series: z.array(
    z.object({
      label: z.string(),
      points: z.array(PointSchema),
      color: z.union([z.number().int().nonnegative(), z.enum(['error', 'warning', 'success', 'muted'])]),
      /** Joined by a line (best so far, the Pareto front); otherwise points only. */
      line: z.boolean(),
      pointRadius: z.number().nonnegative(),
    }),
  ),
  /** Vertical marks on x (an SLO's limit). */
  markers: z.array(z.object({ x: z.number(), label: z.string() })),
});
export type TuneChart = z.infer<typeof TuneChartSchema>;

export const TuneRowStatusSchema = z.union([TrialStatusSchema, z.literal('running')]);
export type TuneRowStatus = z.infer<typeof TuneRowStatusSchema>;

export const TuneRowSchema = z.object({
  /** The trial's number. */
  trial: TrialNumberSchema,
  status: TuneRowStatusSchema,
  /** One text per column of `TuneView.columns`. */
  cells: z.array(z.string()),
  /** The trial's result file relative to the tune file's folder; null when nothing was measured. */
  resultFile: z.string().nullable(),
  best: z.boolean(),
  /** Within noise of the best: a tie, not a loser. */
  tie: z.boolean().default(false),
});
export type TuneRow = z.infer<typeof TuneRowSchema>;

export const TuneColumnSchema = z.object({
  label: z.string(),
  unit: z.string().optional(),
  numeric: z.boolean().optional(),
  description: z.string().optional(),
  /** Long text (the reason) that wraps instead of widening the table. */
  wrap: z.boolean().optional(),
  /** A figure with its interval ("4,999 ± 4,450") that may break before its ± rather than widen the table. */
  breaks: z.boolean().optional(),
});
export type TuneColumn = z.infer<typeof TuneColumnSchema>;

export const BestViewSchema = z.object({
  trial: TrialNumberSchema,
  /** "3,087 ± 87 output tok/s" once re-measured, else "3,149 output tok/s". */
  objective: z.string(),
  /** How the figure was measured: "mean of 3 re-measurements, 95% interval", "one measurement, not re-measured". */
  measured: z.string(),
  params: z.string(),
  /**
   * The command as the user wrote it (`llmbench` as the first word, the trial's port left out),
   * quoted for a POSIX shell: what Copy puts on the clipboard.
   */
  commandLine: z.string(),
  /** The trials within noise of it. */
  ties: z.array(TrialNumberSchema),
  /** The ties in words, with the rule that made them ties; null without ties. */
  tieText: z.string().nullable(),
  /** The noise the re-measurement saw, in words; null without re-measurement. */
  noise: z.string().nullable(),
});
export type BestView = z.infer<typeof BestViewSchema>;

export const TuneViewSchema = z.object({
  fileName: z.string(),
  status: TuneStatusSchema,
  statusReason: z.string().nullable(),
  /** "12 trials of 12: 8 complete, 3 refused ..." */
  headline: z.string(),
  /** What is maximized, with its unit. */
  objective: z.string(),
  /** The SLOs in words ("p99 TTFT <= 2,000 ms"). */
  slo: z.array(z.string()),
  columns: z.array(TuneColumnSchema),
  rows: z.array(TuneRowSchema),
  /** Objective per trial, with the best so far. */
  progress: TuneChartSchema,
  /** Objective against each parameter, one chart per parameter. */
  effects: z.array(TuneChartSchema),
  /** Throughput against the SLO metric over every measured step, with its Pareto front; null with nothing measured. */
  pareto: TuneChartSchema.nullable(),
  best: BestViewSchema.nullable(),
  notes: z.array(z.string()),
});
export type TuneView = z.infer<typeof TuneViewSchema>;

export const HostToTuneMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('show'), view: TuneViewSchema }),
  z.object({ type: z.literal('error'), fileName: z.string(), message: z.string() }),
]);
export type HostToTuneMessage = z.infer<typeof HostToTuneMessageSchema>;

export const TunePhaseSchema = z.enum(['confirming', 'running', 'cancelling', 'finished']);
export type TunePhase = z.infer<typeof TunePhaseSchema>;

/** At most this many lines of the running trial's server log are kept and shown. */
export const SERVER_LOG_LINES = 200;

export const TuneLiveStateSchema = z.object({
  tune: z.object({
    /** Unique per tune, so a restored panel can tell a tune of an earlier window from the current one. */
    id: z.string(),
    /** The tune file. */
    outPath: z.string(),
    configPath: z.string(),
    startedAt: z.string(),
  }),
  phase: TunePhaseSchema,
  /** Set once the tune ended. */
  status: TuneStatusSchema.nullable(),
  statusReason: z.string().nullable(),
  config: TuneConfigSchema,
  trials: z.array(TrialSchema),
  best: BestTrialSchema.nullable(),
  /** The re-measurement after the search, once it started. */
  remeasure: RemeasureSchema.nullable().default(null),
  /** The trial under way: launching its server, then benchmarking it. */
  running: z
    .object({
      trial: TrialNumberSchema,
      params: ParamsSchema,
      command: z.array(z.string()),
      /** Set while trial `trial` is re-measured after the search: the round. */
      round: z.number().int().positive().optional(),
      stage: TrialStageSchema,
      /** The benchmark's latest progress, in words. */
      detail: z.string().nullable(),
      /** When the trial started (the host's clock): the tune's time left counts it. */
      startedAt: z.string().optional(),
    })
    .nullable(),
  /** The running (or last) trial's server output, the latest SERVER_LOG_LINES lines. */
  serverLog: z.array(z.string()),
  /** The trial the server log is of. */
  serverLogTrial: TrialNumberSchema.nullable(),
});
export type TuneLiveState = z.infer<typeof TuneLiveStateSchema>;

/** The host's one event (the whole state) and what the panel keeps with setState, so a reload restores the last view. */
export const { events: HostToTuneLiveMessageSchema, viewState: TuneLiveViewStateSchema } = statePanelSchemas(TuneLiveStateSchema);
export type HostToTuneLiveMessage = z.infer<typeof HostToTuneLiveMessageSchema>;
export type TuneLiveViewState = z.infer<typeof TuneLiveViewStateSchema>;
