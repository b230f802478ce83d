/**
 * What a user asks for: the run configuration. One schema serves the command line's `--config`
 * file, the extension's settings and profile presets, and the `config` echoed in a result file.
 */
import * as z from 'zod';
import { LIMITS } from './limits';
import { DEFAULT_MAX_SERVER_SERIES, SERVER_METRICS_INTERVAL } from './server-metrics';
import { checkTraceSource, TRACE_SOURCE_FIELDS } from './trace';

const positiveInt = z.number().int().positive();

export { LIMITS } from './limits';

const between = (min: number, max: number, unit: string) =>
  z
    .number()
    .int()
    .min(min, `must be at least ${min} ${unit}`)
    .max(max, `must be at most ${max.toLocaleString('en-US')} ${unit} (allowed: ${min} to ${max.toLocaleString('en-US')})`);
const timerMs = between(1, LIMITS.timerMs, 'ms, the longest timer Node.js keeps (about 24.8 days)');
const tokenCount = between(1, LIMITS.tokens, 'tokens');
const concurrency = between(1, LIMITS.concurrency, 'requests in flight');
const requestCount = between(1, LIMITS.requests, 'requests');
const stepSeconds = z
  .number()
  .nonnegative()
  .max(LIMITS.durationSec, `must be at most ${LIMITS.durationSec.toLocaleString('en-US')} s, the longest timer Node.js keeps`);

/** A token count: fixed, or drawn from a clipped normal distribution. */
export const TokenCountSchema = z.union([
  tokenCount,
  z
    .object({
      mean: z.number().positive().max(LIMITS.tokens, `must be at most ${LIMITS.tokens.toLocaleString('en-US')} tokens`),
      stdev: z.number().nonnegative().max(LIMITS.tokens, `must be at most ${LIMITS.tokens.toLocaleString('en-US')} tokens`).default(0),
      min: tokenCount.optional(),
      max: tokenCount.optional(),
    })
    .strict()
    .refine((d) => d.min === undefined || d.max === undefined || d.min <= d.max, {
      message: 'min must not exceed max',
    }),
  z
    .object({
      mean: tokenCount,
      /**
       * vLLM's `--random-range-ratio`: a whole number drawn uniformly from
       * [floor(mean * (1 - r)), ceil(mean * (1 + r))], the lower bound at least 1.
       */
      rangeRatio: z.number().min(0).lt(1, 'must be below 1 (vLLM allows 0 up to, not including, 1)'),
    })
    .strict(),
]);
export type TokenCount = z.infer<typeof TokenCountSchema>;

/**
 * Which OpenAI-compatible API the run calls: chat completions, completions, the Responses API
 * (`/v1/responses`, typed events) or embeddings (`/v1/embeddings`, no generation).
 */
export const ApiKindSchema = z.enum(['chat', 'completions', 'responses', 'embeddings']);
export type ApiKind = z.infer<typeof ApiKindSchema>;

/** Whether the API takes chat messages (and the server lays them out with the model's chat template). */
export const takesMessages = (api: ApiKind): boolean => api === 'chat' || api === 'responses';
/** Whether the API generates text (embeddings do not: no TTFT, ITL, TPOT or output tokens). */
export const generatesText = (api: ApiKind): boolean => api !== 'embeddings';

/**
 * A tag name whose `<name>...</name>` blocks inside a response's text are the model's reasoning:
 * for servers that run no reasoning parser (the thoughts arrive in `content`).
 */
export const ReasoningTagSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, 'must be a tag name like think (for <think>...</think>): a letter, then letters, digits, _ or -');

export const EndpointConfigSchema = z
  .object({
    /** Base URL up to and including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
    baseUrl: z.url({ protocol: /^https?$/, error: 'baseUrl must be an http:// or https:// URL' }),
    api: ApiKindSchema.default('chat'),
    model: z.string().min(1, 'model must name the served model'),
    /** Extra request headers. Values of secret-looking names are redacted in result files. */
    headers: z.record(z.string(), z.string()).default({}),
    /** Name of an environment variable holding the API key (never the key itself). */
    apiKeyEnv: z.string().min(1).optional(),
    /**
     * The model writes its reasoning inside `<TAG>...</TAG>` in the text (no reasoning parser on the
     * server): the client splits it off as it does `reasoning_content` (docs/metrics.md, "Reasoning").
     */
    reasoningTags: ReasoningTagSchema.optional(),
  })
  .strict();
