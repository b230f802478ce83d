/**
 * Chat completions and completions (`/v1/chat/completions`, `/v1/completions`): the request, and
 * its chunks read into a record. A chat delta's reasoning comes in `reasoning_content` (DeepSeek's
 * API, SGLang, llama.cpp, vLLM before 0.11) or `reasoning` (vLLM 0.11 and later, Ollama); a server
 * that sends both with the same text is read once. Completions have no reasoning field: a model
 * that thinks writes its tags into the text, which `reasoningTags` splits.
 */
import { quote } from '../format/errors';
import { promptFor } from '../workload/prompt';
import type { ResponseOutput } from './output';
import type { ApiProtocol, EventOutcome, ReadFailure, TextOnly } from './types';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The message of an OpenAI-style `error` member: an object with `message`, or a string. */
export function serverErrorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isObject(error) && typeof error.message === 'string') return error.message;
  return JSON.stringify(error);
}

/** The reasoning of a delta or message: `reasoning_content`, else `reasoning`. */
const reasoningOf = (part: Record<string, unknown>): unknown => part.reasoning_content ?? part.reasoning;

/** Reads one event's (or body's) choices into `output` as one chunk, and notes a finish reason. */
function readChoices(choices: unknown[], member: 'delta' | 'message', output: ResponseOutput, now: number | null): void {
  let reasoning = '';
  let answer = '';
  for (const choice of choices) {
    if (!isObject(choice)) continue;
    if (typeof choice.finish_reason === 'string') output.finishReason = choice.finish_reason;
    if (typeof choice.text === 'string') {
      answer += choice.text;
      continue;
    }
    const part = choice[member];
    if (!isObject(part)) continue;
    const thought = reasoningOf(part);
    if (typeof thought === 'string') reasoning += thought;
    if (typeof part.content === 'string') answer += part.content;
  }
  output.add(now, reasoning, answer);
}

export function chatProtocol(api: 'chat' | 'completions'): ApiProtocol {
  const chat = api === 'chat';
  return {
    route: chat ? 'chat/completions' : 'completions',
    streams: true,
    needsTerminalEvent: false,

    body(request, model) {
      const body: Record<string, unknown> = { model };
      if (chat) body.messages = promptFor(request.prompt, true);
      else body.prompt = promptFor(request.prompt, false);
      if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
      return body;
    },

    fixBody(body, stream, usage, asked) {
      body.stream = stream;
      if (stream && usage) body.stream_options = { ...(isObject(asked.stream_options) ? asked.stream_options : {}), include_usage: true };
    },

    readEvent(event, type, output, now): EventOutcome {
      if (event.error !== undefined && event.error !== null) return { kind: 'server', message: 'the server sent an error mid-stream', detail: quote(serverErrorText(event.error)) };
      if (type === 'error') return { kind: 'server', message: 'the server sent an error event mid-stream', detail: quote(JSON.stringify(event)) };
      if (Array.isArray(event.choices)) readChoices(event.choices, 'delta', output, now);
      if (event.usage !== undefined) output.readUsage(event.usage);
      return null;
    },

    readBody(body, output): ReadFailure | null {
      if (!isObject(body) || !Array.isArray(body.choices)) return { kind: 'protocol', message: 'the response has no "choices"', detail: quote(JSON.stringify(body)) };
      readChoices(body.choices, 'message', output, null);
      output.readUsage(body.usage);
      return null;
    },

    /** One choice with a string `text` (completions) or delta `content` or reasoning (chat), and no finish reason, usage or error. */
    textOnly(event): TextOnly | null {
      if ((event.error ?? null) !== null || (event.usage ?? null) !== null) return null;
      const choices = event.choices;
      if (!Array.isArray(choices) || choices.length !== 1) return null;
      const choice: unknown = choices[0];
      if (!isObject(choice) || typeof choice.finish_reason === 'string') return null;
      if (typeof choice.text === 'string') return { member: 'text', text: choice.text, reasoning: false };
      const delta = choice.delta;
      if (!isObject(delta)) return null;
      const hasContent = typeof delta.content === 'string' && delta.content.length > 0;
      const thought = reasoningOf(delta);
      if (typeof thought === 'string' && thought.length > 0) {
        if (hasContent) return null;
        // Both names in one delta cannot be cut around one of them: the probe would read the other.
        return { member: typeof delta.reasoning_content === 'string' ? 'reasoning_content' : 'reasoning', text: thought, reasoning: true };
      }
      if (typeof delta.content !== 'string') return null;
      return { member: 'content', text: delta.content, reasoning: false };
    },
  };
}
