/**
 * What starts a simulator: a preset, overrides of its engine and hardware values, faults to
 * inject, and where to trace. Parsed with zod (the options arrive from the command line, the
 * extension's settings and across a worker's postMessage), then checked the way vLLM checks its
 * engine arguments at start: a configuration vLLM would refuse is refused here too, with the
 * same kind of message.
 */
import * as z from 'zod';
import { describeZodError } from '../format/result';
import { DEFAULT_PRESET, PRESETS, PRESET_NAMES, type EngineSettings, type HardwareProfile, type PresetName } from './presets';
import { brokenVllmRule } from '../engines/vllm-rules';
import { ReasoningFieldSchema, type ReasoningField } from './protocol';

const positiveInt = z.number().int().positive();
const probability = z.number().min(0).max(1);

export const FaultOptionsSchema = z
  .object({
    /** Share of requests answered at once with an error status. */
    errorRate: probability.default(0),
    /** Statuses those errors use, drawn evenly. */
    errorStatuses: z.array(z.number().int().min(400).max(599)).min(1).default([500]),
    /** Share of streams whose connection is destroyed after a random number of tokens. */
    disconnectRate: probability.default(0),
    /** Share of requests whose writes stop for stallMs at a random token (the model goes on). */
    stallRate: probability.default(0),
    stallMs: z.number().nonnegative().default(2000),
    /** Share of streams that get a chunk that is not valid JSON, after which the response ends. */
    malformedRate: probability.default(0),
  })
  .strict();
export type FaultOptions = z.infer<typeof FaultOptionsSchema>;

/**
 * A reasoning model: every response first streams its thoughts, `tokens` of them (a count, or a
 * rounded normal draw per request, at least 0), then its answer; max_tokens counts both, as in
 * vLLM. `field` is where the thoughts go (protocol.ts): vLLM's current `reasoning` by default.
 */
export const ReasoningOptionsSchema = z
  .object({
    tokens: z.union([
      z.number().int().nonnegative(),
      z.object({ mean: z.number().nonnegative(), stdev: z.number().nonnegative().default(0) }).strict(),
    ]),
    field: ReasoningFieldSchema.default('reasoning'),
  })
  .strict();
export type ReasoningOptions = z.infer<typeof ReasoningOptionsSchema>;

export const SimOptionsSchema = z
  .object({
    /** A name from PRESETS; a plain string so that settings and flags can pass what the user typed. */
    preset: z
      .string()
      .refine((name): name is PresetName => (PRESET_NAMES as string[]).includes(name), {
        error: (issue) => `'${String(issue.input)}' is not a simulator preset; choose ${PRESET_NAMES.join(', ')}`,
      })
      .default(DEFAULT_PRESET),
    /** 0 picks a free port. The server listens on 127.0.0.1 only. */
    port: z.number().int().min(0).max(65535).default(0),
    seed: z.number().int().default(42),
    /** Served model name; the preset's by default. */
    model: z.string().min(1).optional(),
    engine: z
      .object({
        maxNumSeqs: z.number().int(),
        maxNumBatchedTokens: z.number().int(),
        maxModelLen: z.number().int(),
        kvCacheTokens: z.number().int(),
        blockSize: z.number().int(),
        enableChunkedPrefill: z.boolean(),
        enablePrefixCaching: z.boolean(),
      })
      .partial()
      .strict()
      .default({}),
    hardware: z
      .object({
        stepBaseMs: z.number().nonnegative(),
        decodePerSeqMs: z.number().nonnegative(),
        prefillTokensPerSec: z.number().positive(),
        requestOverheadMs: z.number().nonnegative(),
        outputPerSeqMs: z.number().nonnegative(),
      })
      .partial()
      .strict()
      .default({}),
    /**
     * Runs the model this many times faster than real time (every modelled duration is divided by
     * it). For tests that need a long run quickly; measured times divide by it too.
     */
    speedup: z.number().positive().max(100).default(1),
    faults: FaultOptionsSchema.default(FaultOptionsSchema.parse({})),
    /** Responses reason first (chat, completions and the Responses API); absent: they answer at once. */
    reasoning: ReasoningOptionsSchema.optional(),
    /** Floats in each vector /v1/embeddings returns (384, as small sentence-embedding models have). */
    embeddingDim: z.number().int().min(1).max(8192).default(384),
    /** Appends one JSON line per finished request's trace to this file. */
    traceFile: z.string().min(1).optional(),
    /** How many finished requests' traces are kept in memory for GET /sim/trace (oldest dropped). */
    traceLimit: positiveInt.default(20_000),
  })
  .strict();
