/**
 * Named simulator presets: an engine configuration (vLLM's server knobs) and a hardware profile
 * (how long a scheduler step takes). docs/simulator.md gives each preset's source figures and how
 * close a sweep against it comes.
 */

export interface EngineSettings {
  /** Most sequences in one batch (vLLM --max-num-seqs). */
  maxNumSeqs: number;
  /** Token budget of one scheduler step (vLLM --max-num-batched-tokens). */
  maxNumBatchedTokens: number;
  /** Longest prompt + output a request may have (vLLM --max-model-len). */
  maxModelLen: number;
  /** KV-cache capacity in tokens (vLLM derives it from GPU memory; here it is given). */
  kvCacheTokens: number;
  /** Tokens per KV-cache block (vLLM --block-size). */
  blockSize: number;
  enableChunkedPrefill: boolean;
  enablePrefixCaching: boolean;
}

/**
 * The time one scheduler step takes:
 *   stepBaseMs + decodePerSeqMs x (sequences in the step) + (prefill tokens in the step) / prefillTokensPerSec.
 * The base is the fixed cost of a forward pass (weights read once per step, the reason batching pays);
 * the per-sequence part is each sequence's own KV reads and sampling.
 */
export interface HardwareProfile {
  stepBaseMs: number;
  decodePerSeqMs: number;
  prefillTokensPerSec: number;
  /** API-server work before a request reaches the scheduler (parsing, tokenizing). */
  requestOverheadMs: number;
  /**
   * API-server output work per sequence per step (detokenizing, framing the SSE event): the tokens
   * of one step leave in batch order, this far apart, as vLLM's output loop sends them one request
   * at a time.
   */
  outputPerSeqMs: number;
}

export interface Preset {
  description: string;
  /** The served model name (`/v1/models`, responses). */
  model: string;
  /** The model's own context limit: a --max-model-len above it is rejected, as vLLM does. */
  modelMaxLen: number;
  engine: EngineSettings;
  hardware: HardwareProfile;
  /**
   * Mean length of a reply that ends by itself (without ignore_eos); each request draws its own
   * "natural" length from a gamma distribution (shape 2) with this mean.
   */
  naturalOutputTokensMean: number;
  /** Published figures the preset is calibrated to; the preset test sweeps against them. */
  reference?: PresetReference;
}

export interface PresetReference {
  source: string;
  inputTokens: number;
  outputTokens: number;
  synchronousRequestsPerSec: number;
  /** Median TTFT at synchronous load. */
  ttftMs: number;
  /** Mean ITL at synchronous load. */
  itlMs: number;
  /** A high-load point of the source: output tokens/s with this many requests in flight. */
  highLoad: { concurrency: number; outputTokensPerSec: number };
  /** Largest relative deviation accepted for each figure (0.15 = 15%). */
  tolerance: number;
}

