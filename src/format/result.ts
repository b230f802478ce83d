/**
 * The result document, `NAME.llmbench.json`: what a run measured. The engine writes it, the
 * command line prints it, the extension shows and compares it, importers produce it from other
 * tools' files. Readers parse it with `parseResultDocument`, never trust it.
 */
import * as z from 'zod';
import { HardwareSchema, MetricSeriesSchema, ServerMetricsInfoSchema } from './server-metrics';
import { ApiKindSchema, ArrivalSchema, LabelsSchema, RampStrategySchema } from './config';
import { messageOf } from './errors';

/**
 * The file format's version. It changes only when a reader of the previous version could no longer
 * read what is written: new figures are optional fields, which older readers skip and newer ones
 * do without in older files (reasoning, embeddings and cancellation came so, in version 1).
 */
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
 * How a response that reasoned split into its reasoning and its answer (docs/metrics.md,
 * "Reasoning"). Times are milliseconds from the step start, like the record's. The content chunks
 * of `chunkMs` fall in two phases: the reasoning phase is `chunkMs[0 .. chunks)`, every chunk before
 * the first answer chunk (and that one too when it also carried reasoning); the answer phase is
 * `chunkMs[answerChunk ..]`. Reasoning that arrives once the answer has begun counts in the answer phase.
 */
export const ReasoningRecordSchema = z.object({
  /** The first chunk that carried reasoning; null without streaming, or when the reasoning was hidden (counted by usage only). */
  firstMs: z.number().nullable(),
  /** The first chunk that carried answer text; null without streaming, or when no answer came. */
  answerFirstMs: z.number().nullable(),
  /** Content chunks of the reasoning phase (the first `chunks` of `chunkMs`). */
  chunks: z.number().int().nonnegative(),
  /** Index in `chunkMs` of the first answer chunk; null when no answer chunk came. */
  answerChunk: z.number().int().nonnegative().nullable(),
  /** From the first reasoning chunk to the first answer chunk (to the last chunk when no answer came); null without streaming. */
  durationMs: z.number().nonnegative().nullable(),
  /** Tokens of the reasoning, and of the answer (output tokens less the reasoning), from `tokensSource`. */
  tokens: z.number().int().nonnegative().nullable(),
  answerTokens: z.number().int().nonnegative().nullable(),
  /** `usage` when the server counted the reasoning (`completion_tokens_details.reasoning_tokens`), else the local counter. */
  tokensSource: TokenSourceSchema.nullable(),
});
export type ReasoningRecord = z.infer<typeof ReasoningRecordSchema>;

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
  /** Which worker sent it (0 to workers - 1); absent in files written before workers. */
  worker: z.number().int().nonnegative().optional(),
  /** For a run over several endpoints (`endpoints` in its config): which one it went to, an index into the document's `endpoints`. */
  endpoint: z.number().int().nonnegative().optional(),
  /**
   * For a trace step: the row replayed. `scheduledMs` is its recorded time after the replayed
   * slice's first row, divided by the time scale; `recordedMs` is the time as the file records it
   * (ms after the trace's first row, unscaled). `promptLate`: its prompt was built after its send
   * time (the client could not keep up), so its lateness is the client's.
   */
  trace: z
    .object({
      line: z.number().int().positive(),
      recordedMs: z.number(),
      promptLate: z.boolean().optional(),
    })
    .optional(),
  /** Present when the response reasoned (reasoning text, or reasoning tokens in its usage); absent otherwise. */
  reasoning: ReasoningRecordSchema.optional(),
  /** Embedding vectors returned (api embeddings). */
  embeddings: z.number().int().nonnegative().optional(),
  /**
   * The run chose to cancel this request this long after it was sent (`cancel` in the config). An
   * error of kind `cancelled` then means it was cut there; without one it had ended before.
   */
  cancelAfterMs: z.number().nonnegative().optional(),
});
export type RequestRecord = z.infer<typeof RequestRecordSchema>;

/** What the reading of a trace found, by reason, each with the first line it happened at. */
const LineCountSchema = z.object({ count: z.number().int().nonnegative(), firstLine: z.number().int().positive() });

