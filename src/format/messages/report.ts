/**
 * Messages between the extension host and the report webview. The host loads the runs and builds
 * the report model (src/report/model.ts, whose types are defined here); the webview draws it and
 * asks for other options, exports and label edits. Both sides parse every message
 * (src/format/messages/protocol.ts carries them).
 */
import * as z from 'zod';
import { LoadAxisSchema, ReportPanelStateSchema, ReportSloSchema, StatChoiceSchema } from './from-views';
import { keepStateEvent } from './protocol';
import { NoiseRuleSchema, TextTableSchema } from './result';

export const CurvePointSchema = z.object({ x: z.number(), y: z.number(), step: z.string() });

/** A moment of a run from its server's metrics: when (seconds on the run's clock) and in which step; `never`; null when the server did not say. */
export const ServerMarkSchema = z.union([z.object({ atSec: z.number(), step: z.string().nullable() }), z.literal('never')]).nullable();

/** Where on a curve the server's KV cache first reached 95% (`kv-cache-full`) and requests first kept waiting (`queueing`): the point of that step. */
export const CurveMarkSchema = z.object({ kind: z.enum(['kv-cache-full', 'queueing']), point: CurvePointSchema });

export const CurveSchema = z.object({
  run: z.number().int().nonnegative(),
  name: z.string(),
  group: z.string(),
  /** Palette index: each run its own (src/views/report.ts curveStyle). */
  color: z.number().int().nonnegative(),
  /** Index into the dash patterns (src/views/chart-spec.ts DASH_PATTERNS): each group its own. */
  dash: z.number().int().nonnegative(),
  points: z.array(CurvePointSchema),
  knee: CurvePointSchema.nullable(),
  marks: z.array(CurveMarkSchema).default([]),
});

export const ReportChartSchema = z.object({
  id: z.string(),
  title: z.string(),
  xTitle: z.string(),
  /** A logarithmic load axis (src/views/axis.ts). */
  xLog: z.boolean().optional(),
  yTitle: z.string(),
  /** The statistic a latency chart draws (p90, mean ...), named in its title and axis: the views word them with it as `{0}` (src/views/report.ts reportChartText). */
  stat: z.string().optional(),
  curves: z.array(CurveSchema),
});

const nullableNumber = z.number().nullable();
export const RankingRowSchema = z.object({
  rank: z.number().int().positive(),
  /** Its output tokens per second are within noise of the run ranked above (src/views/noise.ts): they share a rank. */
  tiedWithAbove: z.boolean(),
  /** The rule that compared it with the run ranked above; null for the first run, or when either has no figure. */
  noiseRule: NoiseRuleSchema.nullable().default(null),
  run: z.number().int().nonnegative(),
  name: z.string(),
  group: z.string(),
  /** The heaviest step that met the SLO, or null when none did. */
  step: z.string().nullable(),
  /** For a run that repeated its profile: how many repeats every figure of the row is the mean of (absent: one step's figures). */
  repeats: z.number().int().positive().optional(),
  load: nullableNumber,
  requestsPerSecond: nullableNumber,
  outputTokensPerSecond: nullableNumber,
  /** For a run that repeated its profile: the half-width of the 95% interval of outputTokensPerSecond (the mean across the step's repeats, as every figure of the row). */
  outputTokensPerSecondHalfWidth: z.number().nonnegative().optional(),
  ttftMs: nullableNumber,
  /** TTFO (its TTFT without reasoning), and the step's mean reasoning and answer tokens; set when some run reasoned. */
  ttfoMs: nullableNumber.optional(),
  reasoningTokens: nullableNumber.optional(),
  answerTokens: nullableNumber.optional(),
  tpotMs: nullableNumber,
  latencyMs: nullableNumber,
  /** Highest goodput the run measured itself (its own SLO), with its step. */
  goodput: nullableNumber,
  goodputStep: z.string().nullable(),
});

export const ReportModelSchema = z.object({
  runs: z.array(
    z.object({
      name: z.string(),
      group: z.string(),
      color: z.number().int().nonnegative(),
      dash: z.number().int().nonnegative(),
      source: z.string().optional(),
      labels: z.record(z.string(), z.string()),
      /** The tool (and its version, when the file has it) whose output this run was imported from. */
      importedFrom: z.string().optional(),
      /** Statistics of the run kept under another tool's definition (GuideLLM 0.4+'s token-weighted TPOT...). */
      definitionNotes: z.array(z.string()),
      /** Its steps' warnings (too short, a busy server at the start, a stop guard, a client that was the limit), `step: message`, and which definition its rates follow. */
      stepWarnings: z.array(z.string()).default([]),
      /** Worker threads that sent its requests, and why; null for a file that does not say. */
      workers: z.string().nullable().default(null),
      /** `complete`, or how the run fell short: `partial (2 steps unfinished): cancelled`; in the display language. */
      status: z.string(),
      /** Whether the run completed with every step finished: the views mark the others, whatever the language of `status`. */
      complete: z.boolean().optional(),
    }),
  ),
  groupBy: z.string().nullable(),
  groups: z.array(z.string()),
  /** Label keys present in any run: the choices for grouping. */
  labelKeys: z.array(z.string()),
  axis: LoadAxisSchema,
  stat: StatChoiceSchema,
  slo: ReportSloSchema,
  /** Some run reasoned: the report adds TTFO and the reasoning and answer tokens. */
  reasoning: z.boolean().default(false),
  charts: z.array(ReportChartSchema),
  tradeoff: ReportChartSchema,
  /** Runs with no step placed on this axis (e.g. a rate run without a concurrency): in no curve. */
  offAxis: z.array(z.string()),
  knees: z.array(
    z.object({
      run: z.number().int().nonnegative(),
      name: z.string(),
      step: z.string().nullable(),
      load: nullableNumber,
      /** Beside the knee, from the server's metrics: where its KV cache first reached 95%, and where waiting requests first stayed above zero. */
      kvCacheFull: ServerMarkSchema.default(null),
      queueing: ServerMarkSchema.default(null),
    }),
  ),
  ranking: z.array(RankingRowSchema),
  /** Each run over several endpoints: its steps' figures per endpoint beside their totals, and what stands out. */
  endpoints: z.array(z.object({ name: z.string(), table: TextTableSchema, notes: z.array(z.string()) })).default([]),
  /** Each shard run: its shards' hosts, clock offsets, states and send lateness (src/views/shards.ts). */
  shards: z.array(z.object({ name: z.string(), table: TextTableSchema, notes: z.array(z.string()) })).default([]),
});

export const HostToReportSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('model'), title: z.string(), model: ReportModelSchema, problems: z.array(z.string()) }),
  keepStateEvent(ReportPanelStateSchema),
]);
export type HostToReport = z.infer<typeof HostToReportSchema>;
