/**
 * The result document, `NAME.llmbench.json`: what a run measured. The engine writes it, the
 * command line prints it, the extension shows and compares it, importers produce it from other
 * tools' files. Readers parse it with `parseResultDocument`, never trust it.
 */
import * as z from 'zod';
import { HardwareSchema, MetricSeriesSchema, ServerMetricsInfoSchema } from './server-metrics';
import { ApiKindSchema, ArrivalSchema, LabelsSchema, RampStrategySchema } from './config';

export const SCHEMA_VERSION = 1;
export const RESULT_FILE_SUFFIX = '.llmbench.json';

export const PERCENTILES = [50, 66, 75, 80, 90, 95, 98, 99] as const;

/**
 * Distribution of one metric over a step. Milliseconds unless the field name says otherwise.
 * Our own runs fill every field. Files imported from other tools may lack some (null): vLLM
 * keeps only mean, median, std and p99, no tool writes p66/p80/p98, vLLM does not say how many
 * ITL gaps it pooled. A missing value stays null rather than being invented.
 */
const statValue = z.number().nullable();
export const StatsSchema = z.object({
  count: z.number().int().nonnegative().nullable(),
  mean: z.number(),
  std: statValue,
  min: statValue,
  max: statValue,
  p50: statValue,
  p66: statValue,
  p75: statValue,
  p80: statValue,
  p90: statValue,
  p95: statValue,
  p98: statValue,
  p99: statValue,
  /**
   * How the tool that wrote these figures defined them, when that differs from docs/metrics.md
   * (e.g. GuideLLM 0.4+'s token-weighted, nearest-rank TPOT percentiles). Absent: our definition.
   */
  definition: z.string().optional(),
});
export type Stats = z.infer<typeof StatsSchema>;

/**
 * Where a token count came from, best first: the server's `usage`, a local tokenizer, the
 * documented estimate (see docs/metrics.md), or counting streamed chunks.
 */
export const TokenSourceSchema = z.enum(['usage', 'tokenizer', 'estimate', 'chunks']);
export type TokenSource = z.infer<typeof TokenSourceSchema>;

export const ErrorKindSchema = z.enum([
  'connect', // could not connect (refused, DNS, TLS)
  'timeout-connect',
  'timeout-idle', // no byte for idleTimeoutMs
  'timeout-total',
  'http', // a non-2xx status
  'protocol', // a body that is not the expected JSON or SSE
  'server', // an `error` object sent by the server, mid-stream or in a 200 body
  'reset', // the connection closed before the response ended
  'cancelled',
  'client', // this machine could not send it (out of file descriptors): not the server's doing
  'other',
]);
export type ErrorKind = z.infer<typeof ErrorKindSchema>;

/**
 * One request. Times are milliseconds from the start of its step (`performance.now()` based),
 * so records of a step compare without clock skew.
 */
export const RequestRecordSchema = z.object({
  index: z.number().int().nonnegative(),
  warmup: z.boolean(),
  /** When the schedule wanted it sent (open loop), or when it was ready (closed loop). */
  scheduledMs: z.number(),
  /** When the HTTP request was handed to the socket. */
  sentMs: z.number(),
  /** Client queue time: sentMs - scheduledMs, time spent waiting for a concurrency slot. */
  queueMs: z.number(),
  /** First chunk with non-empty content (text or reasoning); null without streaming or output. */
  firstTokenMs: z.number().nullable(),
  /** Arrival of every content-bearing chunk, in order; empty without streaming. */
  chunkMs: z.array(z.number()),
  /** Last content chunk (streaming) or the full body (non-streaming); null if it never ended. */
  endMs: z.number().nullable(),
  inputTokens: z.number().int().nonnegative().nullable(),
  inputTokensSource: TokenSourceSchema.nullable(),
  outputTokens: z.number().int().nonnegative().nullable(),
  outputTokensSource: TokenSourceSchema.nullable(),
  finishReason: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  error: z.object({ kind: ErrorKindSchema, message: z.string() }).nullable(),
  /** For a multi-turn run: the session (in order of start) and the turn within it (0-based); null for single requests. */
  session: z.number().int().nonnegative().nullable().optional(),
  turn: z.number().int().nonnegative().nullable().optional(),
});
export type RequestRecord = z.infer<typeof RequestRecordSchema>;