/** A trace step's source as replayed: the file, the slice, and what reading it found before the step. */
export const TraceReplaySchema = z.object({
  path: z.string(),
  format: z.enum(['mooncake', 'azure', 'burstgpt', 'columns']),
  timeScale: z.number().positive(),
  window: z.object({ startSec: z.number().nonnegative(), endSec: z.number().nonnegative().optional() }).optional(),
  maxRequests: z.number().int().positive().optional(),
  /** Data rows read, entries replayed (after the window, the bad and failed rows, the limits). */
  rows: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  /** Bad rows skipped (--skip-bad-rows), by reason. */
  skipped: z.record(z.string(), LineCountSchema),
  /** BurstGPT's recorded failures (0 response tokens), left out. */
  failedRequests: LineCountSchema.nullable(),
  /** Rows before the window's start. */
  beforeWindow: z.number().int().nonnegative(),
  /** The replayed rows' recorded span: seconds from the slice's first row to its last, before and after the time scale. */
  recordedSpanSec: z.number().nonnegative(),
  scaledSpanSec: z.number().nonnegative(),
  /** Requests per second the trace asks for over the step (scaled time, seconds from the step start): up to 200 even buckets. */
  recordedRates: z.array(z.object({ atSec: z.number().nonnegative(), rate: z.number().nonnegative() })),
});
export type TraceReplay = z.infer<typeof TraceReplaySchema>;

export const StepProfileSchema = z.object({
  kind: z.enum(['synchronous', 'concurrency', 'rate', 'throughput', 'schedule', 'trace']),
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
      /** The mean target over the step: its planned requests after the first over the span of its schedule (the summary's targetRate). */
      meanRate: z.number().positive().optional(),
    })
    .optional(),
  /** A trace step's source (profile kind `trace`). */
  trace: TraceReplaySchema.optional(),
});
export type StepProfile = z.infer<typeof StepProfileSchema>;

const nullableStats = StatsSchema.nullable();

/**
 * The span a step's rates are taken over (docs/metrics.md, "The steady window"), on the step's
 * clock (ms from its start). `steady` (an open loop: rate, sweep rates, schedule): from the later
 * of the end of warm-up (the first measured send) and the end of the fill-up (every request sent
 * before the first completion has ended), to the last send; its rates count the completions and
 * the tokens received inside it, whichever request they belong to. `span`: the first measured send
 * to the last measured end, over the measured requests: a closed loop's (synchronous, concurrency,
 * throughput: its load lasts until its last request ends, and the drain lets every round finish),
 * and an open loop's without a steady window (all sent before anything completed, too few
 * completions inside). A summary without this field was written before steady windows: its rates
 * are over that span too, and a step cut by its duration left out the requests it cancelled.
 */
export const RateWindowSchema = z.object({
  definition: z.enum(['steady', 'span']),
  startMs: z.number(),
  endMs: z.number(),
  /** What opened the window: the end of warm-up (the first measured send), or the end of the fill-up. */
  opensAt: z.enum(['warm-up', 'fill-up']),
  /** Successful completions inside the window (warm-up requests included). */
  completed: z.number().int().nonnegative(),
  /** Output tokens received inside the window, in-flight and cancelled requests included: each content chunk carries its request's tokens divided by its chunks. */
  outputTokens: z.number().nonnegative(),
  /** Some of those tokens were counted by the estimate or by chunks, not by the server or a tokenizer. */
  tokensEstimated: z.boolean(),
  /** First measured send to last measured end, seconds: the duration vLLM and GuideLLM divide by. */
  spanSec: z.number().nonnegative().nullable(),
});
export type RateWindow = z.infer<typeof RateWindowSchema>;

/**
 * Something a reader of a step's figures must know, with the figures that decided it: a step too
 * short for its latency, a step that began on a busy server, a step ended by a stop guard, ... The
 * kinds LLM Bench writes are STEP_WARNING_KINDS; a reader shows any kind by its message, so a file
 * from a newer version with a kind this one does not know still opens.
 */
export const StepWarningSchema = z.object({
  kind: z.string().min(1),
  message: z.string(),
  figures: z.record(z.string(), z.number()).default({}),
});
export type StepWarning = z.infer<typeof StepWarningSchema>;

