/**
 * What each reported metric means, in one place: the result and compare views show these as
 * tooltips, the terminal and Markdown tables name their columns from them, and docs/metrics.md
 * uses the same wording. Peer tools define TTFT, ITL and TPOT differently, so ours are spelled out.
 */

import { fillPlaceholders } from './warning-text';

export type MetricKey =
  | 'requestsPerSecond'
  | 'outputTokensPerSecond'
  | 'totalTokensPerSecond'
  | 'latencyMs'
  | 'ttftMs'
  | 'itlMs'
  | 'tpotMs'
  | 'queueMs'
  | 'failures'
  | 'achievedConcurrency'
  | 'goodput'
  // Reasoning models: written only for steps where a response reasoned.
  | 'ttfoMs'
  | 'reasoningMs'
  | 'reasoningTokens'
  | 'answerTokens'
  | 'reasoningItlMs'
  | 'answerItlMs'
  | 'reasoningTpotMs'
  | 'answerTpotMs'
  // Embeddings runs.
  | 'embeddingsPerSecond'
  | 'inputTokensPerSecond';

export interface MetricDefinition {
  /** Short column header. */
  label: string;
  unit: string;
  /** Which way is an improvement when two runs are compared. */
  better: 'higher' | 'lower';
  /** Decimals the views print: one precision per metric, so a column lines up and reads alike. */
  decimals: number;
  definition: string;
}

export const METRICS: Record<MetricKey, MetricDefinition> = {
  requestsPerSecond: {
    label: 'req/s',
    unit: 'req/s',
    better: 'higher',
    decimals: 2,
    definition:
      "Requests completed successfully per second over the step's steady window: from the end of its warm-up or fill-up (every request sent before the first completion has ended) to its last send. Files written before steady windows (and imports) divide by the time from the first measured send to the last measured completion, which a step cut by its duration made too long for what it counted.",
  },
  outputTokensPerSecond: {
    label: 'output tok/s',
    unit: 'tok/s',
    better: 'higher',
    decimals: 0,
    definition:
      "Output tokens received inside the step's steady window (those of requests still in flight at its end included, each chunk carrying its request's tokens divided by its chunks), divided by its length. Token counts come from the server's usage when it sends one, else a tokenizer, else the documented estimate.",
  },
  totalTokensPerSecond: {
    label: 'total tok/s',
    unit: 'tok/s',
    better: 'higher',
    decimals: 0,
    definition: "Output tokens received inside the step's steady window plus the input tokens of the requests prefilled in it (their first token arrived there), divided by its length.",
  },
  latencyMs: {
    label: 'latency',
    unit: 'ms',
    better: 'lower',
    decimals: 0,
    definition:
      'End-to-end latency of each successful request: from sending it to its last content chunk (or the whole body without streaming). Time spent waiting for a concurrency slot is reported separately as queue time.',
  },
  ttftMs: {
    label: 'TTFT',
    unit: 'ms',
    better: 'lower',
    decimals: 1,
    definition:
      'Time to first token: from sending a request to the first streamed chunk with non-empty content. Not measured without streaming (left empty rather than set to the latency).',
  },
  itlMs: {
    label: 'ITL',
    unit: 'ms',
    better: 'lower',
    decimals: 2,
    definition:
      'Inter-token latency: every gap between consecutive content chunks of a streamed response, pooled over all requests of the step. Per chunk, not per token: a chunk can carry several tokens.',
  },
  tpotMs: {
    label: 'TPOT',
    unit: 'ms',
    better: 'lower',
    decimals: 2,
    definition:
      'Time per output token after the first, per request: (latency - TTFT) / (output tokens - 1), then statistics over requests. What GuideLLM and AIPerf call ITL.',
  },
  queueMs: {
    label: 'queue',
    unit: 'ms',
    better: 'lower',
    decimals: 1,
    definition:
      'Client queue time: from when the schedule wanted a request sent to when it was sent, i.e. time spent waiting for a free concurrency slot.',
  },
  failures: {
    label: 'failures',
    unit: 'requests',
    better: 'lower',
    decimals: 0,
    definition:
      'Measured requests that ended with an error (connection, timeout, HTTP status, malformed body, server error, reset). Failed requests are left out of latency and throughput.',
  },
  achievedConcurrency: {
    label: 'concurrency',
    unit: 'requests',
    better: 'higher',
    decimals: 1,
    definition: "Mean number of requests in flight over the step's steady window.",
  },
  goodput: {
    label: 'goodput',
    unit: 'req/s',
    better: 'higher',
    decimals: 2,
    definition: "Requests completed inside the step's steady window that met every SLO given in the run configuration (TTFT, TTFO, TPOT, end-to-end latency), per second.",
  },
  ttfoMs: {
    label: 'TTFO',
    unit: 'ms',
    better: 'lower',
    decimals: 1,
    definition:
      'Time to first output token (AIPerf\'s TTFO): from sending a request to the first chunk of its answer, the reasoning left out; what a user of a reasoning model waits for. A response without reasoning has its TTFT. TTFT still counts the first token of any kind.',
  },
  reasoningMs: {
    label: 'reasoning',
    unit: 'ms',
    better: 'lower',
    decimals: 0,
    definition: 'Reasoning duration: from the first reasoning token to the first answer token (to the last reasoning chunk when no answer came), over the responses that reasoned.',
  },
  reasoningTokens: {
    label: 'reasoning tok',
    unit: 'tokens',
    better: 'lower',
    decimals: 0,
    definition:
      'Reasoning tokens of each response: the server\'s usage.completion_tokens_details.reasoning_tokens when it sends one, else the reasoning text counted locally (0 for a response without reasoning).',
  },
  answerTokens: {
    label: 'answer tok',
    unit: 'tokens',
    better: 'higher',
    decimals: 0,
    definition: 'Answer tokens of each response: its output tokens less its reasoning tokens (by usage), or its answer text counted locally.',
  },
  reasoningItlMs: {
    label: 'reasoning ITL',
    unit: 'ms',
    better: 'lower',
    decimals: 2,
    definition: 'Inter-token latency within the reasoning: every gap between two consecutive reasoning chunks, pooled over the step.',
  },
  answerItlMs: {
    label: 'answer ITL',
    unit: 'ms',
    better: 'lower',
    decimals: 2,
    definition: 'Inter-token latency within the answer: every gap between two consecutive answer chunks, pooled over the step (the whole stream of a response without reasoning).',
  },
  reasoningTpotMs: {
    label: 'reasoning TPOT',
    unit: 'ms',
    better: 'lower',
    decimals: 2,
    definition: 'Time per reasoning token, per request: the reasoning duration divided by the reasoning tokens.',
  },
  answerTpotMs: {
    label: 'answer TPOT',
    unit: 'ms',
    better: 'lower',
    decimals: 2,
    definition: 'Time per answer token after the first, per request: (end - first answer token) / (answer tokens - 1).',
  },
  embeddingsPerSecond: {
    label: 'embeddings/s',
    unit: 'embeddings/s',
    better: 'higher',
    decimals: 1,
    definition: "Embedding vectors returned by successful requests per second over the step's steady window (a request of a batch of N inputs returns N).",
  },
  inputTokensPerSecond: {
    label: 'input tok/s',
    unit: 'tok/s',
    better: 'higher',
    decimals: 0,
    definition: "Input tokens of successful requests per second over the step's steady window (the server's usage.prompt_tokens when it sends one).",
  },
};

