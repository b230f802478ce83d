/**
 * The seams of the load loop: prepared request -> client -> record, and the entry point of a run.
 * Kept in one place so that each part can be built and tested on its own.
 */
import type { RunConfig } from '../format/config';
import type { RunEvent } from '../format/events';
import type { RequestRecord, ResultDocument } from '../format/result';
import type { PreparedRequest, TokenCounter } from '../workload/types';

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
  /** Shard 0 of a run split into shards (shards.ts): it coordinates the others. */
  shard?: import('./shard-protocol').ShardRole;
  /** The executor threads' bundle for a run with more than one worker; dist/executor-worker.js beside this bundle by default. */
  executorScript?: string;
}

export type RunBenchmark = (config: RunConfig, options: RunOptions) => Promise<ResultDocument>;