export type EndpointConfig = z.infer<typeof EndpointConfigSchema>;

export const RequestConfigSchema = z
  .object({
    stream: z.boolean().default(true),
    /**
     * Whether a streaming request asks the server for its token counts (`stream_options.include_usage`).
     * Off for servers and gateways that reject the field (or `extraBody.stream_options.include_usage: false`):
     * counts then come from the tokenizer or the estimate, and every view marks them as such.
     */
    usage: z.boolean().default(true),
    /** Passed through into every request body (ignore_eos, min_tokens, temperature, stop, ...). */
    extraBody: z.record(z.string(), z.unknown()).default({}),
    connectTimeoutMs: timerMs.default(10_000),
    /** Longest silence between two reads of the response body. */
    idleTimeoutMs: timerMs.default(60_000),
    /** Longest time for a whole request, from send to the last byte. */
    totalTimeoutMs: timerMs.default(600_000),
  })
  .strict();
export type RequestConfig = z.infer<typeof RequestConfigSchema>;

/** A delay in milliseconds: fixed, or drawn uniformly between two bounds for each request. */
export const DelayRangeSchema = z.union([
  timerMs,
  z
    .object({ min: between(0, LIMITS.timerMs, 'ms'), max: timerMs })
    .strict()
    .refine((d) => d.min <= d.max, { message: 'min must not exceed max', path: ['max'] }),
]);
export type DelayRange = z.infer<typeof DelayRangeSchema>;

/**
 * Cancellation by design (AIPerf's `--request-cancellation-rate` and `-delay`): this share of the
 * measured requests, chosen from the seed, is aborted this long after it was sent, as users who
 * stop a reply do. Such requests count apart (docs/metrics.md, "Which requests count").
 */
export const CancelConfigSchema = z
  .object({
    rate: z.number().gt(0, 'must be above 0').max(1, 'must be at most 1 (a share of the requests)'),
    afterMs: DelayRangeSchema,
  })
  .strict();
export type CancelConfig = z.infer<typeof CancelConfigSchema>;

/** `MS` or `MS-MS` (the flag and setting form of a DelayRange), or null when the text is neither. */
export function parseDelayRange(text: string): DelayRange | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?)\s*)?$/.exec(text);
  if (match === null) return null;
  const low = Math.round(Number(match[1]));
  if (match[2] === undefined) return low;
  return { min: low, max: Math.round(Number(match[2])) };
}

/**
 * vLLM's ShareGPT pruning, applied with `outputTokens: 'reply'`: a pair is dropped when its prompt
 * or its reply is shorter than `minTokens`, its prompt longer than `maxPromptTokens`, or prompt and
 * reply together longer than `maxTotalTokens`.
 */
export const REPLY_FILTERS = { minTokens: 4, maxPromptTokens: 1024, maxTotalTokens: 2048 } as const;

/** Dataset formats whose rows record a reply after the prompt. */
export const FORMATS_WITH_REPLIES = ['sharegpt'] as const;

export const DatasetFormatSchema = z.enum(['openqa', 'sharegpt', 'lines', 'jsonl']);
export type DatasetFormat = z.infer<typeof DatasetFormatSchema>;

