/**
 * What llama.cpp's `llama-server` does with its sizes at start, for the tuner's `llama.cpp` rule
 * set. Each rule was checked against the Debian build of the test set-up (llama-server 0.7.0,
 * build 11669; docs/tuning.md lists what each combination did):
 *
 * - the context is split between the slots, each slot rounded up to a multiple of 256 tokens
 *   (`-c 2047 -np 4`: 512 a slot; `-c 1024 -np 8`: 256 a slot), and with a unified KV cache
 *   (`-kvu`, the default when `-np` is not given) any slot may use the whole context: no context
 *   is refused for not dividing evenly;
 * - a batch smaller than the slots crashes at start (`-b 3 -np 4`: GGML_ASSERT n_outputs_max,
 *   exit 139), and so does a batch of one (its warm-up decodes two tokens);
 * - `-np 0` is refused ("invalid value for n_parallel"; -1 means automatic), a negative `-c`
 *   crashes;
 * - a micro-batch above the batch is cut to the batch (`-b 64 -ub 512` runs with n_ubatch 64): a
 *   combination already tried, refused so that no trial is spent on it twice.
 *
 * With the benchmark's largest request known, a slot that cannot hold it is refused: every such
 * request fails ("exceeds the available context size") and the trial would measure nothing.
 */
import { describeNeed, type WorkloadNeed } from './workload-need';

export interface LlamaCppArgs {
  ctx?: number;
  parallel?: number;
  batch?: number;
  ubatch?: number;
  /** `-kvu` / `--kv-unified`: one KV cache all slots draw from. */
  kvUnified: boolean;
}

/** A slot's context is rounded up to a multiple of this (llama-server 0.7.0), and is at least this. */
export const SLOT_CONTEXT_GRANULE = 256;

/** The value of the first of `flags` in an argv (`-c 4096`, `--ctx-size=4096`), as a number. */
function flagNumber(argv: readonly string[], flags: readonly string[]): number | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    for (const flag of flags) {
      const text = word === flag ? argv[i + 1] : word.startsWith(`${flag}=`) ? word.slice(flag.length + 1) : undefined;
      if (text !== undefined && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
    }
  }
  return undefined;
}

/** llama-server's sizes as an argv sets them; a flag not given stays undefined (llama-server's default applies). */
export function llamaCppArgsFromArgv(argv: readonly string[]): LlamaCppArgs {
  const args: LlamaCppArgs = { kvUnified: argv.includes('-kvu') || argv.includes('--kv-unified') };
  const set = <K extends 'ctx' | 'parallel' | 'batch' | 'ubatch'>(key: K, flags: string[]) => {
    const value = flagNumber(argv, flags);
    if (value !== undefined) args[key] = value;
  };
  set('ctx', ['-c', '--ctx-size']);
  set('parallel', ['-np', '--parallel']);
  set('batch', ['-b', '--batch-size']);
  set('ubatch', ['-ub', '--ubatch-size']);
  return args;
}

/**
 * The tokens one slot holds: the context's share rounded up to a multiple of 256 (at least 256),
 * or the whole context when the KV cache is unified or there is one slot. Null when the context
 * is the model's (`-c 0` or not given), which only the model file tells.
 */
export function slotContext(args: LlamaCppArgs): number | null {
  if (args.ctx === undefined || args.ctx <= 0) return null;
  if (args.kvUnified || args.parallel === undefined || args.parallel <= 1) return args.ctx;
  return Math.max(SLOT_CONTEXT_GRANULE, Math.ceil(args.ctx / args.parallel / SLOT_CONTEXT_GRANULE) * SLOT_CONTEXT_GRANULE);
}

/** The first rule broken, by name and in words, or undefined. */
export function brokenLlamaCppRule(args: LlamaCppArgs, need?: WorkloadNeed | null): { rule: string; message: string } | undefined {
  const { ctx, parallel, batch, ubatch } = args;
  if (parallel === 0) return { rule: 'parallel-positive', message: '-np (0) is refused by llama-server ("invalid value for n_parallel"): give 1 or more slots, or -1 for automatic' };
  if (ctx !== undefined && ctx < 0) return { rule: 'ctx-not-negative', message: `-c (${ctx}) must be 0 (the model's context) or more: llama-server crashes at start on a negative context` };
  if (batch !== undefined && batch < 2) return { rule: 'batch-above-one', message: `-b (${batch}) must be at least 2: llama-server's warm-up decodes two tokens and crashes at start on a smaller batch` };
  if (batch !== undefined && parallel !== undefined && parallel > 0 && batch < parallel) {
    return { rule: 'batch-holds-slots', message: `-b (${batch}) must be at least -np (${parallel}): llama-server crashes at start when a batch cannot hold a token of every slot (GGML_ASSERT n_outputs_max)` };
  }
  if (batch !== undefined && ubatch !== undefined && ubatch > batch) {
    return { rule: 'ubatch-within-batch', message: `-ub (${ubatch}) must not exceed -b (${batch}): llama-server cuts the micro-batch to the batch, which repeats the combination with -ub ${batch}` };
  }
  const slot = slotContext(args);
  if (need && slot !== null && slot < need.tokens) {
    const split = args.kvUnified || parallel === undefined || parallel <= 1 ? `-c ${ctx} gives a slot ${slot} tokens` : `-c ${ctx} / -np ${parallel} gives each slot ${slot} tokens (llama-server 0.7.0 rounds a slot up to a multiple of ${SLOT_CONTEXT_GRANULE})`;
    return { rule: 'slot-holds-workload', message: `${split}, but the benchmark's largest request needs ${describeNeed(need)}: every such request would fail. Raise -c, lower -np, or use -kvu` };
  }
  return undefined;
}
