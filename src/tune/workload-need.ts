/**
 * The benchmark's largest request, for the rule sets (src/engines/workload-need.ts): the workload
 * is built as the run builds it (the same seed, datasets, sessions) and each request's prompt is
 * counted as the run counts it (src/workload/prompt.ts: the benchmark's tokenizer through the
 * model's chat template where it knows one, else the estimate), plus the output it asks for.
 */
import type { RunConfig } from '../format/config';
import type { WorkloadNeed } from '../engines/workload-need';
import { countPrompt, promptFor } from '../workload/prompt';
import { createWorkload } from '../workload/sources';
import { createTokenCounter } from '../workload/tokenizer';
import type { ChatMessage, TokenCounter } from '../workload/types';

/** Requests (or sessions) looked at: draws are independent, so the largest of this many stands for a run's. */
const SYNTHETIC_SCAN = 1000;
/** Dataset rows looked at at most (a run cycles through them in order). */
const DATASET_SCAN = 10_000;
const SESSION_SCAN = 200;

function countedBy(counter: TokenCounter, chat: boolean): string {
  if (counter.source === 'estimate') return `the estimate (4 characters a token${chat ? '; a chat template\'s own tokens are not counted without a tokenizer' : ''})`;
  return `the benchmark's tokenizer${chat && counter.chatTemplate ? ` through its ${counter.chatTemplate} chat template` : ''}`;
}

/** The largest request of the benchmark `config` would run, by its own counting. */
export async function workloadNeed(config: RunConfig): Promise<WorkloadNeed> {
  const counter = await createTokenCounter(config.tokenizer);
  const workload = await createWorkload(config, counter);
  const chat = config.endpoint.api === 'chat';
  // The request asking the most tokens; one whose output is left to the server counts its prompt alone.
  let largest: Omit<WorkloadNeed, 'counted'> = { tokens: 0, promptTokens: 0, outputTokens: 0 };
  const consider = (promptTokens: number, outputTokens: number | null): void => {
    const tokens = promptTokens + (outputTokens ?? 0);
    if (tokens > largest.tokens) largest = { tokens, promptTokens, outputTokens };
  };
  if (config.sessions && workload.session) {
    // A turn carries the conversation so far: the replies before it count as at most what they asked for.
    for (let s = 0; s < SESSION_SCAN; s++) {
      const plan = workload.session(s);
      const messages: ChatMessage[] = [...plan.system];
      let replies = 0;
      for (const turn of plan.turns) {
        messages.push({ role: 'user', content: turn.user });
        consider(countPrompt(promptFor(messages, chat), counter) + replies, turn.maxTokens ?? null);
        replies += turn.maxTokens ?? 0;
        messages.push({ role: 'assistant', content: '' });
      }
    }
  } else {
    const scan = Number.isFinite(workload.size) ? Math.min(workload.size, DATASET_SCAN) : SYNTHETIC_SCAN;
    for (let i = 0; i < scan; i++) {
      const request = workload.request(i);
      consider(request.inputTokens.count, request.maxTokens ?? null);
    }
  }
  return { ...largest, counted: countedBy(counter, chat) };
}