export const StepProfileSchema = z.object({
  kind: z.enum(['synchronous', 'concurrency', 'rate', 'throughput', 'schedule']),
  concurrency: z.number().int().positive().optional(),
  /** Target rate in requests per second (open loop). */
  rate: z.number().positive().optional(),
  arrival: ArrivalSchema.optional(),
  burstiness: z.number().positive().optional(),
  /** A ramp step's rates, and its target rate over the step as planned (seconds from its start). */
  ramp: z
    .object({
      strategy: RampStrategySchema,
      startRate: z.number().positive(),
      endRate: z.number().positive(),
      targetRates: z.array(z.object({ atSec: z.number().nonnegative(), rate: z.number().positive() })),
    })
    .optional(),
});
export type StepProfile = z.infer<typeof StepProfileSchema>;

const nullableStats = StatsSchema.nullable();

export const StepSummarySchema = z.object({
  requests: z.object({
    total: z.number().int().nonnegative(),
    completed: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
  }),
  /** First measured send to last measured completion, seconds. */
  durationSec: z.number().nonnegative().nullable(),
  requestsPerSecond: z.number().nonnegative().nullable(),
  outputTokensPerSecond: z.number().nonnegative().nullable(),
  totalTokensPerSecond: z.number().nonnegative().nullable(),
  /** Highest output tokens/s over 1-second buckets (vLLM's peak). */
  peakOutputTokensPerSecond: z.number().nonnegative().nullable().optional(),
  /** Mean number of requests in flight over the step. */
  achievedConcurrency: z.number().nonnegative().nullable().optional(),
  targetRate: z.number().positive().nullable().optional(),
  achievedRate: z.number().nonnegative().nullable().optional(),
  ttftMs: nullableStats,
  itlMs: nullableStats,
  tpotMs: nullableStats,
  latencyMs: nullableStats,
  queueMs: nullableStats,
  inputTokens: nullableStats.optional(),
  outputTokens: nullableStats.optional(),
  /** Requests per second that met every SLO; null when no SLO was given. */
  goodput: z.number().nonnegative().nullable().optional(),
  errors: z.record(z.string(), z.number().int().nonnegative()),
});
export type StepSummary = z.infer<typeof StepSummarySchema>;

export const StepSchema = z.object({
  /** `synchronous`, `concurrency@8`, `asynchronous@2.50 req/sec`, `throughput`. */
  name: z.string(),
  /** An imported step's name in its source, when it differs from ours (GuideLLM's `constant@1.90`): shown with ours beside it. */
  sourceName: z.string().optional(),
  profile: StepProfileSchema,
  /** Which repeat of the profile (0 to count - 1) the step is, in a run with `repeat`; steps of one name are aggregated across repeats. */
  repeat: z.number().int().nonnegative().optional(),
  /** ISO time the step started. */
  startedAt: z.string().optional(),
  /**
   * When the step started and ended in milliseconds on the run's clock, the time axis of server
   * and GPU samples; a record's times plus `startMs` are on it too. Absent in older and imported files.
   */
  startMs: z.number().nonnegative().optional(),
  endMs: z.number().nonnegative().optional(),
  /** Null while the step is still running (a partial file). */
  summary: StepSummarySchema.nullable(),
  /** Why the step went beyond its configured limits (a sweep step run past its duration to measure a rate). */
  note: z.string().optional(),
  requests: z.array(RequestRecordSchema),
  /**
   * Server and GPU samples taken since the previous step ended, up to this step's end (written with
   * its summary, so that appending a record stays one small write). Whole-run series:
   * `runSeries` in src/views/server-quantities.ts.
   */
  sampled: z.array(MetricSeriesSchema).optional(),
});
export type Step = z.infer<typeof StepSchema>;

export const RunStatusSchema = z.enum(['running', 'partial', 'complete', 'failed']);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** For files made by `llmbench import`: which tool wrote the original and how its metrics differ. */
export const ImportSourceSchema = z.object({
  tool: z.string(),
  version: z.string().nullable(),
  file: z.string(),
  /** For a run found in a text (a log, a Markdown page): the lines it was read from, 1-based, inclusive. */
  lines: z.object({ first: z.number().int().positive(), last: z.number().int().positive() }).optional(),
  notes: z.array(z.string()),
});

/** The process writing a running file: a reader tells a live run from an interrupted one by it. */
export const ResultWriterSchema = z.object({ pid: z.number().int().positive(), host: z.string() });
export type ResultWriter = z.infer<typeof ResultWriterSchema>;

