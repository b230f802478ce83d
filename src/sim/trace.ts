/**
 * The simulator's own record of each request: when it arrived, when the model scheduled it and
 * produced each token, and when each token was actually written to the socket. Tests compare a
 * client's measurements with it; the lateness of writes against model times is the simulator's
 * timing accuracy.
 *
 * Times are epoch milliseconds with sub-millisecond precision (performance.timeOrigin +
 * performance.now()), so that they compare across threads of one process (a worker has its own
 * performance.now() origin) and with a client's clock on the same machine.
 */
import { appendFileSync } from 'node:fs';
import * as z from 'zod';
import { computeStats } from '../results/stats';
import type { Stats } from '../format/result';

export const FaultKindSchema = z.enum(['error', 'disconnect', 'stall', 'malformed']);
export type FaultKind = z.infer<typeof FaultKindSchema>;

export const RequestTraceSchema = z.object({
  /** Order of arrival since the server started, from 0. */
  index: z.number().int().nonnegative(),
  id: z.string(),
  api: z.enum(['chat', 'completions', 'responses', 'embeddings']),
  stream: z.boolean(),
  /** HTTP status sent (an injected error's status, 200 otherwise). */
  status: z.number().int(),
  fault: FaultKindSchema.nullable(),
  promptTokens: z.number().int().nonnegative(),
  /** Prompt tokens found in the prefix cache. */
  cachedTokens: z.number().int().nonnegative(),
  /** Tokens the request was to produce (max_tokens, or its natural length when shorter). */
  targetTokens: z.number().int().nonnegative(),
  /** Tokens sent. */
  outputTokens: z.number().int().nonnegative(),
  /** Of the target, how many were reasoning (streamed first); absent from older traces. */
  reasoningTokens: z.number().int().nonnegative().optional(),
  /** Inputs of an embeddings request. */
  inputs: z.number().int().nonnegative().optional(),
  finishReason: z.string().nullable(),
  preemptions: z.number().int().nonnegative(),
  /** The body was read. */
  arrivalMs: z.number(),
  /** Model time the scheduler first gave it a step (null if it never ran). */
  scheduledMs: z.number().nullable(),
  /** Model time of each token (the end of the step that sampled it); an embeddings request's: when each input was encoded. */
  tokenMs: z.array(z.number()),
  /** When each token was written to the socket (streaming only; empty without streaming). */
  writeMs: z.array(z.number()),
  /** When the response was ended (or the connection dropped). */
  closedMs: z.number().nullable(),
});
export type RequestTrace = z.infer<typeof RequestTraceSchema>;

export const TraceResponseSchema = z.object({ requests: z.array(RequestTraceSchema) });

/** Keeps the last `limit` finished traces in memory and appends each to `file` if given. */
export class TraceLog {
  private readonly finished: RequestTrace[] = [];

  constructor(
    private readonly limit: number,
    private readonly file: string | undefined,
  ) {}

  add(trace: RequestTrace): void {
    this.finished.push(trace);
    if (this.finished.length > this.limit) this.finished.splice(0, this.finished.length - this.limit);
    // Synchronous on purpose: the line is short, and an async write would reorder lines.
    if (this.file) appendFileSync(this.file, JSON.stringify(trace) + '\n');
  }

  list(): RequestTrace[] {
    return this.finished.slice();
  }
}

/**
 * How late streamed tokens were written against their model time, in milliseconds, over the
 * requests given (requests with an injected stall are left out: their lateness is the fault).
 */
export function tokenLateness(traces: readonly RequestTrace[]): Stats | null {
  const values: number[] = [];
  for (const t of traces) {
    if (!t.stream || t.fault === 'stall') continue;
    for (let i = 0; i < t.writeMs.length; i++) values.push((t.writeMs[i] as number) - (t.tokenMs[i] as number));
  }
  return computeStats(values);
}