export const STEP_WARNING_KINDS = {
  /** Sent for less than about 3x its median latency: its rates are mostly ramp-up. */
  tooShort: 'too-short',
  /** Began while the server still ran or queued requests (of the step before, or of another client). */
  busyStart: 'busy-start',
  /** Ended early by the over-saturation guard: its queue grew for a sustained window. */
  overSaturated: 'over-saturated',
  /** Ended early: the share of failed requests passed --max-error-rate. */
  errorRate: 'error-rate',
  /** Ended early: --max-errors requests failed. */
  maxErrors: 'max-errors',
  /** Ran other than planned, as its note says: past its duration to measure a rate (a sweep's synchronous and throughput steps), or out of turns before its schedule ended (an open loop of sessions). */
  ranOtherThanPlanned: 'ran-other-than-planned',
  /** The client's own thread was the limit (src/load/client-bound.ts): its figures name the one that crossed its threshold, with `value` and `threshold`. */
  clientBound: 'client-bound',
} as const;
const requestCount = z.number().int().nonnegative();
/** How many requests' counts came from each source (TokenSourceSchema); a source none came from is absent. */
export const SourceCountsSchema = z.object({
  usage: requestCount.optional(),
  tokenizer: requestCount.optional(),
  estimate: requestCount.optional(),
  chunks: requestCount.optional(),
});
export type SourceCounts = z.infer<typeof SourceCountsSchema>;

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
  /** The step's configured rate; a ramp's mean target (its target over time is `profile.ramp.targetRates`). */
  targetRate: z.number().positive().nullable().optional(),
  achievedRate: z.number().nonnegative().nullable().optional(),
  ttftMs: nullableStats,
  itlMs: nullableStats,
  tpotMs: nullableStats,
  latencyMs: nullableStats,
  queueMs: nullableStats,
  inputTokens: nullableStats.optional(),
  outputTokens: nullableStats.optional(),
  /**
   * Where the token counts of the step's completed measured requests came from, requests per source:
   * only `usage` is the server's own count (docs/metrics.md). Absent in older and imported files.
   */
  tokenSources: z.object({ input: SourceCountsSchema, output: SourceCountsSchema }).optional(),
  /** Requests per second that met every SLO; null when no SLO was given. */
  goodput: z.number().nonnegative().nullable().optional(),
  errors: z.record(z.string(), z.number().int().nonnegative()),
  /** What the rates are over; absent in files written before steady windows (and in imports): first send to last completion. */
  rateWindow: RateWindowSchema.optional(),
  /** What is wrong with these figures, each with its own figures; absent when nothing is. */
  warnings: z.array(StepWarningSchema).optional(),
  /*
   * Reasoning (docs/metrics.md, "Reasoning"): written only when a measured response of the step
   * reasoned, so that a step without reasoning has none of them. A response without reasoning counts
   * in them as all answer: its TTFO is its TTFT, its reasoning 0 tokens.
   */
  /** Time to the first answer token (AIPerf's TTFO, "time to first output token"). */
  ttfoMs: nullableStats.optional(),
  /** From the first reasoning token to the first answer token, over the responses that reasoned. */
  reasoningMs: nullableStats.optional(),
  reasoningTokens: nullableStats.optional(),
  answerTokens: nullableStats.optional(),
  /** ITL within the reasoning phase and within the answer phase (gaps between two chunks of the same phase). */
  reasoningItlMs: nullableStats.optional(),
  answerItlMs: nullableStats.optional(),
  /** TPOT of each phase: reasoning duration / reasoning tokens; (end - first answer token) / (answer tokens - 1). */
  reasoningTpotMs: nullableStats.optional(),
  answerTpotMs: nullableStats.optional(),
  /** Embeddings (api embeddings): vectors and input tokens of completed requests per second. */
  embeddingsPerSecond: z.number().nonnegative().nullable().optional(),
  inputTokensPerSecond: z.number().nonnegative().nullable().optional(),
  /**
   * Cancellation by design (`cancel` in the config): measured requests the run cut on purpose, also
   * counted in `errors.cancelled`, and the output tokens they had received by then.
   */
  cancelledByDesign: z.object({ requests: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() }).optional(),
});
export type StepSummary = z.infer<typeof StepSummarySchema>;

/** p50, p99 and max of a figure the client measured of itself (milliseconds). */
export const LoadFiguresSchema = z.object({ p50: z.number(), p99: z.number(), max: z.number() });
export type LoadFigures = z.infer<typeof LoadFiguresSchema>;

/**
 * What one thread that stamps tokens went through during a step (docs/metrics.md, "Is the client
 * the limit?"). Shares are of the step's wall time; null where this system cannot tell (thread CPU
 * time is read from Linux's /proc).
 */
