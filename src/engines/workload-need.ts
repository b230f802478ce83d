/**
 * What a benchmark asks of a server's context: the tokens of its largest request (its prompt as the
 * workload counts it, plus the output it asks for). The rule sets refuse a combination whose
 * context cannot hold it (vLLM's max_model_len, a llama.cpp slot), since every such request would
 * fail (HTTP 400) and the trial would measure nothing.
 */
export interface WorkloadNeed {
  /** Prompt plus output tokens of the largest request. */
  tokens: number;
  promptTokens: number;
  /** The output asked for (max_tokens); null when the benchmark leaves it to the server (then `tokens` is the prompt's alone). */
  outputTokens: number | null;
  /** How the prompt was counted, for the refusal: "the benchmark's tokenizer ..." or "the estimate ...". */
  counted: string;
}

/** "342 tokens (294 prompt + 48 output, counted by the estimate (4 characters a token))" */
export function describeNeed(need: WorkloadNeed): string {
  const parts = need.outputTokens === null ? `${need.promptTokens} prompt tokens; the output is left to the server` : `${need.promptTokens} prompt + ${need.outputTokens} output`;
  return `${need.tokens} tokens (${parts}, counted by ${need.counted})`;
}
