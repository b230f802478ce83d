/**
 * What a user asks for: the run configuration. One schema serves the command line's `--config`
 * file, the extension's settings and profile presets, and the `config` echoed in a result file.
 */
import * as z from 'zod';

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();

/** A token count: fixed, or drawn from a clipped normal distribution. */
export const TokenCountSchema = z.union([
  positiveInt,
  z
    .object({
      mean: z.number().positive(),
      stdev: z.number().nonnegative().default(0),
      min: positiveInt.optional(),
      max: positiveInt.optional(),
    })
    .strict()
    .refine((d) => d.min === undefined || d.max === undefined || d.min <= d.max, {
      message: 'min must not exceed max',
    }),
]);
export type TokenCount = z.infer<typeof TokenCountSchema>;

export const ApiKindSchema = z.enum(['chat', 'completions']);
export type ApiKind = z.infer<typeof ApiKindSchema>;

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
  })
  .strict();
export type EndpointConfig = z.infer<typeof EndpointConfigSchema>;

export const RequestConfigSchema = z
  .object({
    stream: z.boolean().default(true),
    /** Passed through into every request body (ignore_eos, min_tokens, temperature, stop, ...). */
    extraBody: z.record(z.string(), z.unknown()).default({}),
    connectTimeoutMs: positiveInt.default(10_000),
    /** Longest silence between two reads of the response body. */
    idleTimeoutMs: positiveInt.default(60_000),
    /** Longest time for a whole request, from send to the last byte. */
    totalTimeoutMs: positiveInt.default(600_000),
  })
  .strict();
export type RequestConfig = z.infer<typeof RequestConfigSchema>;

export const DatasetFormatSchema = z.enum(['openqa', 'sharegpt', 'lines', 'jsonl']);
export type DatasetFormat = z.infer<typeof DatasetFormatSchema>;

export const WorkloadConfigSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('synthetic'),
      inputTokens: TokenCountSchema.default(512),
      outputTokens: TokenCountSchema.default(128),
      /** Tokens of a prefix shared by every prompt (exercises prefix caching). */
      sharedPrefixTokens: nonNegativeInt.default(0),
    })
    .strict(),
  z
    .object({
      kind: z.literal('dataset'),
      path: z.string().min(1),
      format: DatasetFormatSchema,
      /** max_tokens sent with each request; unset leaves it to the server. */
      outputTokens: TokenCountSchema.optional(),
      minPromptTokens: nonNegativeInt.optional(),
      maxPromptTokens: positiveInt.optional(),
    })
    .strict(),
]);
export type WorkloadConfig = z.infer<typeof WorkloadConfigSchema>;

export const ArrivalSchema = z.enum(['constant', 'poisson', 'gamma']);
export type Arrival = z.infer<typeof ArrivalSchema>;

const rate = z.number().positive().finite();

export const ProfileConfigSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('synchronous') }).strict(),
  z.object({ kind: z.literal('concurrency'), levels: z.array(positiveInt).min(1) }).strict(),
  z
    .object({
      kind: z.literal('rate'),
      /** Requests per second; one step per value. */
      rates: z.array(rate).min(1),
      arrival: ArrivalSchema.default('poisson'),
      /** Gamma shape: 1 is Poisson, below 1 burstier, above 1 smoother (vLLM's --burstiness). */
      burstiness: z.number().positive().default(1),
      maxConcurrency: positiveInt.optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('schedule'),
      /** Absolute send times in seconds from step start, ascending. */
      times: z.array(z.number().nonnegative()).min(1),
      maxConcurrency: positiveInt.optional(),
    })
    .strict(),
  z.object({ kind: z.literal('throughput'), maxConcurrency: positiveInt.optional() }).strict(),
  z
    .object({
      kind: z.literal('sweep'),
      /** Number of rates evenly spaced between the synchronous and throughput rates. */
      rateCount: positiveInt.default(8),
      arrival: ArrivalSchema.default('constant'),
      burstiness: z.number().positive().default(1),
    })
    .strict(),
]);
export type ProfileConfig = z.infer<typeof ProfileConfigSchema>;

export const LimitsConfigSchema = z
  .object({
    /** Measured requests per step (warm-up not included). */
    requests: positiveInt.optional(),
    /** Seconds per step. With `requests` too, the step ends at whichever comes first. */
    durationSec: z.number().positive().finite().optional(),
    /** Requests sent at the start of each step and left out of its statistics. */
    warmup: nonNegativeInt.default(0),
    /** The step ends once this many requests have failed. */
    maxErrors: positiveInt.optional(),
  })
  .strict();
export type LimitsConfig = z.infer<typeof LimitsConfigSchema>;

export const SloConfigSchema = z
  .object({
    ttftMs: z.number().positive().optional(),
    tpotMs: z.number().positive().optional(),
    e2eMs: z.number().positive().optional(),
  })
  .strict();
export type SloConfig = z.infer<typeof SloConfigSchema>;

export const LabelsSchema = z.record(z.string(), z.string());
export type Labels = z.infer<typeof LabelsSchema>;

export const RunConfigSchema = z
  .object({
    endpoint: EndpointConfigSchema,
    request: RequestConfigSchema.default(RequestConfigSchema.parse({})),
    workload: WorkloadConfigSchema.default(WorkloadConfigSchema.parse({ kind: 'synthetic' })),
    /** Path to a Hugging Face tokenizer.json used to count tokens. */
    tokenizer: z.string().min(1).optional(),
    profile: ProfileConfigSchema.default({ kind: 'synchronous' }),
    limits: LimitsConfigSchema.default(LimitsConfigSchema.parse({})),
    slo: SloConfigSchema.optional(),
    labels: LabelsSchema.default({}),
    seed: z.number().int().default(42),
  })
  .strict()
  .refine((c) => c.limits.requests !== undefined || c.limits.durationSec !== undefined, {
    message: 'limits needs requests or durationSec, or a step would never end',
    path: ['limits'],
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