export const WorkloadConfigSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('synthetic'),
      inputTokens: TokenCountSchema.default(512),
      outputTokens: TokenCountSchema.default(128),
      /** Tokens of a prefix shared by every prompt (exercises prefix caching). */
      sharedPrefixTokens: between(0, LIMITS.tokens, 'tokens').default(0),
      /**
       * Distinct shared prefixes (vLLM's prefix repetition, AIPerf's shared system prompts): request
       * i opens with prefix i mod prefixCount, so each is used equally often.
       */
      prefixCount: between(1, LIMITS.prefixes, 'prefixes').default(1),
      /** Inputs per /v1/embeddings request (api embeddings), each of inputTokens tokens; 1 when unset. */
      embeddingBatch: between(1, LIMITS.embeddingBatch, 'inputs per request').optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('dataset'),
      path: z.string().min(1),
      /** Unset: from the file's extension (.jsonl is jsonl, .txt is lines); other files need it. */
      format: DatasetFormatSchema.optional(),
      /**
       * max_tokens sent with each request; unset leaves it to the server. `reply`: the token count
       * of the reply recorded after each prompt (ShareGPT), with vLLM's filters (see REPLY_FILTERS).
       */
      outputTokens: z.union([TokenCountSchema, z.literal('reply')]).optional(),
      minPromptTokens: between(0, LIMITS.tokens, 'tokens').optional(),
      maxPromptTokens: tokenCount.optional(),
      /** Inputs per /v1/embeddings request (api embeddings): this many prompts of the file in turn; 1 when unset. */
      embeddingBatch: between(1, LIMITS.embeddingBatch, 'inputs per request').optional(),
    })
    .strict(),
]);
export type WorkloadConfig = z.infer<typeof WorkloadConfigSchema>;

export const ArrivalSchema = z.enum(['constant', 'poisson', 'gamma']);
export type Arrival = z.infer<typeof ArrivalSchema>;

const rate = z
  .number()
  .positive()
  .max(LIMITS.rate, `must be at most ${LIMITS.rate.toLocaleString('en-US')} requests per second (allowed: above 0 up to ${LIMITS.rate.toLocaleString('en-US')})`);
/** The profile presets "Run LLM Benchmark" offers (src/run/presets.ts), by id: a tune's benchmark may name one. */
export const RUN_PRESET_IDS = ['quick', 'concurrency', 'rate', 'ramp', 'throughput', 'sweep'] as const;

export const RampStrategySchema = z.enum(['linear', 'exponential']);

/** vLLM's `--ramp-up-strategy`: request i of n is sent at start + (end - start) * i / (n - 1) req/s, or start * (end / start)^(i / (n - 1)). */
export const RampConfigSchema = z
  .object({
    strategy: RampStrategySchema,
    startRate: rate,
    endRate: rate,
  })
  .strict();
export type RampConfig = z.infer<typeof RampConfigSchema>;

const steps = <T extends z.ZodType>(item: T) =>
  z.array(item).min(1).max(LIMITS.steps, `at most ${LIMITS.steps} steps per run`);

export const ProfileConfigSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('synchronous') }).strict(),
  z.object({ kind: z.literal('concurrency'), levels: steps(concurrency) }).strict(),
  z
    .object({
      kind: z.literal('rate'),
      /** Requests per second; one step per value. */
      rates: steps(rate).optional(),
      /** Instead of `rates`: one step whose target rate moves from startRate to endRate over its requests. */
      ramp: RampConfigSchema.optional(),
      arrival: ArrivalSchema.default('poisson'),
      /** Gamma shape: 1 is Poisson, below 1 burstier, above 1 smoother (vLLM's --burstiness). */
      burstiness: z.number().positive().default(1),
      maxConcurrency: concurrency.optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('schedule'),
      /** Absolute send times in seconds from step start, ascending. */
      times: z.array(z.number().nonnegative()).min(1).max(LIMITS.requests, `at most ${LIMITS.requests.toLocaleString('en-US')} send times`),
      maxConcurrency: concurrency.optional(),
    })
    .strict(),
  z.object({ kind: z.literal('throughput'), maxConcurrency: concurrency.optional() }).strict(),
  /**
   * A production trace replayed at its recorded times (scaled by timeScale): each row one request,
   * its prompt built to the row's input tokens with the run's tokenizer (sharing blocks where the
   * rows share hash ids), its max_tokens the row's output tokens. src/format/trace.ts says what
   * each field means; the file is read as the step goes, never held whole.
   */
  z
    .object({
      kind: z.literal('trace'),
      ...TRACE_SOURCE_FIELDS,
      /** At most this many requests in flight: a request due while the cap is full waits, and its lateness shows it. */
      maxConcurrency: concurrency.optional(),
    })
    .strict()
    .superRefine(checkTraceSource),
  z
    .object({
      kind: z.literal('sweep'),
      /** Number of rates evenly spaced between the synchronous and throughput rates. */
      rateCount: between(1, LIMITS.steps, 'rates').default(8),
      arrival: ArrivalSchema.default('constant'),
      burstiness: z.number().positive().default(1),
    })
    .strict(),
]);
export type ProfileConfig = z.infer<typeof ProfileConfigSchema>;

