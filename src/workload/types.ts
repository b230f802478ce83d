/**
 * The seams inside the engine: workload -> prepared request -> client -> record, and the public
 * entry point. Kept in one place so that each part can be built and tested on its own.
 */
import type { RunConfig } from '../format/config';
import type { RunEvent } from '../format/events';
import type { RequestRecord, ResultDocument, TokenSource } from '../format/result';
import type { ChatTemplateName } from './chat-template';

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/** One request's content, ready to send. */
export interface PreparedRequest {
  /** A completions prompt or chat messages; the client turns either into the other when needed. */
  prompt: string | ChatMessage[];
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

/** Everything the client needs for one step's requests. */
export interface ClientContext {
  config: RunConfig;
  /** Sent as `Authorization: Bearer ...`; never logged or written. */
  apiKey: string | undefined;
  /** The step's connection pool (an undici Dispatcher sized to the concurrency). */
  dispatcher: import('undici').Dispatcher;
  /** Aborts every request in flight (cancel, step end). */
  signal: AbortSignal;
  /** performance.now() at step start: every time in a record is relative to it. */
  stepStartMs: number;
  tokenCounter: TokenCounter;
}

/** Sends one request and measures it. Never throws: failures are in the record's `error`. */
export type SendRequest = (
  request: PreparedRequest,
  meta: { index: number; warmup: boolean; scheduledMs: number },
  context: ClientContext,
) => Promise<RequestRecord>;

export interface RunOptions {
  signal?: AbortSignal;
  /** Resolved by the caller (environment variable, SecretStorage); never written anywhere. */
  apiKey?: string;
  /** Where the result document is written as the run goes; undefined keeps it in memory only. */
  resultPath?: string;
  /**
   * With a result path: false leaves the request records in the file only, so that the run's
   * memory does not grow with its requests, and the document resolved has steps without records
   * (the engine worker's way). Default true.
   */
  keepRecords?: boolean;
  onEvent?: (event: RunEvent) => void;
}

export type RunBenchmark = (config: RunConfig, options: RunOptions) => Promise<ResultDocument>;