export const ResultDocumentSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  tool: z.object({ name: z.string(), version: z.string() }),
  createdAt: z.string(),
  finishedAt: z.string().nullable().optional(),
  endpoint: z.object({ baseUrl: z.string(), api: ApiKindSchema, model: z.string() }),
  labels: LabelsSchema,
  /** The run configuration as asked (secret header values redacted); free-form for imports. */
  config: z.record(z.string(), z.unknown()),
  status: RunStatusSchema,
  /** Why a run is partial or failed (cancelled, crashed, every request failed, ...). */
  statusReason: z.string().nullable().optional(),
  importedFrom: ImportSourceSchema.optional(),
  writer: ResultWriterSchema.optional(),
  /** How the server's /metrics was scraped; absent when scraping was off (or the file is older). */
  serverMetrics: ServerMetricsInfoSchema.optional(),
  /** The GPUs (or NPUs) of the machine that ran the benchmark, when nvidia-smi or npu-smi was found. */
  hardware: HardwareSchema.optional(),
  steps: z.array(StepSchema),
  /** Samples taken after the last step ended (the final scrape), written when the run ends. */
  sampledAfterSteps: z.array(MetricSeriesSchema).optional(),
  /**
   * The run's end compared the increase of the server's generated-token counter with the tokens the
   * client received (docs/server-metrics.md, "Cross-check"); absent when it could not (no counter,
   * estimated counts, /metrics read fewer than twice, a run cut short) or the file is older.
   */
  tokenCrossCheck: z.object({ serverTokens: z.number(), clientTokens: z.number(), tolerance: z.number() }).optional(),
  /**
   * Things the run noticed that do not fail it, each said once: /metrics unreachable, slow or
   * malformed, a tool that failed, the server's token count disagreeing with the client's.
   */
  warnings: z.array(z.string()).optional(),
});
export type ResultDocument = z.infer<typeof ResultDocumentSchema>;

/** A result without its request records: what tables and a run's outcome need. */
export type ResultOverview = Omit<ResultDocument, 'steps'> & { steps: Omit<Step, 'requests'>[] };

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * ResultDocumentSchema as files are read: chunk times, most of a big file's numbers (128 a request),
 * are checked in one loop instead of one zod parse each, which took reading a 10,000-request file
 * from about 190 to 75 ms in a fresh process. Same rule (an array of finite numbers); a file it
 * rejects is parsed again with ResultDocumentSchema for the exact reason.
 */
const finiteNumbers = z.custom<number[]>((value) => Array.isArray(value) && value.every((n) => typeof n === 'number' && Number.isFinite(n)));
const ResultDocumentReadSchema = ResultDocumentSchema.extend({
  steps: z.array(StepSchema.extend({ requests: z.array(RequestRecordSchema.extend({ chunkMs: finiteNumbers })) })),
});

/**
 * Parses a result file's text. The error says what is wrong in words a user can act on:
 * not JSON (and where), a newer schema version, or the first fields that do not fit.
 */
export function parseResultDocument(text: string): ParseOutcome<ResultDocument> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return { ok: false, error: `The file is not valid JSON (${reason}). It may be truncated or hand-edited.` };
  }
  if (typeof raw === 'object' && raw !== null && 'schemaVersion' in raw) {
    const version = (raw as { schemaVersion: unknown }).schemaVersion;
    if (typeof version === 'number' && version > SCHEMA_VERSION) {
      return {
        ok: false,
        error: `The file has schemaVersion ${version}, newer than this version of LLM Bench understands (${SCHEMA_VERSION}). Update LLM Bench to open it.`,
      };
    }
  }
  const read = ResultDocumentReadSchema.safeParse(raw);
  if (read.success) return { ok: true, value: read.data };
  const parsed = ResultDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, error: `The file is not an LLM Bench result: ${describeZodError(parsed.error)}` };
  }
  return { ok: true, value: parsed.data };
}

/** The first few issues of a zod error as `path: message` phrases. */
export function describeZodError(error: z.ZodError, limit = 3): string {
  const parts = error.issues.slice(0, limit).map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : '(top level)';
    // A record key that fails its own schema: that schema's message says what a key must be.
    const keyProblem = issue.code === 'invalid_key' ? issue.issues[0]?.message : undefined;
    return `${path}: ${keyProblem ?? issue.message}`;
  });
  const more = error.issues.length > limit ? ` (and ${error.issues.length - limit} more)` : '';
  return parts.join('; ') + more;
}
