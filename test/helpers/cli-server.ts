/**
 * A token server: an OpenAI-compatible server on 127.0.0.1 for the command-line tests and the engine
 * benchmark: chat and completions, streaming the way llama-server does (a role-only first chunk,
 * usage on a final chunk when asked), one token per content chunk, max_tokens of them, with a
 * programmed delay before the first token and between tokens. It can keep, per prompt, when the
 * request arrived and when each chunk was written, so a benchmark can tell the server's share of
 * a timing error from the client's.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { listenOnLoopback, readBody } from './loopback';

export interface TokenServerOptions {
  /** Delay from the request's arrival to the first content chunk, ms (0: everything at once). */
  firstTokenMs?: number;
  /** Delay between content chunks, ms. */
  gapMs?: number;
  /** Content chunks when a request sends no max_tokens. */
  defaultTokens?: number;
  /** Answer every completion request with this status and an OpenAI-style error body. */
  failStatus?: number;
  /** Keep each request's headers and body in `requests` (off for load: it would grow). */
  keepRequests?: boolean;
  /** Keep each streamed request's arrival and chunk write times in `writes`, keyed by prompt. */
  traceWrites?: boolean;
  /** A reasoning model: the first this many chat chunks carry `delta[reasoningField]` instead of content. */
  reasoningTokens?: number;
  /** `reasoning` (vLLM 0.11 and later, default) or `reasoning_content`. */
  reasoningField?: 'reasoning' | 'reasoning_content';
}

/** Server-side times of one streamed request (this process's performance.now()). */
export interface WriteTrace {
  /** When its request line and headers had been parsed (before its body was read). */
  arrivedMs: number;
  /** When each content chunk was written. */
  writtenMs: number[];
}

export interface SeenRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface TokenServer {
  baseUrl: string;
  port: number;
  readonly requests: SeenRequest[];
  /** By prompt text (a completions prompt, or the last chat message's content). */
  readonly writes: Map<string, WriteTrace>;
  close(): Promise<void>;
}

export const TOKEN_SERVER_MODEL = 'token-server-model';

export async function startTokenServer(options: TokenServerOptions = {}): Promise<TokenServer> {
  const { firstTokenMs = 0, gapMs = 0, defaultTokens = 8, failStatus, keepRequests = true, traceWrites = false, reasoningTokens = 0, reasoningField = 'reasoning' } = options;
  const requests: SeenRequest[] = [];
  const writes = new Map<string, WriteTrace>();
  const instantBodies = new Map<string, string>();

  const handle = (req: IncomingMessage, res: ServerResponse, text: string, arrivedMs: number) => {
    const path = (req.url ?? '').replace(/\?.*$/, '');
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: TOKEN_SERVER_MODEL, object: 'model' }] }));
      return;
    }
    const chat = path === '/v1/chat/completions';
    if (req.method !== 'POST' || (!chat && path !== '/v1/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}`, type: 'not_found' } }));
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'body is not JSON', type: 'invalid_request_error' } }));
      return;
    }
    if (keepRequests) requests.push({ path, headers: req.headers, body });
    if (failStatus !== undefined) {
      res.writeHead(failStatus, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `token server failure ${failStatus}`, type: 'server_error' } }));
      return;
    }

    const maxTokens = Number(body.max_tokens ?? body.max_completion_tokens ?? defaultTokens);
    const tokens = Number.isInteger(maxTokens) && maxTokens > 0 ? maxTokens : defaultTokens;
    const promptTokens = Math.max(1, Math.round(JSON.stringify(body.messages ?? body.prompt ?? '').length / 4));
    const usage = { prompt_tokens: promptTokens, completion_tokens: tokens, total_tokens: promptTokens + tokens };
    const choice = (content: string | null, finish: string | null, reasoning = false) =>
      chat
        ? { index: 0, delta: content === null ? { role: 'assistant', content: null } : reasoning ? { [reasoningField]: content } : { content }, finish_reason: finish }
        : { index: 0, text: content ?? '', finish_reason: finish };
    const event = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
    const object = chat ? 'chat.completion.chunk' : 'text_completion';

    if (body.stream !== true) {
      const finish = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const text = 'tok '.repeat(tokens);
        const choiceBody = chat ? { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'length' } : { index: 0, text, finish_reason: 'length' };
        res.end(JSON.stringify({ id: 'token-server', object: chat ? 'chat.completion' : 'text_completion', model: TOKEN_SERVER_MODEL, choices: [choiceBody], usage }));
      };
      const totalMs = firstTokenMs + gapMs * (tokens - 1);
      if (totalMs > 0) setTimeout(finish, totalMs);
      else finish();
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (chat) res.write(event({ id: 'token-server', object, model: TOKEN_SERVER_MODEL, choices: [choice(null, null)] }));
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const tokenEvent = (k: number) => {
      const last = k === tokens - 1;
      // llama-server's completions put usage on the chunk with finish_reason; chat sends it after.
      const extra = last && !chat ? { usage } : {};
      return event({ id: 'token-server', object, model: TOKEN_SERVER_MODEL, choices: [choice('tok ', last ? 'length' : null, k < reasoningTokens)], ...extra });
    };
    const closing = (chat && includeUsage ? event({ id: 'token-server', object, model: TOKEN_SERVER_MODEL, choices: [], usage }) : '') + 'data: [DONE]\n\n';
    const end = () => res.end(closing);
    if (firstTokenMs === 0 && gapMs === 0) {
      // One write of a body built once per shape: the server stays cheap, so a benchmark
      // measures the client's parsing rather than this process's JSON work.
      const key = `${path} ${tokens} ${promptTokens} ${includeUsage}`;
      let rest = instantBodies.get(key);
      if (rest === undefined) {
        rest = Array.from({ length: tokens }, (_, k) => tokenEvent(k)).join('') + closing;
        instantBodies.set(key, rest);
      }
      res.end(rest);
      return;
    }
    const trace: WriteTrace = { arrivedMs, writtenMs: [] };
    if (traceWrites) writes.set(promptKey(body), trace);
    // Each chunk is aimed at an absolute time from arrival, so timer lateness does not accumulate.
    const sendAt = (k: number) => {
      const target = arrivedMs + firstTokenMs + gapMs * k;
      setTimeout(() => {
        if (res.destroyed) return;
        if (traceWrites) trace.writtenMs.push(performance.now());
        res.write(tokenEvent(k));
        if (k === tokens - 1) end();
        else sendAt(k + 1);
      }, Math.max(0, target - performance.now()));
    };
    sendAt(0);
  };

  const server = createServer((req, res) => {
    // Stamped as soon as the request line and headers are parsed, before the body is read: the
    // programmed delays count from here, and a benchmark charges anything earlier to the client.
    const arrivedMs = performance.now();
    void readBody(req).then((text) => handle(req, res, text, arrivedMs));
  });
  server.keepAliveTimeout = 60_000;
  return { ...(await listenOnLoopback(server)), requests, writes };
}

/** The prompt a request carries: a completions prompt, or the last chat message's text. */
export function promptKey(body: Record<string, unknown>): string {
  if (typeof body.prompt === 'string') return body.prompt;
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : [];
  const content = messages.at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? null);
}

/** A 127.0.0.1 port with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const { port, close } = await listenOnLoopback(createServer());
  await close();
  return port;
}
