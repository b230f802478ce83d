/**
 * The Responses API (`POST /v1/responses`, served by OpenAI, vLLM, SGLang and llama.cpp): the
 * request, and its typed events read into the same record fields as chat's chunks.
 *
 * Streamed events carry their type in JSON (`"type"`, also on the SSE `event:` line):
 * `response.output_text.delta` (answer text), `response.reasoning_text.delta` (raw reasoning:
 * vLLM, llama.cpp, gpt-oss) and `response.reasoning_summary_text.delta` (OpenAI's summaries),
 * `response.refusal.delta` (a refusal is the answer), then one terminal event:
 * `response.completed` or `response.incomplete` with the usage, or `response.failed` with its
 * error; an `error` event fails the request too. A stream that ends before a terminal event was cut.
 *
 * A conversation is sent whole with every turn (its messages as `input`), never as a
 * `previous_response_id`: that needs the server to store responses (vLLM does not by default), and
 * resending the history measures the same prefill as chat does (docs/workloads.md).
 */
import { quote } from '../format/errors';
import { promptFor } from '../workload/prompt';
import type { ApiProtocol, EventOutcome, ReadFailure, TextOnly } from './types';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const ANSWER_DELTAS = new Set(['response.output_text.delta', 'response.refusal.delta']);
const REASONING_DELTAS = new Set(['response.reasoning_text.delta', 'response.reasoning_summary_text.delta']);

/** A Responses status or incomplete reason as a chat finish reason: `max_output_tokens` is `length`. */
function finishReasonOf(response: Record<string, unknown>): string {
  if (response.status === 'incomplete') {
    const reason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    return reason === 'max_output_tokens' ? 'length' : typeof reason === 'string' ? reason : 'incomplete';
  }
  return 'stop';
}

/** The message of an error object (`{code, message}`), or of the event itself. */
function errorText(error: unknown): string {
  if (isObject(error)) {
    const code = typeof error.code === 'string' ? `${error.code}: ` : '';
    if (typeof error.message === 'string') return code + error.message;
  }
  return typeof error === 'string' ? error : JSON.stringify(error);
}

export const responsesProtocol: ApiProtocol = {
  route: 'responses',
  streams: true,
  needsTerminalEvent: true,

  body(request, model) {
    const body: Record<string, unknown> = { model, input: promptFor(request.prompt, true) };
    if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
    return body;
  },

  fixBody(body, stream) {
    body.stream = stream;
  },

  readEvent(event, sseType, output, now): EventOutcome {
    const type = typeof event.type === 'string' ? event.type : sseType;
    if (ANSWER_DELTAS.has(type)) {
      if (typeof event.delta === 'string') output.add(now, '', event.delta);
      return null;
    }
    if (REASONING_DELTAS.has(type)) {
      if (typeof event.delta === 'string') output.add(now, event.delta, '');
      return null;
    }
    if (type === 'error') return { kind: 'server', message: 'the server sent an error event mid-stream', detail: quote(errorText(event.error ?? event)) };
    if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
      const response = isObject(event.response) ? event.response : {};
      output.readUsage(response.usage);
      if (type === 'response.failed') return { kind: 'server', message: 'the server failed the response (response.failed)', detail: quote(errorText(response.error ?? 'no error given')) };
      output.finishReason = finishReasonOf(response);
      return 'complete';
    }
    return null;
  },

  readBody(body, output): ReadFailure | null {
    if (!isObject(body) || !Array.isArray(body.output)) return { kind: 'protocol', message: 'the response has no "output" list', detail: quote(JSON.stringify(body)) };
    if (body.status === 'failed') return { kind: 'server', message: 'the server failed the response', detail: quote(errorText(body.error ?? 'no error given')) };
    let reasoning = '';
    let answer = '';
    for (const item of body.output) {
      if (!isObject(item)) continue;
      if (item.type === 'message' && Array.isArray(item.content)) {
        for (const part of item.content) if (isObject(part)) answer += typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : '';
      } else if (item.type === 'reasoning') {
        // The raw reasoning when the server gives it, else its summary.
        const raw = Array.isArray(item.content) ? item.content : [];
        const parts = raw.length > 0 ? raw : Array.isArray(item.summary) ? item.summary : [];
        for (const part of parts) if (isObject(part) && typeof part.text === 'string') reasoning += part.text;
      }
    }
    output.add(null, reasoning, answer);
    output.readUsage(body.usage);
    output.finishReason = finishReasonOf(body);
    return null;
  },

  textOnly(event): TextOnly | null {
    if (typeof event.delta !== 'string' || typeof event.type !== 'string') return null;
    if (event.type === 'response.output_text.delta') return { member: 'delta', text: event.delta, reasoning: false };
    if (REASONING_DELTAS.has(event.type)) return { member: 'delta', text: event.delta, reasoning: true };
    return null;
  },
};
