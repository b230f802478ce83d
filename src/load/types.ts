/**
 * The seams of the load loop: prepared request -> client -> record, and the entry point of a run.
 * Kept in one place so that each part can be built and tested on its own.
 */
import type { RunConfig } from '../format/config';
import type { RunEvent } from '../format/events';
import type { RequestRecord, ResultDocument } from '../format/result';
import type { PreparedRequest, TokenCounter } from '../workload/types';
import type { ResponseOutput } from './output';

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
  /** Counts the bytes of every response body read (the executor's load, thread-load.ts). */
  received?: { bytes: number };
}

/** Which request a record is, and what the run decided for it. */
export interface RequestMeta {
  index: number;
  warmup: boolean;
  scheduledMs: number;
  /** Cancel it this long after it was sent (`cancel` in the config); absent: never. */
  cancelAfterMs?: number;
}

/** Sends one request and measures it. Never throws: failures are in the record's `error`. */
export type SendRequest = (request: PreparedRequest, meta: RequestMeta, context: ClientContext) => Promise<RequestRecord>;

/**
 * Why reading a response failed: the record's error kind and message. The client words it
 * `message, after N content chunks: detail`, so that each says how far the response had come.
 */
export interface ReadFailure {
  kind: 'server' | 'protocol';
  message: string;
  detail?: string;
}

/** What an event did: nothing to note, the response is complete (a terminal event), or it failed. */
export type EventOutcome = null | 'complete' | ReadFailure;

/** The text of an event that carries nothing else, the JSON member holding it, and its part. */
export interface TextOnly {
  member: string;
  text: string;
  reasoning: boolean;
}

/**
 * How one API's requests are written and its responses read: chat and completions (client.ts),
 * the Responses API (responses.ts), embeddings (embeddings.ts). The client around it does the
 * HTTP, the timing and the errors every API shares.
 */
export interface ApiProtocol {
  /** The route under the base URL: `chat/completions`, `responses`, ... */
  route: string;
  /** Whether it streams when the run asks for streams (embeddings answer with one body). */
  streams: boolean;
  /**
   * Whether a stream is complete only after a terminal event (the Responses API's
   * `response.completed`): a stream that ends before one was cut. Chat streams may end without [DONE].
   */
  needsTerminalEvent: boolean;
  /** The request body before `extraBody`. */
  body(request: PreparedRequest, model: string): Record<string, unknown>;
  /** Sets over `extraBody` what the measurement depends on: streaming, and usage in the stream unless the run turned it off (`usage` false). */
  fixBody(body: Record<string, unknown>, stream: boolean, usage: boolean, asked: Record<string, unknown>): void;
  /** One streamed event's JSON (its SSE `event:` type beside it); chunks go to `output` at `now`. */
  readEvent(event: Record<string, unknown>, type: string, output: ResponseOutput, now: number): EventOutcome;
  /** A whole JSON body (no streaming), the answer to `request`. */
  readBody(body: unknown, output: ResponseOutput, request: PreparedRequest): ReadFailure | null;
  /** The text of an event that carries only text (a chunk template is learnt from it), or null. */
  textOnly(event: Record<string, unknown>): TextOnly | null;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Resolved by the caller (environment variable, SecretStorage); never written anywhere. */
  apiKey?: string;
  /** A run over several endpoints (`endpoints`): each one's key, in their order (the first is `apiKey`); never written anywhere. */
  apiKeys?: readonly (string | undefined)[];
  /** Where the result document is written as the run goes; undefined keeps it in memory only. */
  resultPath?: string;
  /**
   * With a result path: false leaves the request records in the file only, so that the run's
   * memory does not grow with its requests, and the document resolved has steps without records
   * (the engine worker's way). Default true.
   */
  keepRecords?: boolean;
  onEvent?: (event: RunEvent) => void;
  /** The executor threads' bundle for a run with more than one worker; dist/executor-worker.js beside this bundle by default. */
  executorScript?: string;
}

export type RunBenchmark = (config: RunConfig, options: RunOptions) => Promise<ResultDocument>;
