/**
 * Messages between the extension host and the result and compare webviews. The host parses the
 * result file and sends a view model (aggregated: no per-request records), so the webview only
 * draws. Both sides parse every message with these schemas.
 */
import * as z from 'zod';
import { METRICS, type MetricKey } from '../metrics';
import { RunStatusSchema, StatsSchema, StepSummarySchema } from '../result';
import { ComparePanelStateSchema, TableColumnsSchema } from './from-views';
import { keepStateEvent } from './protocol';

/** Every metric of src/format/metrics.ts: its definitions are the one list. */
const MetricKeySchema = z.enum(Object.keys(METRICS) as [MetricKey, ...MetricKey[]]);

export const ChartSeriesSchema = z.object({
  label: z.string(),
  /** [x, y] pairs, x ascending. */
  points: z.array(z.tuple([z.number(), z.number()])),
  /** Index into the theme's series palette: series of one run share a colour. */
  colorIndex: z.number().int().nonnegative(),
  dashed: z.boolean().optional(),
  /** A percentile line, drawn in that percentile's dash and strength. */
  percentile: z.enum(['p50', 'p90', 'p99']).optional(),
  /** Shade the area between this series and the one before it (a percentile band, an interval's band). */
  fillToPrevious: z.boolean().optional(),
  /** An edge of a band: no line, no legend entry, no tooltip of its own. */
  bandEdge: z.boolean().optional(),
  /** Each repeat's own point of a run that repeated its profile: faint marks, drawn only when the view asks for them. */
  eachRepeat: z.boolean().optional(),
  /** The points' shape, so that two runs on one chart differ by more than colour. */
  pointStyle: z.enum(['circle', 'triangle', 'rect']).optional(),
  /** What each point is (its step, "concurrency@8 #2"): the title of its tooltip. */
  pointLabels: z.array(z.string()).optional(),
  /** A line under each point's value in its tooltip (its 95% interval across repeats). */
  pointNotes: z.array(z.string()).optional(),
});
export type ChartSeries = z.infer<typeof ChartSeriesSchema>;

export const ViewChartSchema = z.object({
  id: z.string(),
  /** `stacked-bar`: each series a segment of one bar per category (x is the category's index). Default: lines. */
  kind: z.enum(['line', 'stacked-bar']).optional(),
  /** The bars' names, for a stacked-bar chart. */
  categories: z.array(z.string()).optional(),
  title: z.string(),
  /** The metric whose definition the chart's title shows on hover. */
  metric: MetricKeySchema.nullable(),
  xLabel: z.string(),
  yLabel: z.string(),
  /** A logarithmic x axis, for load spanning more than LOG_AXIS_SPAN (src/views/axis.ts). */
  xLog: z.boolean().optional(),
  series: z.array(ChartSeriesSchema),
  /** Shared upper bounds, set when two runs are shown side by side so their axes line up. */
  xMax: z.number().optional(),
  yMax: z.number().optional(),
  /** The x axis is run time in seconds: it starts at 0 and ticks at round times. */
  timeAxis: z.boolean().optional(),
  /** Vertical marks on the x axis, each named (where each step began, on a chart over run time). */
  markers: z.array(z.object({ x: z.number(), label: z.string() })).optional(),
});
export type ViewChart = z.infer<typeof ViewChartSchema>;

const nullableStats = StatsSchema.nullable();

export const StepRowSchema = z.object({
  name: z.string(),
  /** An imported step's own name in its source, when it differs (its label shows both). */
  sourceName: z.string().optional(),
  /** Which repeat of the profile the step was, in a run that repeats it. */
  repeat: z.number().int().nonnegative().optional(),
  /** Position on the charts' x axis (concurrency or achieved rate); null when unknown. */
  x: z.number().nullable(),
  /** Summarised from the requests recorded so far: the step did not finish. */
  partial: z.boolean(),
  requestsPerSecond: z.number().nullable(),
  outputTokensPerSecond: z.number().nullable(),
  latencyMs: nullableStats,
  ttftMs: nullableStats,
  itlMs: nullableStats,
  tpotMs: nullableStats,
  completed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  errors: z.array(z.tuple([z.string(), z.number()])),
  /** What is wrong with the step's figures (too short, a busy server at its start, a stop guard), each in words (src/views/step-warnings.ts). */
  warnings: z.array(z.string()).default([]),
  /** A step where a response reasoned, or an embeddings step: as its summary has them (absent otherwise, so that no empty column shows). */
  ...StepSummarySchema.pick({ ttfoMs: true, reasoningMs: true, reasoningTokens: true, answerTokens: true, reasoningItlMs: true, answerItlMs: true, embeddingsPerSecond: true, inputTokensPerSecond: true }).shape,
  /** Requests the run cut on purpose (`cancel`), apart from `failed`. */
  cancelledByDesign: z.number().int().nonnegative().optional(),
});
export type StepRow = z.infer<typeof StepRowSchema>;

