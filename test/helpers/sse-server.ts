/**
 * A programmable OpenAI-like server on 127.0.0.1 (port 0) for tests and benchmarks: each request
 * gets a script of raw writes, delays, a connection reset, silence or an endless trickle. Plus
 * builders for vLLM- and llama.cpp-shaped chat and completions streams.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { listenOnLoopback, readBody } from './loopback';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: unknown;
}

export type ScriptStep =
  /** Raw bytes or text, written as they are. */
  | string
  | Uint8Array
  | { delayMs: number }
  /** Destroys the socket: the client sees a reset mid-response. */
  | { reset: true }
  /** Writes nothing more and never ends (until the client gives up or the server closes). */
  | { hang: true }
  /** Writes an SSE comment line every `everyMs` until the client goes away. */
  | { trickleMs: number };

export interface ResponseScript {
  status?: number;
  headers?: Record<string, string>;
  /** Never send a byte, not even the status line. */
  silent?: boolean;
  steps?: ScriptStep[];
}

export type Responder = (request: RecordedRequest, index: number) => ResponseScript;

export interface ScriptedServer {
  port: number;
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
export const JSON_HEADERS = { 'content-type': 'application/json' };

export async function startScriptedServer(respond: Responder): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((text) => {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      return play(res, respond(recorded, requests.length - 1));
    });
  });
  return { ...(await listenOnLoopback(server)), requests };
}

async function play(res: ServerResponse, script: ResponseScript): Promise<void> {
  if (script.silent) return;
  res.writeHead(script.status ?? 200, script.headers ?? SSE_HEADERS);
  res.flushHeaders();
  for (const step of script.steps ?? []) {
    if (res.destroyed) return;
    if (typeof step === 'string' || step instanceof Uint8Array) res.write(step);
    else if ('delayMs' in step) await sleep(step.delayMs);
    else if ('reset' in step) {
      res.socket?.destroy();
      return;
    } else if ('hang' in step) return;
    else {
      while (!res.destroyed && !res.socket?.destroyed) {
        res.write(': keep-alive\n');
        await sleep(step.trickleMs);
      }
      return;
    }
  }
  res.end();
}

/** One SSE event carrying `value` as JSON. */
export function sseEvent(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

export const SSE_DONE = 'data: [DONE]\n\n';

export interface StreamShape {
  /** Text of each content chunk, in order. */
  pieces: string[];
  /** Reasoning chunks sent before the content (vLLM's `reasoning_content`). */
  reasoning?: string[];
  /** `usage` for the final chunk; omit for none. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  finishReason?: string;
  /** llama.cpp opens chat with `content: null` in the role chunk, vLLM with `content: ''`. */
  style?: 'vllm' | 'llama.cpp';
}

const usageOf = (u: StreamShape['usage']) => (u ? { ...u, total_tokens: u.prompt_tokens + u.completion_tokens } : undefined);

/** The events of a streamed chat completion: role chunk, reasoning, content, finish, usage chunk, [DONE]. */
export function chatStreamEvents(shape: StreamShape): string[] {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
  const chunk = (delta: object, finish: string | null = null) => sseEvent({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const events = [chunk({ role: 'assistant', content: shape.style === 'llama.cpp' ? null : '' })];
  for (const r of shape.reasoning ?? []) events.push(chunk({ reasoning_content: r, content: null }));
  for (const p of shape.pieces) events.push(chunk({ content: p }));
  events.push(chunk({}, shape.finishReason ?? 'length'));
  if (shape.usage) events.push(sseEvent({ ...base, choices: [], usage: usageOf(shape.usage) }));
  events.push(SSE_DONE);
  return events;
}

/** An OpenAI-compatible endpoint in miniature: GET lists `models`, every POST streams `reply` as a chat completion. */
export function startChatEndpoint(models: string[], reply: StreamShape): Promise<ScriptedServer> {
  return startScriptedServer((request) =>
    request.method === 'GET'
      ? { headers: JSON_HEADERS, steps: [JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) })] }
      : { steps: chatStreamEvents(reply) },
  );
}

/** The events of a streamed completion; llama.cpp puts usage on the finishing chunk itself. */
export function completionStreamEvents(shape: StreamShape): string[] {
  const base = { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm' };
  const choice = (text: string, finish: string | null = null) => ({ index: 0, text, logprobs: null, finish_reason: finish });
  const events = shape.pieces.map((p) => sseEvent({ ...base, choices: [choice(p)] }));
  const finish = shape.finishReason ?? 'length';
  if (shape.style === 'llama.cpp') {
    events.push(sseEvent({ ...base, choices: [choice('', finish)], usage: usageOf(shape.usage) }));
  } else {
    events.push(sseEvent({ ...base, choices: [choice('', finish)] }));
    if (shape.usage) events.push(sseEvent({ ...base, choices: [], usage: usageOf(shape.usage) }));
  }
  events.push(SSE_DONE);
  return events;
}

/** A non-streamed chat completion body. */
export function chatCompletionBody(content: string, usage?: StreamShape['usage'], reasoning?: string): string {
  const message = { role: 'assistant', content, ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}) };
  return JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message, finish_reason: 'stop' }], usage: usageOf(usage) });
}

/** A non-streamed completion body. */
export function completionBody(text: string, usage?: StreamShape['usage']): string {
  return JSON.stringify({ id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text, finish_reason: 'length' }], usage: usageOf(usage) });
}