export const PRESETS = {
  // Calibrated to the issue-3 reference figures (Qwen2-7B-Instruct, 1x A100 80GB, vLLM, 512 in /
  // 128 out): synchronous ~0.75 req/s, ~60 ms TTFT, ~11.5 ms ITL, output throughput levelling near
  // 2,000 tok/s. Engine values are vLLM's defaults for an 80 GB GPU; the KV capacity is what 90% of
  // 80 GB leaves after the 15 GB of weights at Qwen2-7B's 56 KiB of KV per token.
  'qwen2-7b-a100-vllm': {
    description: 'Qwen2-7B-Instruct on one A100 80GB under vLLM (the default)',
    model: 'Qwen/Qwen2-7B-Instruct',
    modelMaxLen: 32768,
    engine: {
      maxNumSeqs: 256,
      maxNumBatchedTokens: 8192,
      maxModelLen: 32768,
      kvCacheTokens: 1_000_000,
      blockSize: 16,
      enableChunkedPrefill: true,
      enablePrefixCaching: true,
    },
    hardware: { stepBaseMs: 10.6, decodePerSeqMs: 0.14, prefillTokensPerSec: 13_000, requestOverheadMs: 8, outputPerSeqMs: 0.04 },
    naturalOutputTokensMean: 256,
    reference: {
      source: 'LLM Bench issue 3 (figures users publish for vLLM on one A100 80GB, GuideLLM-style sweep)',
      inputTokens: 512,
      outputTokens: 128,
      synchronousRequestsPerSec: 0.75,
      ttftMs: 60,
      itlMs: 11.5,
      // Where output throughput levels off; the test loads it with 256 requests in flight.
      highLoad: { concurrency: 256, outputTokensPerSec: 2000 },
      tolerance: 0.15,
    },
  },
  // Calibrated to NVIDIA's NIM benchmark table for Llama-3.3-70B-Instruct, NIM 1.8.0, 2x H100 80GB,
  // fp8, TP2, 5,000 in / 500 out (docs/simulator.md has the figures and the derivation). The step
  // time comes from the ITL at 1 and at ~86 sequences, the prefill rate from the synchronous TTFT,
  // the KV capacity from memory: 90% of what two 80 GB GPUs leave after ~68 GiB of fp8 weights, at
  // 160 KiB of fp8 KV per token. The TensorRT-LLM engine behind NIM reserves a request's whole KV
  // at admission, which this vLLM-style scheduler does not: past ~90 long requests it preempts instead.
  'llama3.3-70b-fp8-2xh100-nim': {
    description: 'Llama-3.3-70B-Instruct (fp8) on two H100 80GB (tensor parallel) under NVIDIA NIM',
    model: 'meta/llama-3.3-70b-instruct',
    modelMaxLen: 131072,
    engine: {
      maxNumSeqs: 256,
      maxNumBatchedTokens: 8192,
      maxModelLen: 131072,
      kvCacheTokens: 500_000,
      blockSize: 16,
      enableChunkedPrefill: true,
      enablePrefixCaching: true,
    },
    hardware: { stepBaseMs: 18.47, decodePerSeqMs: 0.112, prefillTokensPerSec: 13_200, requestOverheadMs: 8, outputPerSeqMs: 0.04 },
    naturalOutputTokensMean: 256,
    reference: {
      source: 'NVIDIA NIM LLM benchmarking, Performance: Llama-3.3-70b-instruct, NIM 1.8.0, 2 x H100 80G, fp8 TP2 (AIPerf)',
      inputTokens: 5000,
      outputTokens: 500,
      synchronousRequestsPerSec: 51.67 / 500,
      ttftMs: 406.77,
      itlMs: 18.58,
      highLoad: { concurrency: 50, outputTokensPerSec: 814.37 },
      tolerance: 0.15,
    },
  },
  // Calibrated to a published vLLM v0.23.0 concurrency sweep of Qwen2.5-0.5B-Instruct (bf16) on one
  // L4 24GB, 256 in / 128 out (docs/simulator.md). A small model on a small GPU: the steps are
  // short, the API server's own time per request (17.5 ms on a 4-vCPU machine) weighs as much as the
  // model, and prefill runs at about half of the L4's bf16 peak. The KV capacity is what the
  // source's peak cache usage (1.1% at 32 x 384 tokens) implies for --gpu-memory-utilization 0.6.
  'qwen2.5-0.5b-l4-vllm': {
    description: 'Qwen2.5-0.5B-Instruct on one L4 24GB under vLLM (small and fast)',
    model: 'Qwen/Qwen2.5-0.5B-Instruct',
    modelMaxLen: 32768,
    engine: {
      maxNumSeqs: 256,
      maxNumBatchedTokens: 2048,
      maxModelLen: 8192,
      kvCacheTokens: 1_100_000,
      blockSize: 16,
      enableChunkedPrefill: true,
      enablePrefixCaching: true,
    },
    hardware: { stepBaseMs: 5.035, decodePerSeqMs: 0.0645, prefillTokensPerSec: 60_000, requestOverheadMs: 17.5, outputPerSeqMs: 0.02 },
    naturalOutputTokensMean: 256,
    reference: {
      source: 'ai.wmx.dev/benchmarks (vllm bench serve, vLLM v0.23.0, 1x L4, closed loop, --ignore-eos)',
      inputTokens: 256,
      outputTokens: 128,
      synchronousRequestsPerSec: 168 / 128,
      ttftMs: 27.0,
      itlMs: 5.1,
      highLoad: { concurrency: 32, outputTokensPerSec: 3773 },
      tolerance: 0.15,
    },
  },
  // For tests: millisecond steps and a small engine, so a run with queueing finishes in seconds.
  tiny: {
    description: 'A small fast engine for tests (1 ms steps, 16 sequences, 64k KV tokens)',
    model: 'sim-tiny',
    modelMaxLen: 8192,
    engine: {
      maxNumSeqs: 16,
      maxNumBatchedTokens: 2048,
      maxModelLen: 4096,
      kvCacheTokens: 65_536,
      blockSize: 16,
      enableChunkedPrefill: true,
      enablePrefixCaching: true,
    },
    hardware: { stepBaseMs: 1, decodePerSeqMs: 0.02, prefillTokensPerSec: 500_000, requestOverheadMs: 0.5, outputPerSeqMs: 0.01 },
    naturalOutputTokensMean: 64,
  },
} satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];
export const DEFAULT_PRESET: PresetName = 'qwen2-7b-a100-vllm';