/**
 * A sweep's rate steps: `rateCount` rates evenly spaced strictly between the measured
 * synchronous and throughput request rates (GuideLLM's sweep).
 */
export function sweepRates(synchronousRate: number, throughputRate: number, rateCount: number): number[] {
  return Array.from({ length: rateCount }, (_, i) => synchronousRate + ((throughputRate - synchronousRate) * (i + 1)) / (rateCount + 1));
}

export const LimitsConfigSchema = z
  .object({
    /** Measured requests per step (warm-up not included). */
    requests: requestCount.optional(),
    /** Seconds per step. With `requests` too, the step ends at whichever comes first. */
    durationSec: z
      .number()
      .positive()
      .max(LIMITS.durationSec, `must be at most ${LIMITS.durationSec.toLocaleString('en-US')} s, the longest timer Node.js keeps (allowed: above 0 up to ${LIMITS.durationSec.toLocaleString('en-US')})`)
      .optional(),
    /**
     * Concurrency steps send at least this many measured requests per concurrent slot: a step at
     * concurrency 64 with 4 measures at least 256 (`requests` stays the least any step sends). Fewer
     * requests than a few rounds of its slots leave a step filling up and draining, never at its level.
     */
    requestsPerConcurrency: between(1, LIMITS.requests, 'requests per slot').optional(),
    /** Requests sent at the start of each step and left out of its statistics. */
    warmup: between(0, LIMITS.requests, 'requests').default(0),
    /** Seconds from each step's start whose sends are warm-up too: left out of every figure, as `warmup` requests are. */
    warmupSec: stepSeconds.optional(),
    /** The step ends once this many requests have failed. */
    maxErrors: positiveInt.optional(),
    /**
     * A step cut by `durationSec` stops sending, then lets the requests in flight finish for up to
     * this long before cancelling them; they count toward latency, not toward the step's rates.
     * Default STEP_END_DEFAULTS.drainSec.
     */
    drainSec: stepSeconds.optional(),
    /**
     * Before each step, the longest wait for the server's running and waiting gauges to read 0.
     * Without gauges, the pause after a step that cancelled requests (an estimate of how long the
     * server takes to finish them, at most this). 0: no wait. Default STEP_END_DEFAULTS.cooldownSec.
     */
    cooldownSec: stepSeconds.optional(),
    /** A step ends once more than this share of its ended requests failed (once `maxErrorRateMin` have ended). */
    maxErrorRate: z.number().gt(0, 'must be above 0 (a share of failed requests, like 0.1 for 10%)').max(1, 'must be at most 1 (a share, like 0.1 for 10%)').optional(),
    /** Requests that must have ended before `maxErrorRate` judges. Default STEP_END_DEFAULTS.maxErrorRateMin. */
    maxErrorRateMin: requestCount.optional(),
    /** What too high an error rate ends: the step (the run goes on) or the run. Default `step`. */
    maxErrorRateScope: z.enum(['step', 'run']).optional(),
    /**
     * Open-loop steps (rate, sweep, ramp, schedule) end early when their queue grows without bound
     * (docs/metrics.md, "Stop guards"), and a sweep or a list of rates skips the higher rates.
     * Default true.
     */
    saturationStop: z.boolean().optional(),
    /** The sustained window the over-saturation guard judges, seconds. Default STEP_END_DEFAULTS.saturationWindowSec. */
    saturationWindowSec: z.number().min(2, 'must be at least 2 s (the guard needs several samples)').max(3600, 'must be at most 3,600 s').optional(),
  })
  .strict();

/**
 * Defaults of the limits that shape a step's start and end (docs/metrics.md says why each):
 * - drainSec 30: a reply of 1,000 tokens at a loaded 30 ms per token finishes within it, so a step
 *   cut by its duration keeps the slow tail of its latencies instead of cancelling it; a sweep of
 *   ten steps spends at most five minutes more.
 * - cooldownSec 30: a wait ends as soon as the server reads idle (vLLM and SGLang abort what a
 *   client abandons, so usually at once); 30 s finishes a backlog like llama.cpp's eight queued
 *   requests (4.65 s) several times over, and a server busy longer than that is serving someone
 *   else or is past saving: the step is warned about rather than waited for.
 * - maxErrorRateMin 20: one failure in the first few requests is not a rate.
 * - saturationWindowSec 10: ten 0.5 s samples per half-window, long enough to tell a queue that
 *   keeps growing from the Poisson noise of an open loop.
 */