export const ThreadLoadSchema = z.object({
  /** Event-loop delay: how late a timer ran, which is how long a token's stamp could wait. */
  loopDelayMs: LoadFiguresSchema.nullable(),
  /** Share of the step the thread's event loop was working (not waiting for I/O), its waits for a send time left out. */
  busy: z.number().nonnegative().nullable(),
  /** Share of the step the thread ran on a core. */
  cpuShare: z.number().nonnegative().nullable(),
  /** Share of the step the thread was ready to run but waited for a core (other threads and processes had them). */
  coreWaitShare: z.number().nonnegative().nullable(),
  /** From when a request was due (its send time, or when its lane or slot freed) to when it was handed to the client. */
  sendLatenessMs: LoadFiguresSchema.nullable(),
  chunksPerSecond: z.number().nonnegative(),
  bytesPerSecond: z.number().nonnegative(),
});
export type ThreadLoad = z.infer<typeof ThreadLoadSchema>;

/** How many worker threads sent a run's requests, and why that many (`workers` in the config: a number, or `auto`'s rule). */
export const WorkersInfoSchema = z.object({ count: z.number().int().positive(), reason: z.string() });
export type WorkersInfo = z.infer<typeof WorkersInfoSchema>;

/**
 * One shard of a run split over processes or machines (docs/scale-out.md): where it ran, and its
 * clock against the coordinator's, estimated NTP-style (the round trip with the shortest time).
 */
export const SHARD_STATES = ['registered', 'running', 'done', 'lost', 'missing'] as const;
export const ShardStateSchema = z.enum(SHARD_STATES);
export type ShardState = z.infer<typeof ShardStateSchema>;

export const ShardMemberSchema = z.object({
  shard: z.number().int().nonnegative(),
  /**
   * Written as it changes, while the run goes: `registered` (it registered; the run has not started
   * yet), `running` (it serves its part), `done` (it served until the run ended), `lost` (its process
   * or connection ended during the run: the run is partial, its statusReason says when), `missing`
   * (it never registered). A finished file whose member still says `registered` or `running` was
   * cut short (its writer died) or written before these states.
   */
  state: ShardStateSchema,
  host: z.string().nullable(),
  pid: z.number().int().positive().nullable(),
  /** Its clock minus the coordinator's (ms); 0 for the coordinator itself, null for a shard that never registered. */
  offsetMs: z.number().nullable(),
  /** Half the shortest round trip: the true offset lies within offsetMs ± this (ms). */
  uncertaintyMs: z.number().nonnegative().nullable(),
  /** The shortest round trip measured (ms). */
  rttMs: z.number().nonnegative().nullable(),
});
export type ShardMember = z.infer<typeof ShardMemberSchema>;

/**
 * A run split into shards: its id (every shard's file carries the same), how many shards, the
 * fingerprint of the config they all ran (the plan and seed follow from it), and each shard. In a
 * shard's own file, `shard` says which one it is; the coordinator's (merged) file has none.
 */
export const ShardsInfoSchema = z.object({
  runId: z.string(),
  count: z.number().int().positive(),
  configHash: z.string(),
  coordinator: z.string(),
  shard: z.number().int().nonnegative().optional(),
  members: z.array(ShardMemberSchema),
});
export type ShardsInfo = z.infer<typeof ShardsInfoSchema>;

/** The client's side of a step: its worker count, each worker's load and the start skew between them. */
export const ClientLoadSchema = z.object({
  workers: z.number().int().positive(),
  /** Per worker that had a share of the step, by worker number. */
  threads: z.array(ThreadLoadSchema.extend({ worker: z.number().int().nonnegative() })),
  /** How much later than the common start instant the last worker began than the first (ms); null for one worker. */
  startSkewMs: z.number().nonnegative().nullable(),
});
export type ClientLoad = z.infer<typeof ClientLoadSchema>;

/** Whether the server's prefix cache was emptied before a step (`cache.resetBeforeStep`), and how, or why not. */
export const CacheResetSchema = z.object({ done: z.boolean(), how: z.string() });
export type CacheReset = z.infer<typeof CacheResetSchema>;

/**
 * Failover moved an endpoint's share of the requests (`out`: after its consecutive failures, for
 * its cool-off) or gave it back (`back`: a request to it succeeded again after a cool-off).
 */
export const FailoverEventSchema = z.object({
  atMs: z.number(),
  endpoint: z.number().int().nonnegative(),
  event: z.enum(['out', 'back']),
  /** Why: the failures that put it out, or what brought it back. */
  reason: z.string(),
});
export type FailoverEvent = z.infer<typeof FailoverEventSchema>;

/**
 * A step's TTFO: its own figure when a response reasoned, else its TTFT, which is the same thing
 * when nothing reasoned (and all an older file has). A step whose responses reasoned but never
 * answered has none (null), not its TTFT.
 */