/** Whether steps reasoned (TTFO and the reasoning figures apply) and whether they embedded (no stream figures apply). */
export const rowsReasoned = (rows: readonly StepRow[]): boolean => rows.some((row) => row.ttfoMs !== undefined);
export const rowsEmbedded = (rows: readonly StepRow[]): boolean => rows.some((row) => row.embeddingsPerSecond !== undefined);

export const XAxisSchema = z.object({ kind: z.enum(['concurrency', 'rate']), label: z.string() });
export type XAxis = z.infer<typeof XAxisSchema>;

export const RunSummarySchema = z.object({
  fileName: z.string(),
  model: z.string(),
  baseUrl: z.string(),
  api: z.string(),
  status: RunStatusSchema,
  /** Why the run is partial or failed, readable: a server's JSON error in it replaced by its own message. */
  statusReason: z.string().nullable(),
  /** That JSON error, pretty-printed; null when the reason holds none. */
  statusDetails: z.string().nullable().default(null),
  /** Null when the file does not know when the run started (an imported file whose tool kept no time). */
  createdAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  tool: z.string(),
  importedFrom: z.string().nullable(),
  labels: z.array(z.tuple([z.string(), z.string()])),
  /** Worker threads that sent the requests, and why that many; null for a file that does not say. */
  workers: z.string().nullable().default(null),
  /** The run configuration as pretty-printed JSON. */
  config: z.string(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

/** A column of a text table (src/views/chart-spec.ts TableColumn). */
export const TableColumnSchema = z.object({
  label: z.string(),
  unit: z.string().optional(),
  numeric: z.boolean().optional(),
  description: z.string().optional(),
});

/** A table already formatted: one string a cell. */
export const TextTableSchema = z.object({ columns: z.array(TableColumnSchema), rows: z.array(z.array(z.string())) });

/** The server's own metrics of a run (scraped from its /metrics): per step, and over the run's time. */
export const ServerSectionSchema = z.object({
  /** Which engine's metrics, from where, how often. */
  source: z.string(),
  /** One row a step. */
  table: TextTableSchema,
  /** Over run time, with a mark where each step began. */
  charts: z.array(ViewChartSchema),
  /** What is missing and why (quantities the engine does not export, steps without a span on the run's clock). */
  notes: z.array(z.string()),
  /**
   * A run over several endpoints: each replica's own table and charts (the section's are their sum,
   * or mean for a fraction), for a view that shows them one by one. Chart ids are prefixed by `replica-N-`.
   */
  replicas: z.array(z.object({ label: z.string(), table: TextTableSchema, charts: z.array(ViewChartSchema) })).optional(),
});
export type ServerSection = z.infer<typeof ServerSectionSchema>;

/** A table with the notes that go with it (a run's figures per endpoint). */
export const TableSectionSchema = z.object({ table: TextTableSchema, notes: z.array(z.string()) });
export type TableSection = z.infer<typeof TableSectionSchema>;

/** A run's trace steps: what each replayed and how late it sent (a table), and recorded against sent load over each step's time. */
export const TraceSectionSchema = z.object({ table: TextTableSchema, charts: z.array(ViewChartSchema), notes: z.array(z.string()) });
export type TraceSection = z.infer<typeof TraceSectionSchema>;
/** One figure across a run's repeats: the mean and the half-width of its 95% Student's t interval (null with one repeat). */
export const RepeatCellSchema = z.object({
  metric: MetricKeySchema,
  statistic: z.enum(['p50', 'p99']).optional(),
  n: z.number().int().nonnegative(),
  mean: z.number().nullable(),
  halfWidth: z.number().nullable(),
});
export type RepeatCell = z.infer<typeof RepeatCellSchema>;

/** A step name's figures across the repeats of a run (src/views/repeats.ts). */
export const RepeatRowSchema = z.object({ name: z.string(), repeats: z.number().int().positive(), cells: z.array(RepeatCellSchema) });
export type RepeatRow = z.infer<typeof RepeatRowSchema>;

/** A run that measured nothing (src/views/failure.ts): what failed, the server's words, what to try. */
export const RunFailureSchema = z.object({
  headline: z.string(),
  /** Failed requests per error kind, warm-up included. */
  kinds: z.array(z.tuple([z.string(), z.number()])),
  /** The most frequent distinct messages: readable text, the server's JSON body pretty-printed, how many requests said it. */
  errors: z.array(z.object({ text: z.string(), details: z.string().nullable(), count: z.number().int().positive() })),
  advice: z.array(z.string()),
});
export type RunFailure = z.infer<typeof RunFailureSchema>;

export const ResultViewSchema = z.object({
  summary: RunSummarySchema,
  xAxis: XAxisSchema,
  rows: z.array(StepRowSchema),
  /** For a run that repeated its profile: each step name's figures across the repeats. */
  repeats: z.array(RepeatRowSchema).optional(),
  charts: z.array(ViewChartSchema),
  /** Things a reader should know (partial steps, imported metrics that differ). */
  notes: z.array(z.string()),
  /** What the run itself warned of, each once (/metrics failing, the server's token count disagreeing with the client's), then each step's warnings as `step: message`. */
  warnings: z.array(z.string()).default([]),
  /** Null when the run has no server metrics (scraping off, an older or imported file). */
  server: ServerSectionSchema.nullable().default(null),
  /**
   * A run of one load (one step, or one step name repeated): its figures as a card, in place of load
   * charts that would each hold a single point. Null otherwise.
   */
  figures: z
    .object({
      /** Where the figures were measured: "concurrency@64, at 64 in flight (configured)". */
      load: z.string(),
      items: z.array(z.object({ label: z.string(), value: z.string(), unit: z.string() })),
    })
    .nullable()
    .default(null),
  /** Set when the run measured nothing: said instead of charts of zeros. */
  failure: RunFailureSchema.nullable().default(null),
  /** A run over several endpoints: each step's figures per endpoint beside its total; null otherwise. */
  endpoints: TableSectionSchema.nullable().default(null),
  /** A run that replayed a trace: its lateness and load over time; null otherwise. */
  trace: TraceSectionSchema.nullable().default(null),
  /** A shard run: each shard's host, clock offset, state and send lateness (src/views/shards.ts); null for a run in one process. */
  shards: TableSectionSchema.nullable().default(null),
});
export type ResultView = z.infer<typeof ResultViewSchema>;

/** Which rule decided whether a change is within noise (src/views/noise.ts). */
export const NOISE_RULES = ['bootstrap', 'repeat-intervals', 'repeat-interval-single', 'small-change'] as const;
export const NoiseRuleSchema = z.enum(NOISE_RULES);
export type NoiseRule = z.infer<typeof NoiseRuleSchema>;

export const DeltaCellSchema = z.object({
  metric: MetricKeySchema,
  /** Which statistic of a per-request metric is compared; absent for one-figure metrics (and read as p50 for times). */
  statistic: z.enum(['p50', 'p99']).optional(),
  a: z.number().nullable(),
  b: z.number().nullable(),
  /** (b - a) / |a| in percent; null when a is missing or zero (and b is not). */
  percent: z.number().nullable(),
  /** The interval of that change in percent of A that decided the verdict (bootstrap or across repeats); absent without one, or when A is 0. */
  interval: z.tuple([z.number(), z.number()]).optional(),
  /** `same`: the change is within noise (its interval spans zero, or it is small where there is no interval). */
  verdict: z.enum(['better', 'worse', 'same', 'unknown']),
  /** The rule that decided the verdict; null when there was nothing to compare. */
  rule: NoiseRuleSchema.nullable().default(null),
  /** With the repeat rule: the half-widths of A's and B's 95% intervals across repeats (null for a side with one repeat). */
  halfWidths: z.tuple([z.number().nullable(), z.number().nullable()]).optional(),
});
export type DeltaCell = z.infer<typeof DeltaCellSchema>;

export const DeltaRowSchema = z.object({ stepA: z.string(), stepB: z.string(), cells: z.array(DeltaCellSchema) });
export type DeltaRow = z.infer<typeof DeltaRowSchema>;

export const CompareViewSchema = z.object({
  a: RunSummarySchema,
  b: RunSummarySchema,
  /** Both runs on the same charts. */
  charts: z.array(ViewChartSchema),
  /** Each run's own charts, A's then B's of each kind, on shared axes: drawn side by side. */
  ownCharts: z.array(ViewChartSchema),
  deltas: z.array(DeltaRowSchema),
  /** How "within noise" was decided, for the reader. */
  noiseRule: z.string(),
  /** What makes the two runs not like for like (model, workload, profile). */
  warnings: z.array(z.string()),
  notes: z.array(z.string()),
  /** Each paired step's server figures, A's then B's; null when neither run has server metrics. */
  server: z.object({ table: TextTableSchema, notes: z.array(z.string()) }).nullable().default(null),
  /** Each run's figures per endpoint (A's rows, then B's), when either ran over several endpoints; null otherwise. */
  endpoints: TableSectionSchema.nullable().default(null),
  /** Each shard run's shards (A's rows, then B's), when either was a shard run; null otherwise. */
  shards: TableSectionSchema.nullable().default(null),
});
export type CompareView = z.infer<typeof CompareViewSchema>;

/** The host's events to a result or compare page (src/format/messages/protocol.ts carries them). */
export const HostToResultMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('show'), view: ResultViewSchema, columns: TableColumnsSchema.optional() }),
  z.object({ type: z.literal('show-compare'), view: CompareViewSchema }),
  z.object({ type: z.literal('error'), fileName: z.string(), message: z.string() }),
  keepStateEvent(ComparePanelStateSchema),
]);
export type HostToResultMessage = z.infer<typeof HostToResultMessageSchema>;