export const STEP_END_DEFAULTS = { drainSec: 30, cooldownSec: 30, maxErrorRateMin: 20, saturationWindowSec: 10 } as const;
export type LimitsConfig = z.infer<typeof LimitsConfigSchema>;

/**
 * The measured requests of a step (warm-up not included): `requests`, or for a concurrency step
 * `requestsPerConcurrency` times its concurrency when that is more; null when only a duration ends it.
 */
export function stepRequests(limits: Pick<LimitsConfig, 'requests' | 'requestsPerConcurrency'>, concurrency?: number): number | null {
  const bySlots = concurrency !== undefined && limits.requestsPerConcurrency !== undefined ? Math.min(limits.requestsPerConcurrency * concurrency, LIMITS.requests) : undefined;
  if (limits.requests === undefined) return bySlots ?? null;
  return Math.max(limits.requests, bySlots ?? 0);
}

export const SloConfigSchema = z
  .object({
    ttftMs: z.number().positive().optional(),
    /** Time to the first answer token (TTFO: reasoning left out; docs/metrics.md). */
    ttfoMs: z.number().positive().optional(),
    tpotMs: z.number().positive().optional(),
    e2eMs: z.number().positive().optional(),
  })
  .strict();
export type SloConfig = z.infer<typeof SloConfigSchema>;

/**
 * Scraping the server's Prometheus /metrics during a run (docs/server-metrics.md). Unset `url`:
 * the endpoint's server root (its base URL without /v1) plus /metrics.
 */
export const ServerMetricsConfigSchema = z
  .object({
    url: z
      .union([z.literal('off'), z.url({ protocol: /^https?$/, error: 'must be "off" or an http:// or https:// URL, like http://127.0.0.1:8000/metrics' })])
      .optional(),
    intervalMs: between(SERVER_METRICS_INTERVAL.minMs, SERVER_METRICS_INTERVAL.maxMs, 'ms between two scrapes').default(SERVER_METRICS_INTERVAL.defaultMs),
    /** Metric families (or sample names) kept beyond those the views read; histogram buckets are kept only for these. */
    allowList: z.array(z.string().min(1)).max(1000, 'at most 1000 names').default([]),
    /** Series stored at most; further series are dropped with one warning. */
    maxSeries: between(1, 10_000, 'series').default(DEFAULT_MAX_SERVER_SERIES),
  })
  .strict();
export type ServerMetricsConfig = z.infer<typeof ServerMetricsConfigSchema>;
export const ConcurrencyUnitSchema = z.enum(['sessions', 'requests']);
export type ConcurrencyUnit = z.infer<typeof ConcurrencyUnitSchema>;

export const SessionsConfigSchema = z
  .object({
    /**
     * Turns per session: for a synthetic workload, how many (each of the workload's input and
     * output lengths); for a dataset, at most this many of each conversation's user turns (all when unset).
     */
    turns: between(1, LIMITS.turns, 'turns').optional(),
    /** The user's pause between receiving a reply and sending the next turn. */
    thinkTimeMs: between(0, LIMITS.timerMs, 'ms').default(0),
    /**
     * What a closed-loop profile's concurrency counts: sessions open at once (each sends its next
     * turn after its reply and think time; EvalScope's way), or requests in flight (a session that
     * thinks leaves its slot to another; AIPerf's way).
     */
    concurrencyUnit: ConcurrencyUnitSchema.default('sessions'),
  })
  .strict();
export type SessionsConfig = z.infer<typeof SessionsConfigSchema>;

/**
 * Worker threads that send a run's requests (docs/architecture.md): a whole number, or `auto`,
 * which takes more than one only for a load one worker cannot keep easily (src/load/workers.ts).
 */