export const ttfoStatsOf = (summary: Pick<StepSummary, 'ttfoMs' | 'ttftMs'>): Stats | null => (summary.ttfoMs === undefined ? summary.ttftMs : summary.ttfoMs);

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
  /** Asked for with `cache.resetBeforeStep`: whether the server's prefix cache was emptied before the step. */
  cacheReset: CacheResetSchema.optional(),
  /**
   * When the step started and ended in milliseconds on the run's clock, the time axis of server
   * and GPU samples; a record's times plus `startMs` are on it too. Absent in older and imported files.
   */
  startMs: z.number().nonnegative().optional(),
  endMs: z.number().nonnegative().optional(),
  /** Null while the step is still running (a partial file). */
  summary: StepSummarySchema.nullable(),
  /** How the step ran other than planned: a sweep step run past its duration to measure a rate, an open loop's turns spent before its schedule. */
  note: z.string().optional(),
  /** What the client's own threads went through (absent in older and imported files); a client-bound step's warning is in its summary's `warnings`. */
  client: ClientLoadSchema.optional(),
  /** In a run over several endpoints: each endpoint's figures over the step (its records alone), beside the step's summary. */
  endpoints: z.array(z.object({ endpoint: z.number().int().nonnegative(), summary: StepSummarySchema })).optional(),
  /** Endpoints taken out and back by failover during the step (times in ms from the step start). */
  failovers: z.array(FailoverEventSchema).optional(),
  /**
   * Whether the server was idle when the step began, and how long the run waited for it (the
   * server goes on with requests queued by the step before, which the client cancelled). Absent in
   * older and imported files.
   */
  startedOn: z
    .object({
      /** `idle`: its running and waiting gauges read 0; `busy`: they did not within the cool-down; `unknown`: no gauge to read (a fixed cool-down, or none, was waited). */
      server: z.enum(['idle', 'busy', 'unknown']),
      waitedSec: z.number().nonnegative(),
      /** The gauges at the start, when read. */
      running: z.number().nonnegative().nullable(),
      waiting: z.number().nonnegative().nullable(),
    })
    .optional(),
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

/**
 * The run's token cross-check as it was made: the server's count against the client's, whose
 * estimated requests give a range (from `clientTokens` to `clientTokensAtMost`; null when nothing
 * bounds them), within `tolerance`; `agree` when the server's count lies in that range.
 */
export const TokenCrossCheckSchema = z.object({
  serverTokens: z.number(),
  clientTokens: z.number(),
  clientTokensAtMost: z.number().nullable(),
  tolerance: z.number(),
  agree: z.boolean(),
});
export type TokenCrossCheck = z.infer<typeof TokenCrossCheckSchema>;

export const ResultDocumentSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  tool: z.object({ name: z.string(), version: z.string() }),
  createdAt: z.string(),
  finishedAt: z.string().nullable().optional(),
  endpoint: z.object({ baseUrl: z.string(), api: ApiKindSchema, model: z.string() }),
  /**
   * A run over several endpoints: each one (URLs redacted), in the order records' `endpoint`
   * index them, and how requests were spread. `endpoint` above is the first.
   */
  endpoints: z.array(z.object({ baseUrl: z.string(), api: ApiKindSchema, model: z.string() })).optional(),
  endpointStrategy: z.enum(['round-robin', 'least-in-flight']).optional(),
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
  /** Worker threads that sent the requests, and why that many (`workers` in the config); absent in older files. */
  workers: WorkersInfoSchema.optional(),
  /** The shards of a run split over processes or machines (in a shard run a record's `worker` is its shard); absent otherwise. */
  shards: ShardsInfoSchema.optional(),
  steps: z.array(StepSchema),
  /** Samples taken after the last step ended (the final scrape), written when the run ends. */
  sampledAfterSteps: z.array(MetricSeriesSchema).optional(),
  /**
   * The run's end compared the increase of the server's generated-token counter with the tokens the
   * client received (docs/server-metrics.md, "Cross-check"); absent when it could not (no counter,
   * /metrics read fewer than twice, a run cut short) or the file is older.
   */
  tokenCrossCheck: TokenCrossCheckSchema.optional(),
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
/** RequestRecordSchema with its chunk times checked in one loop: for records read in bulk (files, a worker's batches). */
export const RequestRecordReadSchema = RequestRecordSchema.extend({ chunkMs: finiteNumbers });
const ResultDocumentReadSchema = ResultDocumentSchema.extend({
  steps: z.array(StepSchema.extend({ requests: z.array(RequestRecordReadSchema) })),
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
    const reason = messageOf(e);
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
