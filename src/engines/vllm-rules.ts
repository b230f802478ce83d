/**
 * The checks vLLM makes on its engine arguments at start (SchedulerConfig.verify_max_model_len,
 * CacheConfig's block sizes and memory share), once, for the two places that need them: the
 * simulator refuses to start on what vLLM refuses (src/sim/options.ts), and the tuner refuses such
 * a combination before launching anything (the `vllm` constraint set, src/tune/constraints.ts).
 * Arguments go by vLLM's own names; a rule whose values are not all known is not decided.
 * Beside them, for the tuner alone, the one rule that needs the benchmark: max_model_len must hold
 * its largest request, which vLLM otherwise answers with HTTP 400.
 */
import { describeNeed, type WorkloadNeed } from './workload-need';

/** The engine arguments these rules read, by vLLM's names; undefined: not given (the engine's default applies). */
export interface VllmEngineArgs {
  max_num_seqs?: number;
  max_num_batched_tokens?: number;
  max_model_len?: number;
  block_size?: number;
  enable_chunked_prefill?: boolean;
  max_num_partial_prefills?: number;
  max_long_partial_prefills?: number;
  long_prefill_token_threshold?: number;
  gpu_memory_utilization?: number;
}

export interface VllmStartRule {
  name: string;
  /** The refusal in vLLM's terms, or undefined when the rule holds or cannot be decided from what is known. */
  check(args: VllmEngineArgs): string | undefined;
}

/** vLLM's supported KV block sizes on GPUs. */
export const BLOCK_SIZES = [1, 8, 16, 32, 64, 128] as const;

const atLeastOne = (name: 'max_num_seqs' | 'max_model_len' | 'max_num_batched_tokens'): VllmStartRule => ({
  name: `${name.replace(/_/g, '-')}-positive`,
  check: (a) => (a[name] !== undefined && a[name] < 1 ? `${name} (${a[name]}) must be at least 1.` : undefined),
});

export const VLLM_START_RULES: readonly VllmStartRule[] = [
  atLeastOne('max_num_seqs'),
  atLeastOne('max_model_len'),
  atLeastOne('max_num_batched_tokens'),
  {
    name: 'batched-tokens-cover-model-len',
    check: ({ max_num_batched_tokens: batched, max_model_len: modelLen, enable_chunked_prefill: chunked }) =>
      batched !== undefined && modelLen !== undefined && chunked === false && batched < modelLen
        ? `max_num_batched_tokens (${batched}) is smaller than max_model_len (${modelLen}). ` +
          'Without chunked prefill a whole prompt must fit in one step, so prompts longer than max_num_batched_tokens could never run. ' +
          'Increase max_num_batched_tokens, decrease max_model_len, or enable chunked prefill.'
        : undefined,
  },
  {
    name: 'batched-tokens-cover-seqs',
    check: ({ max_num_batched_tokens: batched, max_num_seqs: seqs }) =>
      batched !== undefined && seqs !== undefined && batched < seqs
        ? `max_num_batched_tokens (${batched}) must be greater than or equal to max_num_seqs (${seqs}): every running sequence needs at least one token of the step budget.`
        : undefined,
  },
  {
    name: 'block-size-supported',
    check: ({ block_size: size }) =>
      size !== undefined && !(BLOCK_SIZES as readonly number[]).includes(size) ? `block_size (${size}) is not supported; choose one of ${BLOCK_SIZES.join(', ')}.` : undefined,
  },
  {
    name: 'partial-prefills-need-chunked-prefill',
    check: ({ max_num_partial_prefills: partial, enable_chunked_prefill: chunked }) =>
      partial !== undefined && partial > 1 && chunked === false ? 'Chunked prefill must be enabled to set max_num_partial_prefills > 1.' : undefined,
  },
  {
    name: 'long-prefill-threshold-within-model-len',
    check: ({ max_num_partial_prefills: partial, long_prefill_token_threshold: threshold, max_model_len: modelLen }) =>
      partial !== undefined && partial > 1 && threshold !== undefined && modelLen !== undefined && threshold > modelLen
        ? `long_prefill_token_threshold (${threshold}) cannot be greater than the max_model_len (${modelLen}).`
        : undefined,
  },
  {
    name: 'long-partial-prefills-within-partial-prefills',
    check: ({ max_long_partial_prefills: long, max_num_partial_prefills: partial }) =>
      long !== undefined && long > (partial ?? 1) ? `max_long_partial_prefills (${long}) must be less than or equal to max_num_partial_prefills (${partial ?? 1}).` : undefined,
  },
  {
    name: 'gpu-memory-utilization-share',
    check: ({ gpu_memory_utilization: share }) =>
      share !== undefined && !(share > 0 && share <= 1) ? `gpu_memory_utilization (${share}) must be above 0 and at most 1: it is the share of GPU memory vLLM may use.` : undefined,
  },
];

/** The first rule `args` break, with vLLM's words, or undefined. */
export function brokenVllmRule(args: VllmEngineArgs): { rule: string; message: string } | undefined {
  for (const rule of VLLM_START_RULES) {
    const message = rule.check(args);
    if (message !== undefined) return { rule: rule.name, message };
  }
  return undefined;
}

/** The benchmark's largest request against max_model_len (vLLM refuses a request whose prompt plus max_tokens exceeds it). */
export function brokenVllmWorkloadRule(args: VllmEngineArgs, need: WorkloadNeed | null | undefined): { rule: string; message: string } | undefined {
  const modelLen = args.max_model_len;
  if (!need || modelLen === undefined || modelLen >= need.tokens) return undefined;
  return {
    rule: 'model-len-holds-workload',
    message: `max_model_len (${modelLen}) cannot hold the benchmark's largest request: ${describeNeed(need)}. vLLM would answer every such request with HTTP 400; raise max_model_len or shorten the benchmark's requests.`,
  };
}

const NUMERIC_ARGS = [
  'max_num_seqs',
  'max_num_batched_tokens',
  'max_model_len',
  'block_size',
  'max_num_partial_prefills',
  'max_long_partial_prefills',
  'long_prefill_token_threshold',
  'gpu_memory_utilization',
] as const satisfies readonly (keyof VllmEngineArgs)[];

/**
 * The engine arguments a `vllm serve` (or `llmbench sim`) argv sets: `--max-num-seqs 64`,
 * `--max-num-seqs=64`, `--enable-chunked-prefill` / `--no-enable-chunked-prefill` (vLLM's flag
 * names are its argument names with dashes). Values that are not numbers stay unknown.
 */
export function vllmArgsFromArgv(argv: readonly string[]): VllmEngineArgs {
  const args: VllmEngineArgs = {};
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--enable-chunked-prefill') args.enable_chunked_prefill = true;
    else if (word === '--no-enable-chunked-prefill') args.enable_chunked_prefill = false;
    for (const name of NUMERIC_ARGS) {
      const flag = `--${name.replace(/_/g, '-')}`;
      const text = word === flag ? argv[i + 1] : word.startsWith(`${flag}=`) ? word.slice(flag.length + 1) : undefined;
      if (text === undefined) continue;
      const value = Number(text);
      if (text.trim() !== '' && Number.isFinite(value)) args[name] = value;
    }
  }
  return args;
}