export const WorkersSchema = z.union([z.literal('auto'), between(1, LIMITS.workers, 'workers')]);
export type Workers = z.infer<typeof WorkersSchema>;
/** A run's salt: a few letters and digits, far shorter than a KV-cache block (16 tokens) in any tokenizer. */
export const PROMPT_SALT_PATTERN = /^[a-z0-9]{1,8}$/;

/**
 * A server's prefix cache across runs (docs/workloads.md, "Warm caches"). By default each run's
 * prompts open with a salt of their own, so that a second run against a long-lived server is not
 * served from the first run's cache.
 */
export const CacheConfigSchema = z
  .object({
    /** Send the prompts every run of this seed sends, with no salt: a long-lived server's prefix cache then serves them again. */
    reusePrompts: z.boolean().default(false),
    /**
     * The text every prompt of the run opens with (then a space). Drawn for each run when unset,
     * and written into the result's config; give one to send again exactly the prompts of a run.
     */
    salt: z.string().regex(PROMPT_SALT_PATTERN, 'must be 1 to 8 lowercase letters and digits, like "k3f9a2"').optional(),
    /** Ask the server to empty its prefix cache before each step, where it offers a way (vLLM, SGLang). */
    resetBeforeStep: z.boolean().default(false),
  })
  .strict();
export type CacheConfig = z.infer<typeof CacheConfigSchema>;

/** How a run spreads its requests over its endpoints (`endpoints`): in turn, or to the one with the fewest in flight. */
export const ENDPOINT_STRATEGIES = ['round-robin', 'least-in-flight'] as const;
export const EndpointStrategySchema = z.enum(ENDPOINT_STRATEGIES);
export type EndpointStrategy = z.infer<typeof EndpointStrategySchema>;

/**
 * Failover between endpoints: an endpoint whose last `consecutiveErrors` requests all failed
 * without an answer from it (refused or timed-out connections, a connection closed before any
 * response, HTTP 5xx) is out for `coolOffSec`; the requests it would have had go to the next
 * endpoint that is not out. After its cool-off it gets requests again, and one more such failure
 * puts it out again. Without failover, an endpoint's share of the requests goes to it whatever it answers.
 */
export const FailoverConfigSchema = z
  .object({
    consecutiveErrors: between(1, 1000, 'failed requests').default(3),
    coolOffSec: z.number().positive().max(3600, 'must be at most 3600 s').default(10),
  })
  .strict();
export type FailoverConfig = z.infer<typeof FailoverConfigSchema>;

export const LabelsSchema = z.record(z.string(), z.string());
export type Labels = z.infer<typeof LabelsSchema>;

/**
 * Label keys read as another, one key per meaning: the palette and the GPU detection once wrote
 * `hardware` where the command line and the importers write `gpu`, so that runs made both ways
 * grouped apart. Files keep what they hold; every reader sees the one key.
 */
export const LABEL_ALIASES: Readonly<Record<string, string>> = { hardware: 'gpu' };

/** The labels under their one key each (LABEL_ALIASES); an alias stays as it is when its key is set too, so nothing is lost. */
export function canonicalLabels(labels: Labels): Labels {
  if (!Object.keys(labels).some((key) => key in LABEL_ALIASES)) return labels;
  const out: Labels = {};
  for (const [key, value] of Object.entries(labels)) {
    const canonical = LABEL_ALIASES[key];
    out[canonical !== undefined && !(canonical in labels) ? canonical : key] = value;
  }
  return out;
}

