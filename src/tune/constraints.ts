/**
 * Constraints checked before a launch: the shipped rule sets (`vllm`, read from the argv by vLLM's
 * flag names with vLLM's own start-up checks; `llama.cpp`, by llama-server's flags, as llama-server
 * 0.7.0 was seen to start), each also against the benchmark's largest request when it is known, and
 * the tune config's declarative rules between parameters. A broken rule is named in the refusal;
 * nothing is evaluated as code.
 */
import type { Comparison, Constraint, ConstraintRule, Operand, Params, ParamValue } from '../format/tune';
import { brokenLlamaCppRule, llamaCppArgsFromArgv } from '../engines/llamacpp-rules';
import { brokenVllmRule, brokenVllmWorkloadRule, vllmArgsFromArgv } from '../engines/vllm-rules';
import type { WorkloadNeed } from '../engines/workload-need';

export interface Refusal {
  /** `vllm/batched-tokens-cover-model-len`, `llama.cpp/ubatch-within-batch`, or a config rule's name. */
  rule: string;
  message: string;
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

/**
 * The first constraint a combination breaks, given its argv (before the port is chosen) and, where
 * known, what the benchmark asks of a server's context; or undefined.
 */
export function checkConstraints(constraints: readonly Constraint[], params: Params, argv: readonly string[], need?: WorkloadNeed | null): Refusal | undefined {
  for (const constraint of constraints) {
    if (constraint === 'vllm') {
      const args = vllmArgsFromArgv(argv);
      const broken = brokenVllmRule(args) ?? brokenVllmWorkloadRule(args, need);
      if (broken) return { rule: `vllm/${broken.rule}`, message: broken.message };
    } else if (constraint === 'llama.cpp') {
      const broken = brokenLlamaCppRule(llamaCppArgsFromArgv(argv), need);
      if (broken) return { rule: `llama.cpp/${broken.rule}`, message: broken.message };
    } else {
      const broken = brokenConfigRule(constraint, params);
      if (broken) return broken;
    }
  }
  return undefined;
}