export type SimOptionsInput = z.input<typeof SimOptionsSchema>;

/** Everything a running simulator uses, defaults applied and checked. */
export interface SimConfig {
  preset: PresetName;
  port: number;
  seed: number;
  model: string;
  engine: EngineSettings;
  hardware: HardwareProfile;
  naturalOutputTokensMean: number;
  speedup: number;
  faults: FaultOptions;
  /** Null: no reasoning. */
  reasoning: { tokens: ReasoningOptions['tokens']; field: ReasoningField } | null;
  embeddingDim: number;
  traceFile: string | undefined;
  traceLimit: number;
}

/** A configuration the simulated engine refuses to start with (vLLM would refuse it too). */
export class SimConfigError extends Error {
  override readonly name = 'SimConfigError';
}

/** Parses options and checks the engine configuration; throws SimConfigError with the reason. */
export function resolveSimConfig(input: SimOptionsInput = {}): SimConfig {
  const parsed = SimOptionsSchema.safeParse(input);
  if (!parsed.success) throw new SimConfigError(`Invalid simulator options: ${describeZodError(parsed.error)}`);
  const options = parsed.data;
  const presetName = options.preset as PresetName;
  const preset = PRESETS[presetName];
  const engine: EngineSettings = { ...preset.engine, ...options.engine };
  checkEngine(engine, preset.modelMaxLen);
  return {
    preset: presetName,
    port: options.port,
    seed: options.seed,
    model: options.model ?? preset.model,
    engine,
    hardware: { ...preset.hardware, ...options.hardware },
    naturalOutputTokensMean: preset.naturalOutputTokensMean,
    speedup: options.speedup,
    faults: options.faults,
    reasoning: options.reasoning ?? null,
    embeddingDim: options.embeddingDim,
    traceFile: options.traceFile,
    traceLimit: options.traceLimit,
  };
}

function checkEngine(e: EngineSettings, modelMaxLen: number): void {
  const fail = (message: string): never => {
    throw new SimConfigError(message);
  };
  const broken = brokenVllmRule({
    max_num_seqs: e.maxNumSeqs,
    max_num_batched_tokens: e.maxNumBatchedTokens,
    max_model_len: e.maxModelLen,
    block_size: e.blockSize,
    enable_chunked_prefill: e.enableChunkedPrefill,
  });
  if (broken) fail(broken.message);
  if (e.maxModelLen > modelMaxLen) {
    fail(
      `User-specified max_model_len (${e.maxModelLen}) is greater than the model's maximum context length (${modelMaxLen}). ` +
        `The model cannot attend beyond it; decrease max_model_len to ${modelMaxLen} or less.`,
    );
  }
  const blocks = Math.floor(e.kvCacheTokens / e.blockSize);
  if (blocks < 1) {
    fail(`No KV-cache blocks available: kv_cache_tokens (${e.kvCacheTokens}) is smaller than block_size (${e.blockSize}). Increase the KV-cache capacity.`);
  }
  const capacity = blocks * e.blockSize;
  if (capacity < e.maxModelLen) {
    fail(
      `To serve at least one request with max_model_len (${e.maxModelLen}), ${e.maxModelLen} tokens of KV cache are needed, ` +
        `more than the ${capacity} available. The longest sequence this KV cache can hold is ${capacity} tokens: ` +
        'increase the KV-cache capacity or decrease max_model_len.',
    );
  }
}