export const RunConfigSchema = z
  .object({
    /** The server; with `endpoints`, the first of them (front ends fill it in). */
    endpoint: EndpointConfigSchema,
    /**
     * Replicas of one model to spread the load over, each with its own base URL, model name, key
     * variable and headers; requests go to them by `endpointStrategy`, and every record says which
     * one it went to (its index here). Unset: `endpoint` alone.
     */
    endpoints: z.array(EndpointConfigSchema).min(1).max(LIMITS.endpoints, `at most ${LIMITS.endpoints} endpoints`).optional(),
    /** Unset: round-robin. */
    endpointStrategy: EndpointStrategySchema.optional(),
    /** Moves a failing endpoint's share to the others for a while (FailoverConfigSchema); unset: no failover. */
    failover: FailoverConfigSchema.optional(),
    request: RequestConfigSchema.default(RequestConfigSchema.parse({})),
    workload: WorkloadConfigSchema.default(WorkloadConfigSchema.parse({ kind: 'synthetic' })),
    /** Path to a Hugging Face tokenizer.json used to count tokens. */
    tokenizer: z.string().min(1).optional(),
    profile: ProfileConfigSchema.default({ kind: 'synchronous' }),
    limits: LimitsConfigSchema.default(LimitsConfigSchema.parse({})),
    slo: SloConfigSchema.optional(),
    /** Aborts a share of the requests mid-stream, by design. */
    cancel: CancelConfigSchema.optional(),
    labels: LabelsSchema.default({}),
    seed: z.number().int().default(42),
    /** Unset: `auto`. */
    workers: WorkersSchema.optional(),
    serverMetrics: ServerMetricsConfigSchema.default(ServerMetricsConfigSchema.parse({})),
    cache: CacheConfigSchema.default(CacheConfigSchema.parse({})),
    /**
     * Runs the whole profile `count` times into one file (AIPerf's multi-run): every step once per
     * repeat, `pauseSec` apart; views give each figure as a mean with a 95% interval across repeats.
     */
    /**
     * Multi-turn conversations: each session sends its turns in order, every turn carrying the
     * conversation so far (the assistant's part being the text actually received).
     */
    sessions: SessionsConfigSchema.optional(),
    repeat: z
      .object({
        count: between(1, LIMITS.steps, 'repeats'),
        pauseSec: z.number().nonnegative().max(LIMITS.durationSec, `must be at most ${LIMITS.durationSec.toLocaleString('en-US')} s`).default(0),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((c) => c.limits.requests !== undefined || c.limits.durationSec !== undefined || c.profile.kind === 'trace', {
    message: 'limits needs requests or durationSec, or a step would never end',
    path: ['limits'],
  })
  .refine((c) => c.endpoints === undefined || (c.endpoints[0]?.baseUrl === c.endpoint.baseUrl && c.endpoints[0]?.model === c.endpoint.model), {
    message: 'endpoint must be the first of endpoints (leave endpoint out: it is filled in from endpoints)',
    path: ['endpoint'],
  })
  .refine((c) => c.profile.kind !== 'trace' || c.workload.kind === 'synthetic', {
    message: "a trace profile builds its prompts from the trace's lengths: it takes no dataset",
    path: ['workload'],
  })
  .refine((c) => c.profile.kind !== 'trace' || c.sessions === undefined, {
    message: 'a trace profile replays single requests: it takes no sessions',
    path: ['sessions'],
  })
  .refine((c) => c.sessions === undefined || c.endpoint.api !== 'embeddings', {
    message: 'embeddings have no conversation: sessions need api chat, completions or responses',
    path: ['sessions'],
  })
  .refine((c) => c.workload.embeddingBatch === undefined || c.endpoint.api === 'embeddings', {
    message: 'an embedding batch applies to api embeddings only',
    path: ['workload', 'embeddingBatch'],
  })
  .refine((c) => c.sessions === undefined || c.workload.kind === 'dataset' || c.sessions.turns !== undefined, {
    message: 'synthetic sessions need a number of turns (sessions.turns, --turns N)',
    path: ['sessions', 'turns'],
  })
  .refine((c) => c.sessions === undefined || c.workload.kind === 'synthetic' || c.workload.format === 'sharegpt' || c.workload.format === 'jsonl' || (c.workload.format === undefined && c.workload.path.toLowerCase().endsWith('.jsonl')), {
    message: 'sessions from a dataset need conversations: a sharegpt file or jsonl rows with "messages"',
    path: ['sessions'],
  })
  // Worded as zod words a missing field, so that front ends say "--rate is required with --profile rate".
  .refine((c) => c.profile.kind !== 'rate' || c.profile.rates !== undefined || c.profile.ramp !== undefined, {
    message: 'Invalid input: expected rates (or a ramp), received undefined',
    path: ['profile', 'rates'],
  })
  .refine((c) => c.profile.kind !== 'rate' || c.profile.rates === undefined || c.profile.ramp === undefined, {
    message: 'a rate profile takes rates (one step per rate) or a ramp (one step from a start rate to an end rate), not both',
    path: ['profile'],
  })
  .refine((c) => c.profile.kind !== 'rate' || c.profile.ramp === undefined || c.limits.requests !== undefined, {
    message: 'a ramp spreads its rates over the step\'s requests: set limits.requests (a duration alone does not say how many)',
    path: ['limits', 'requests'],
  })
  .refine((c) => c.profile.kind !== 'rate' || c.limits.requests !== undefined || Math.max(...(c.profile.rates ?? [])) * (c.limits.durationSec ?? 0) <= LIMITS.requests, {
    message: `rate times durationSec must be at most ${LIMITS.requests.toLocaleString('en-US')} requests per step: lower one, or set limits.requests`,
    path: ['limits', 'durationSec'],
  });
export type RunConfig = z.infer<typeof RunConfigSchema>;
/** A run configuration as written by a person: defaults not yet applied. */
export type RunConfigInput = z.input<typeof RunConfigSchema>;

/** The key a config file may use to name its JSON Schema; it is not part of the run configuration. */
export const CONFIG_FILE_SCHEMA_KEY = '$schema';

/** A config file's object without its `$schema` key, ready for RunConfigSchema. */
export function withoutSchemaKey(value: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...value };
  delete rest[CONFIG_FILE_SCHEMA_KEY];
  return rest;
}

/** Header names whose values are secrets: never written to a result, a log or a webview. */
export const SECRET_HEADER_PATTERN = /auth|key|token|secret|cookie|session|password/i;

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, SECRET_HEADER_PATTERN.test(name) ? '<redacted>' : value]),
  );
}

