/**
 * Constraints checked before a launch: the shipped rule sets (`vllm`, read from the argv by vLLM's
 * flag names with vLLM's own start-up checks; `llama.cpp`, by llama-server's flags) and the tune
 * config's declarative rules between parameters. A broken rule is named in the refusal; nothing is
 * evaluated as code.
 */
import type { Comparison, Constraint, ConstraintRule, Operand, Params, ParamValue } from '../format/tune';
import { brokenVllmRule, vllmArgsFromArgv } from '../engines/vllm-rules';

export interface Refusal {
  /** `vllm/batched-tokens-cover-model-len`, `llama.cpp/ubatch-within-batch`, or a config rule's name. */
  rule: string;
  message: string;
}

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

/**
 * llama-server's rules: a micro-batch no larger than the batch (llama.cpp would cut it to the
 * batch, so a larger one repeats a combination already tried), a context that splits evenly into
 * the parallel slots (each slot gets ctx / parallel tokens), and sizes of at least 1 (and a slot
 * context of at least one token).
 */
function brokenLlamaCppRule(argv: readonly string[]): Refusal | undefined {
  const ctx = flagNumber(argv, ['-c', '--ctx-size']);
  const parallel = flagNumber(argv, ['-np', '--parallel']);
  const batch = flagNumber(argv, ['-b', '--batch-size']);
  const ubatch = flagNumber(argv, ['-ub', '--ubatch-size']);
  const refuse = (rule: string, message: string): Refusal => ({ rule: `llama.cpp/${rule}`, message });
  for (const [name, value] of [['-np', parallel], ['-b', batch], ['-ub', ubatch]] as const) {
    if (value !== undefined && value < 1) return refuse('sizes-positive', `${name} (${value}) must be at least 1`);
  }
  if (batch !== undefined && ubatch !== undefined && ubatch > batch) {
    return refuse('ubatch-within-batch', `-ub (${ubatch}) must not exceed -b (${batch}): llama.cpp would cut the micro-batch to the batch`);
  }
  if (ctx !== undefined && ctx > 0 && parallel !== undefined && parallel >= 1) {
    if (ctx < parallel) return refuse('ctx-per-slot', `-c (${ctx}) must give each of the -np (${parallel}) slots at least one token`);
    if (ctx % parallel !== 0) return refuse('ctx-divisible-by-parallel', `-c (${ctx}) must be divisible by -np (${parallel}): each slot gets ctx / parallel tokens`);
  }
  return undefined;
}

const operandValue = (operand: Operand, params: Params): ParamValue | ParamValue[] | undefined =>
  typeof operand === 'string' ? params[operand] : typeof operand === 'object' ? operand.value : operand;

/** Whether a comparison holds; one with a side not known (a parameter not in the combination) does not decide anything and holds. */
export function comparisonHolds([left, op, right]: Comparison, params: Params): boolean {
  const a = operandValue(left, params);
  const b = operandValue(right, params);
  if (a === undefined || b === undefined) return true;
  if (op === 'in') return Array.isArray(b) ? b.includes(a as ParamValue) : a === b;
  if (op === '==') return a === b;
  if (op === '!=') return a !== b;
  if (typeof a !== 'number' || typeof b !== 'number') return true;
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case 'multipleOf':
      return b !== 0 && a % b === 0;
  }
}

const shownComparison = ([left, op, right]: Comparison, params: Params): string => {
  const side = (o: Operand) => (typeof o === 'string' ? `${o} (${String(params[o])})` : JSON.stringify(typeof o === 'object' ? o.value : o));
  return `${side(left)} ${op} ${side(right)}`;
};

function brokenConfigRule(rule: ConstraintRule, params: Params): Refusal | undefined {
  if (!rule.when.every((c) => comparisonHolds(c, params)) || comparisonHolds(rule.require, params)) return undefined;
  return { rule: rule.name, message: rule.message ?? `${shownComparison(rule.require, params)} does not hold` };
}

/** The first constraint a combination breaks, given its argv (before the port is chosen), or undefined. */
export function checkConstraints(constraints: readonly Constraint[], params: Params, argv: readonly string[]): Refusal | undefined {
  for (const constraint of constraints) {
    if (constraint === 'vllm') {
      const broken = brokenVllmRule(vllmArgsFromArgv(argv));
      if (broken) return { rule: `vllm/${broken.rule}`, message: broken.message };
    } else if (constraint === 'llama.cpp') {
      const broken = brokenLlamaCppRule(argv);
      if (broken) return broken;
    } else {
      const broken = brokenConfigRule(constraint, params);
      if (broken) return broken;
    }
  }
  return undefined;
}