/**
 * The "ITL" of GuideLLM-style tables is GuideLLM's definition, which is our TPOT: the mean gap
 * per output token after the first. vLLM's ITL (every gap between streamed chunks) differs.
 */
export const ITL_FOOTNOTE =
  'ITL = time per output token after the first, (latency - TTFT) / (output tokens - 1), mean over requests: GuideLLM\'s "ITL", vLLM\'s TPOT (not vLLM\'s per-chunk ITL).';

/**
 * What a reader of reasoning and answer token counts must know when the server's usage did not
 * count the reasoning: `estimated` responses were split by the rough estimate, `counted` by the
 * run's tokenizer. Said in the terminal at the end of a run and in the result view (`say`: in the
 * view's display language, src/views/l10n.ts).
 */
export function reasoningCountNotes(estimated: number, counted: number, say: (text: string, ...args: number[]) => string = (text, ...args) => fillPlaceholders(text, args)): string[] {
  const notes: string[] = [];
  if (estimated > 0) {
    notes.push(say("Reasoning and answer tokens of {0} responses are estimates (characters / 4): the server's usage did not count the reasoning and no tokenizer was given. Give --tokenizer for exact counts.", estimated));
  }
  if (counted > 0) notes.push(say("Reasoning and answer tokens of {0} responses were counted with the run's tokenizer: the server's usage did not count the reasoning.", counted));
  return notes;
}

/** The unit to print after a metric's label: none when the label already says it ("req/s"). */
export function metricUnit(key: MetricKey): string {
  const m = METRICS[key];
  return m.label.endsWith(m.unit) ? '' : m.unit;
}

/** "TTFT (ms)": a metric's label with its unit, for column and axis titles. */
export function metricTitle(key: MetricKey): string {
  const unit = metricUnit(key);
  return unit ? `${METRICS[key].label} (${unit})` : METRICS[key].label;
}
