/**
 * What a request is, as the workload hands it to the load loop: chat messages or a prompt, its
 * counted input tokens, and the token counter that counts them. The load loop's own seams (the
 * client's context, a run's options) are in src/load/types.ts.
 */
import type { TokenSource } from '../format/result';
import type { ChatTemplateName } from './chat-template';

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/** One request's content, ready to send. */
export interface PreparedRequest {
  /** A completions prompt or chat messages; the client turns either into the other when needed. */
  prompt: string | ChatMessage[];
  /** An embeddings request's batch of texts (api embeddings): sent instead of the prompt. */
  inputs?: string[];
  /** Sent as max_tokens / max_completion_tokens; undefined leaves it to the server. */
  maxTokens?: number;
  /** Input tokens as the workload counted them (tokenizer or estimate), used when the server sends no usage. */
  inputTokens: { count: number; source: Exclude<TokenSource, 'usage' | 'chunks'> };
  /** Told the whole text received once the response ended (a session builds its history from it). */
  onReply?: (text: string) => void;
}

/** A conversation to send turn by turn: its opening (system) messages and each turn's user message. */
export interface SessionPlan {
  system: ChatMessage[];
  turns: { user: string; maxTokens?: number }[];
}

/** A source of requests: synthetic or from a dataset, deterministic for a seed. */
export interface Workload {
  /** The i-th request of the run (cycles through a dataset). */
  request(index: number): PreparedRequest;
  /** How many distinct requests it holds (Infinity for synthetic). */
  readonly size: number;
  /** The i-th session of a multi-turn run (`sessions` in the config); absent otherwise. */
  session?(index: number): SessionPlan;
}

/** Counts tokens of text: a local tokenizer when configured, else the documented estimate. */
export interface TokenCounter {
  readonly source: 'tokenizer' | 'estimate';
  count(text: string): number;
  /**
   * A chat request's prompt tokens: the conversation laid out by the model's chat template with
   * its generation prompt, where the template is known (`chatTemplate`), else the messages' text.
   */
  countChat(messages: readonly ChatMessage[]): number;
  /** The chat template countChat applies, or null when it counts the messages' text only. */
  readonly chatTemplate: ChatTemplateName | null;
  /** What countChat counts with a tokenizer, in a sentence for the run's log (null for the estimate). */
  readonly chatNote: string | null;
}
