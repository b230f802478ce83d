/**
 * What the pages send the host (their requests, with the one protocol of protocol.ts) and keep for
 * a restore after a reload (their webview state): everything the extension host parses of a page.
 * The host's events and the view models a page parses stay in the view's own file (result.ts,
 * report.ts, live.ts, tune.ts): the host only builds those, so its bundle, loaded at every
 * activation, carries none of their schemas.
 */
import * as z from 'zod';
import { SavePngRequestSchema } from './protocol';
/** A trial's number, from 1: format/tune.ts's TrialNumberSchema, not imported, since that module would bring the tune schemas (5 KB) into the host bundle. */
const TrialNumberSchema = z.number().int().positive();

// The result and compare views.

/** The step table's optional columns, chosen by the user and remembered per workspace. */
export const TableColumnsSchema = z.object({
  means: z.boolean(),
  p90: z.boolean(),
  /** Added after the first release: a choice remembered before it reads as off. */
  p95: z.boolean().default(false),
  itl: z.boolean(),
});
export type TableColumns = z.infer<typeof TableColumnsSchema>;
/** What fits 1000 px: req/s, output tok/s, TTFT, TPOT and latency at p50 and p99, failures. */
export const DEFAULT_TABLE_COLUMNS: TableColumns = { means: false, p90: false, p95: false, itl: false };

/** The two files (URI strings) of a compare panel: what its webview keeps so that the panel can be restored after a reload. */
export const ComparePanelStateSchema = z.object({ a: z.string(), b: z.string() });
export type ComparePanelState = z.infer<typeof ComparePanelStateSchema>;

/** What a result or compare page asks of the host (its buttons). */
export const ResultRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('open-as-text') }),
  z.object({ type: z.literal('compare-with') }),
  z.object({ type: z.literal('table-columns'), columns: TableColumnsSchema }),
  /** Compare: exchange A and B. */
  z.object({ type: z.literal('swap') }),
  /** Compare: also open both runs as result editors in two columns. */
  z.object({ type: z.literal('open-side-by-side') }),
  z.object({ type: z.literal('markdown'), action: z.enum(['copy', 'save']) }),
  SavePngRequestSchema,
]);
export type ResultRequest = z.infer<typeof ResultRequestSchema>;

// The report.

export const LoadAxisSchema = z.enum(['concurrency', 'rate']);
export const StatChoiceSchema = z.enum(['mean', 'p50', 'p90', 'p99']);
export const ReportSloSchema = z.object({
  ttftMs: z.number().positive().optional(),
  /** Time to the first answer token (reasoning left out); a step without reasoning is held to it by its TTFT. */
  ttfoMs: z.number().positive().optional(),
  tpotMs: z.number().positive().optional(),
  e2eMs: z.number().positive().optional(),
});

export const ReportOptionsSchema = z.object({
  groupBy: z.string().optional(),
  axis: LoadAxisSchema.optional(),
  stat: StatChoiceSchema.optional(),
  slo: ReportSloSchema.optional(),
});

/** The result files and folders a report panel shows, with its options: what its webview keeps so that the panel can be restored after a reload. */
export const ReportPanelStateSchema = z.object({ paths: z.array(z.string()).min(1), options: ReportOptionsSchema });
export type ReportPanelState = z.infer<typeof ReportPanelStateSchema>;

/** What the report page asks of the host. */
export const ReportRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('options'), options: ReportOptionsSchema }),
  z.object({ type: z.literal('export'), format: z.enum(['html', 'csv', 'md']) }),
  z.object({ type: z.literal('editLabels'), run: z.number().int().nonnegative() }),
  /** A report of no runs offers to make one: run a benchmark, or import other tools' results. */
  z.object({ type: z.literal('make-runs'), how: z.enum(['run', 'import']) }),
  SavePngRequestSchema,
]);
export type ReportRequest = z.infer<typeof ReportRequestSchema>;

// The live run panel.

/** What the live panel asks of the host (its buttons). */
export const LiveRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('cancel'), runId: z.string() }),
  z.object({ type: z.literal('open-result'), runId: z.string() }),
  z.object({ type: z.literal('show-log') }),
  z.object({ type: z.literal('run-again') }),
]);
export type LiveRequest = z.infer<typeof LiveRequestSchema>;

// The tune editor and the live tune panel.

/** What the tune editor asks of the host (its buttons). */
export const TuneRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('open-as-text') }),
  /** Opens a trial's result file (by its number, from 1) in the result editor. */
  z.object({ type: z.literal('open-trial'), trial: TrialNumberSchema }),
  z.object({ type: z.literal('copy-best-command') }),
  SavePngRequestSchema,
]);
export type TuneRequest = z.infer<typeof TuneRequestSchema>;

/** What the live tune panel asks of the host (its buttons). */
export const TuneLiveRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('cancel'), tuneId: z.string() }),
  z.object({ type: z.literal('open-tune-file'), tuneId: z.string() }),
  z.object({ type: z.literal('open-trial'), tuneId: z.string(), trial: TrialNumberSchema }),
  z.object({ type: z.literal('show-log') }),
]);
export type TuneLiveRequest = z.infer<typeof TuneLiveRequestSchema>;