/**
 * A base URL as it may be stored or shown: without `user:password@` and without query
 * parameters whose names look secret (`?key=...`, `?api_key=...`); others such as `api-version` stay.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  parsed.username = '';
  parsed.password = '';
  for (const name of [...parsed.searchParams.keys()]) if (SECRET_HEADER_PATTERN.test(name)) parsed.searchParams.delete(name);
  return parsed.href;
}

/** Shorter values would be replaced wherever they happen to occur in text. */
const MIN_SECRET_LENGTH = 4;

/**
 * The secrets a run knows: the API key, secret header values, and the credentials of its base
 * URL. A server may echo any of them in an error body, which would then reach a file or a terminal.
 */
export function knownSecrets(endpoint: EndpointConfig, apiKey: string | undefined): string[] {
  const secrets = [apiKey ?? ''];
  for (const [name, value] of Object.entries(endpoint.headers)) {
    if (SECRET_HEADER_PATTERN.test(name)) secrets.push(value, value.replace(/^\S+\s+/, ''));
  }
  try {
    const url = new URL(endpoint.baseUrl);
    secrets.push(decodeURIComponent(url.username), decodeURIComponent(url.password));
    for (const [name, value] of url.searchParams) if (SECRET_HEADER_PATTERN.test(name)) secrets.push(value);
  } catch {
    // An unparsable URL carries nothing to hide here; the schema refuses it anyway.
  }
  return [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
}

/** The endpoints a run sends to: `endpoints`, or the one `endpoint`. */
export function endpointsOf(config: Pick<RunConfig, 'endpoint' | 'endpoints'>): EndpointConfig[] {
  return config.endpoints ?? [config.endpoint];
}

/** The secrets of every endpoint of a run (knownSecrets of each, with its own key), longest first. */
export function runSecrets(config: Pick<RunConfig, 'endpoint' | 'endpoints'>, apiKeys: readonly (string | undefined)[]): string[] {
  const all = endpointsOf(config).flatMap((endpoint, i) => knownSecrets(endpoint, apiKeys[i]));
  return [...new Set(all)].sort((a, b) => b.length - a.length);
}

/** An endpoint as a result file or a view may show it: its URL redacted, its secret headers too. */
export function shownEndpoint(endpoint: EndpointConfig): EndpointConfig {
  return { ...endpoint, baseUrl: redactUrl(endpoint.baseUrl), headers: redactHeaders(endpoint.headers) };
}

/** `text` with every occurrence of each secret replaced by `<redacted>`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) redacted = redacted.split(secret).join('<redacted>');
  return redacted;
}
