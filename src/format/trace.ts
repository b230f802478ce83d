/**
 * A production trace to replay (issue 22): which file, in which format, and which part of it. The
 * readers are in src/workload/trace.ts, the prompts built from a trace in src/workload/trace-prompts.ts.
 */
import * as z from 'zod';
import { LIMITS } from './limits';

/**
 * The formats their publishers document (sources in test/fixtures/traces/SOURCE.md):
 * - `mooncake`: JSONL, `timestamp` (ms), `input_length`, `output_length`, `hash_ids` (kvcache-ai/Mooncake);
 * - `azure`: CSV, `TIMESTAMP` (a date and time), `ContextTokens`, `GeneratedTokens` (Azure/AzurePublicDataset, 2023 and 2024);
 * - `burstgpt`: CSV, `Timestamp` (s), `Model`, `Request tokens`, `Response tokens`, `Total tokens`, `Log Type` (HPMLL/BurstGPT);
 * - `columns`: any JSONL or CSV file, its columns named by `columns`.
 */
export const TRACE_FORMATS = ['mooncake', 'azure', 'burstgpt', 'columns'] as const;
export const TraceFormatSchema = z.enum(TRACE_FORMATS);
export type TraceFormat = z.infer<typeof TraceFormatSchema>;

/**
 * How a time column is written: seconds, milliseconds or microseconds as numbers, or a date and
 * time (`2023-11-16 18:17:03.9799600`, `2024-05-10 00:00:00.009930+00:00`, ISO 8601 with `T`;
 * without a zone it is read as UTC, which only matters where a file mixes zones).
 */
export const TraceTimeUnitSchema = z.enum(['s', 'ms', 'us', 'datetime']);
export type TraceTimeUnit = z.infer<typeof TraceTimeUnitSchema>;

const columnName = z.string().trim().min(1, 'a column name is needed');

/** The columns of a `columns` trace: names as in the CSV header or the JSONL objects' keys. */
export const TraceColumnsSchema = z
  .object({
    time: columnName,
    timeUnit: TraceTimeUnitSchema,
    inputTokens: columnName,
    outputTokens: columnName,
    /**
     * Optional: the ids of the prompt's blocks, shared between requests that share the block (as
     * Mooncake's `hash_ids`). A JSON array of whole numbers; in a CSV cell also `1 2 3`, `1;2;3` or `[1, 2, 3]`.
     */
    hashIds: columnName.optional(),
  })
  .strict();
export type TraceColumns = z.infer<typeof TraceColumnsSchema>;

/**
 * A trace step whose p99 send lateness (sent minus the recorded time, scaled) passes this replayed
 * its trace later than recorded: its load over time is not the trace's, and the run and the views say so.
 */
export const LATE_REPLAY_MS = 50;

/** Mooncake's block: each hash id stands for this many tokens of prompt. */
export const MOONCAKE_BLOCK_TOKENS = 512;

const seconds = z.number().nonnegative();

/**
 * The fields of a trace source, shared by TraceSourceSchema and the run config's `trace` profile
 * (src/format/config.ts), which replays one.
 */
export const TRACE_SOURCE_FIELDS = {
  path: z.string().min(1),
  /** Unset: told from the first line (a Mooncake JSON object, an Azure or a BurstGPT CSV header). */
  format: TraceFormatSchema.optional(),
  /** The columns of a `columns` trace; giving them without a format means `columns`. */
  columns: TraceColumnsSchema.optional(),
  /** 2 replays the trace twice as fast (gaps halved), 0.5 at half speed. */
  timeScale: z.number().positive().max(1_000_000).default(1),
  /**
   * A slice of the trace, in the trace's own seconds after its first row (before the time
   * scale): rows at startSec or later and before endSec. Sending starts at the slice's first row.
   */
  window: z
    .object({ startSec: seconds.default(0), endSec: seconds.optional() })
    .strict()
    .refine((w) => w.endSec === undefined || w.endSec > w.startSec, { message: 'endSec must be after startSec' })
    .optional(),
  /** Replays at most this many rows (after the window). */
  maxRequests: z.number().int().positive().max(LIMITS.requests).optional(),
  /** Skips bad rows and counts them by reason, instead of stopping at the first. */
  skipBadRows: z.boolean().default(false),
  /** Tokens each hash id stands for (Mooncake: 512). */
  blockTokens: z.number().int().positive().max(LIMITS.tokens).default(MOONCAKE_BLOCK_TOKENS),
};

/** What the fields of a trace source must agree on: a column map goes with format `columns`. */
export function checkTraceSource(source: { format?: TraceFormat | undefined; columns?: TraceColumns | undefined }, ctx: z.RefinementCtx): void {
  if (source.format === 'columns' && source.columns === undefined) {
    ctx.addIssue({ code: 'custom', path: ['columns'], message: 'format "columns" needs columns: {time, timeUnit, inputTokens, outputTokens, hashIds?}' });
  }
  if (source.columns !== undefined && source.format !== undefined && source.format !== 'columns') {
    ctx.addIssue({ code: 'custom', path: ['columns'], message: `columns are for format "columns"; a ${source.format} trace has its publisher's columns` });
  }
}

export const TraceSourceSchema = z.object(TRACE_SOURCE_FIELDS).strict().superRefine(checkTraceSource);
export type TraceSource = z.infer<typeof TraceSourceSchema>;
export type TraceSourceInput = z.input<typeof TraceSourceSchema>;
