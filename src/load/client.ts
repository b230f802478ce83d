/**
 * Sends one OpenAI-compatible request and measures it into a RequestRecord.
 *
 * It talks to undici's dispatcher directly (no response stream object in between): each socket
 * read arrives as one callback, is stamped with a single performance.now() and fed to the
 * byte-level SSE parser. Per event only the fields a record needs are read from the parsed JSON,
 * and the many chunks that repeat a response's text-only shape are read without parsing
 * (chunk-template.ts).
 */
import { STATUS_CODES } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Agent, type Dispatcher } from 'undici';
import type { RequestConfig, RunConfig } from '../format/config';
import type { ErrorKind, RequestRecord, TokenSource } from '../format/result';
import { ChunkTemplate } from './chunk-template';
import { errorCode, QUOTE_LENGTH, quote } from '../format/errors';
import { withApiKey } from '../observe/probe-core';
import { SseParser } from './sse';
import { promptFor } from '../workload/prompt';
import type { PreparedRequest } from '../workload/types';
import type { ClientContext, SendRequest } from './types';

/** The step's connection pool: one keep-alive connection per concurrent request. Never global. */
export function createDispatcher(concurrency: number, request: RequestConfig): Dispatcher {
  return new Agent({
    connections: concurrency,
    pipelining: 1,
    connectTimeout: request.connectTimeoutMs,
    // undici's headers and body timeouts both watch for silence: together they are the idle timeout.
    headersTimeout: request.idleTimeoutMs,
    bodyTimeout: request.idleTimeoutMs,
  });
}

/** Error and non-JSON bodies are kept up to this size: enough for a message, bounded for a flood. */
const ERROR_BODY_LIMIT = 4096;
/** A non-streamed completion body may be large (long outputs), but not unbounded. */
const JSON_BODY_LIMIT = 64 * 1024 * 1024;

interface Endpoint {
  origin: string;
  path: string;
  url: string;
  api: RunConfig['endpoint']['api'];
  model: string;
  stream: boolean;
  /** Whether a stream asks for the server's usage (wantsUsage). */
  usage: boolean;
  headers: Record<string, string>;
  extraBody: Record<string, unknown>;
  idleTimeoutMs: number;
  totalTimeoutMs: number;
}

const endpoints = new WeakMap<RunConfig, Endpoint>();

/** What a config means for the wire, worked out once per config rather than per request. */
function endpointOf(config: RunConfig): Endpoint {
  let endpoint = endpoints.get(config);
  if (endpoint === undefined) {
    const base = new URL(config.endpoint.baseUrl);
    const basePath = base.pathname.replace(/\/+$/, '');
    const path = `${basePath}/${config.endpoint.api === 'chat' ? 'chat/completions' : 'completions'}`;
    endpoint = {
      origin: base.origin,
      path,
      url: base.origin + path,
      api: config.endpoint.api,
      model: config.endpoint.model,
      stream: config.request.stream,
      usage: wantsUsage(config.request),
      headers: {
        ...config.endpoint.headers,
        'content-type': 'application/json',
        accept: config.request.stream ? 'text/event-stream' : 'application/json',
      },
      extraBody: config.request.extraBody,
      idleTimeoutMs: config.request.idleTimeoutMs,
      totalTimeoutMs: config.request.totalTimeoutMs,
    };
    endpoints.set(config, endpoint);
  }
  return endpoint;
}

function requestBody(endpoint: Endpoint, request: PreparedRequest): string {
  const body: Record<string, unknown> = { model: endpoint.model };
  if (endpoint.api === 'chat') {
    body.messages = promptFor(request.prompt, true);
  } else {
    body.prompt = promptFor(request.prompt, false);
  }
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  Object.assign(body, endpoint.extraBody);
  // The measurement depends on streaming, so extraBody cannot turn it off; usage it can (wantsUsage).
  body.stream = endpoint.stream;
  if (endpoint.stream && endpoint.usage) {
    const asked = endpoint.extraBody.stream_options;
    body.stream_options = { ...(isObject(asked) ? asked : {}), include_usage: true };
  }
  return JSON.stringify(body);
}

/**
 * Whether streamed requests ask for the server's token counts: unless `request.usage` is false or
 * the extra body sets `stream_options.include_usage` to false (some servers and gateways reject
 * the field). Without them the counts are the tokenizer's or the estimate, and say so.
 */
export function wantsUsage(request: RequestConfig): boolean {
  const asked = request.extraBody.stream_options;
  return request.usage && !(isObject(asked) && asked.include_usage === false);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function httpHint(status: number): string {
  if (status === 401 || status === 403) return ' Check the API key.';
  if (status === 404) return ' Check that the base URL ends with /v1 and that the model name is one the server serves.';
  if (status === 400 || status === 422) return ' The server rejected the request: check the model name, max tokens and extra body fields.';
  if (status === 413) return ' The prompt is too large for the server.';
  if (status === 429) return ' The server is rate limiting: lower the rate or the concurrency.';
  if (status >= 500) return ' The server failed: see its log.';
  return '';
}

/** The message of an OpenAI-style `error` member: an object with `message`, or a string. */
function serverErrorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (isObject(error) && typeof error.message === 'string') return error.message;
  return JSON.stringify(error);
}

const RESET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);
/**
 * A kept-alive socket the server has closed meanwhile fails the next request with one of these
 * before any response: llama-server, for one, closes after each streamed response while still
 * advertising keep-alive. Such a request is retried once on a new connection.
 */
const STALE_SOCKET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);
const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);
const POOL_CLOSED_CODES = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED']);
/** This process ran out of something it needs to open a connection: a limit of the client, not the server. */
const CLIENT_RESOURCE_CODES = new Set(['EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM']);

/** In-flight exchanges per step signal: one abort listener per signal, not one per request. */
const inFlight = new WeakMap<AbortSignal, Set<Exchange>>();

function track(signal: AbortSignal, exchange: Exchange): void {
  let set = inFlight.get(signal);
  if (set === undefined) {
    const exchanges = new Set<Exchange>();
    set = exchanges;
    inFlight.set(signal, exchanges);
    signal.addEventListener(
      'abort',
      () => {
        for (const e of exchanges) e.fail('cancelled', 'cancelled before the response completed');
        exchanges.clear();
      },
      { once: true },
    );
  }
  set.add(exchange);
}

/** A response whose first text-only chunks give no usable template is parsed chunk by chunk. */
const TEMPLATE_TRIES = 2;

/**
 * The text of a chunk that carries nothing else: one choice with a string `text` (completions)
 * or `delta.content` (chat), no reasoning, finish reason, usage or error. Null for other chunks.
 */
function textOnlyChunk(event: Record<string, unknown>): { member: 'text' | 'content'; text: string } | null {
  if ((event.error ?? null) !== null || (event.usage ?? null) !== null) return null;
  const choices = event.choices;
  if (!Array.isArray(choices) || choices.length !== 1) return null;
  const choice: unknown = choices[0];
  if (!isObject(choice) || typeof choice.finish_reason === 'string') return null;
  if (typeof choice.text === 'string') return { member: 'text', text: choice.text };
  const delta = choice.delta;
  if (!isObject(delta) || typeof delta.content !== 'string') return null;
  if (typeof delta.reasoning_content === 'string' || typeof delta.reasoning === 'string') return null;
  return { member: 'content', text: delta.content };
}

/** Why the exchange stopped itself: distinguishes our own aborts from undici's errors. */
class Stopped extends Error {}

class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private status: number | null = null;
  private statusMessage = '';
  private mode: 'sse' | 'json' | 'error' = 'json';
  private parser: SseParser | null = null;
  private body: Buffer[] = [];
  private bodyBytes = 0;
  private bodyLimit = JSON_BODY_LIMIT;
  /** Arrival of the socket read being parsed, in step time. */
  private now = 0;
  private firstTokenMs: number | null = null;
  private readonly chunkMs: number[] = [];
  private lastContentMs: number | null = null;
  private readonly output: string[] = [];
  /** The shape of this response's text-only chunks, once learnt: such chunks are read without JSON.parse. */
  private template: ChunkTemplate | null = null;
  private templateTries = 0;
  private promptTokens: number | null = null;
  private completionTokens: number | null = null;
  private finishReason: string | null = null;
  private done = false;
  private error: { kind: ErrorKind; message: string } | null = null;
  private endMs: number | null = null;
  private settled = false;
  private timer: NodeJS.Timeout | undefined;
  /** When the request was handed to undici; onRequestStart moves it to when it is written. */
  private sentMs: number;
  private headers: Record<string, string> = {};
  private requestBody = '';
  /** The one-connection pool of the retry after a stale socket; null until then. */
  private retryDispatcher: Dispatcher | null = null;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly request: PreparedRequest,
    private readonly meta: { index: number; warmup: boolean; scheduledMs: number },
    private readonly context: ClientContext,
    private readonly resolve: (record: RequestRecord) => void,
  ) {
    this.sentMs = performance.now() - context.stepStartMs;
  }

  start(headers: Record<string, string>, body: string): void {
    const { signal } = this.context;
    if (signal.aborted) {
      this.fail('cancelled', 'cancelled before it was sent');
      return;
    }
    track(signal, this);
    this.timer = setTimeout(
      () => this.fail('timeout-total', `no complete response from ${this.endpoint.url} within the total timeout of ${this.endpoint.totalTimeoutMs} ms${this.progress()}.`),
      this.endpoint.totalTimeoutMs,
    );
    this.timer.unref();
    this.headers = headers;
    this.requestBody = body;
    this.dispatchOn(this.context.dispatcher);
  }

  private dispatchOn(dispatcher: Dispatcher): void {
    dispatcher.dispatch(
      {
        origin: this.endpoint.origin,
        path: this.endpoint.path,
        method: 'POST',
        headers: this.headers,
        body: this.requestBody,
        headersTimeout: this.endpoint.idleTimeoutMs,
        bodyTimeout: this.endpoint.idleTimeoutMs,
      },
      this,
    );
  }

  /**
   * undici calls this when the request has a connection and its bytes are about to be written.
   * That is the send time: until then the request waited in the client (for a connection to be
   * made, or for undici to reuse a kept-alive one, which it does only on the next turn of the
   * event loop), and that wait is queue time, not the server's time to first token.
   */
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Settled while waiting for a connection (cancel, total timeout): drop it now.
    if (this.settled) {
      controller.abort(new Stopped('request already settled'));
      return;
    }
    this.sentMs = performance.now() - this.context.stepStartMs;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    this.status = statusCode;
    this.statusMessage = statusMessage || STATUS_CODES[statusCode] || '';
    const contentType = String(headers['content-type'] ?? '');
    this.mode = 'json';
    this.bodyLimit = JSON_BODY_LIMIT;
    if (statusCode < 200 || statusCode >= 300) {
      this.mode = 'error';
      this.bodyLimit = ERROR_BODY_LIMIT;
    } else if (this.endpoint.stream && !contentType.includes('json')) {
      // Some servers label their event stream text/plain or not at all: parse it as SSE anyway.
      this.mode = 'sse';
      this.bodyLimit = QUOTE_LENGTH;
      this.parser = new SseParser((data, type) => this.onEvent(data, type));
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    const arrivedMs = performance.now() - this.context.stepStartMs;
    if (this.bodyBytes < this.bodyLimit) this.body.push(chunk);
    this.bodyBytes += chunk.length;
    if (this.parser !== null) {
      this.now = arrivedMs;
      this.parser.push(chunk);
    } else if (this.mode === 'json' && this.bodyBytes > JSON_BODY_LIMIT) {
      this.fail('protocol', `the response body from ${this.endpoint.url} exceeds ${JSON_BODY_LIMIT} bytes.`);
    }
  }

  onResponseEnd(): void {
    if (this.settled) return;
    const endedMs = performance.now() - this.context.stepStartMs;
    if (this.mode === 'error') {
      const status = this.status ?? 0;
      const text = quote(this.bodyText());
      this.fail('http', `HTTP ${status} ${this.statusMessage} from ${this.endpoint.url}${text ? `: ${text}` : ''}.${httpHint(status)}`);
    } else if (this.parser !== null) {
      const parser = this.parser;
      parser.end();
      if (this.settled) return; // the last event was an error
      if (parser.eventCount === 0) {
        const text = quote(this.bodyText());
        this.fail('protocol', `the response from ${this.endpoint.url} has no SSE data events${text ? `: ${text}` : ' (empty body)'}.`);
        return;
      }
      this.succeed(this.lastContentMs ?? endedMs);
    } else {
      this.onJsonBody(endedMs);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settled || error instanceof Stopped) return;
    const code = errorCode(error);
    if (code !== undefined && STALE_SOCKET_CODES.has(code) && this.status === null && this.retryDispatcher === null) {
      this.retryOnNewConnection();
      return;
    }
    const url = this.endpoint.url;
    if (code === 'ECONNREFUSED') this.fail('connect', `connection refused at ${url}: is the server running?`);
    else if (code !== undefined && NOT_FOUND_CODES.has(code)) this.fail('connect', `host not found for ${url} (${code}): check the base URL.`);
    else if (code === 'UND_ERR_CONNECT_TIMEOUT') this.fail('timeout-connect', `no connection to ${url} within the connect timeout: is the host reachable?`);
    else if (code === 'UND_ERR_HEADERS_TIMEOUT') this.fail('timeout-idle', `no response from ${url} within the idle timeout of ${this.endpoint.idleTimeoutMs} ms: the server accepted the request but sent nothing.`);
    else if (code === 'UND_ERR_BODY_TIMEOUT') this.fail('timeout-idle', `the response from ${url} stalled: no byte for the idle timeout of ${this.endpoint.idleTimeoutMs} ms${this.progress()}.`);
    else if (code !== undefined && RESET_CODES.has(code)) {
      const when = this.status === null ? `before responding${this.retryDispatcher !== null ? ', also when retried on a new connection' : ''}` : `mid-response${this.progress()}`;
      this.fail('reset', `the server at ${url} closed the connection ${when} (${code}).`);
    } else if (code !== undefined && POOL_CLOSED_CODES.has(code)) this.fail('cancelled', `the connection pool was closed before the response completed (${code}).`);
    else if (code !== undefined && /TLS|CERT|SSL/.test(code)) this.fail('connect', `TLS failed for ${url}: ${error.message} (${code}).`);
    else if (code !== undefined && CLIENT_RESOURCE_CODES.has(code)) {
      this.fail('client', `this machine could not open a connection to ${url} (${code}): ${code === 'EMFILE' || code === 'ENFILE' ? 'too many open files; raise the limit with `ulimit -n` or lower the concurrency' : 'out of memory or buffers'}.`);
    }
    else this.fail('other', `request to ${url} failed: ${error.message}${code ? ` (${code})` : ''}.`);
  }

  /**
   * Sends the request again on a connection of its own: the pool could hand out another socket
   * the server has closed too. Its onRequestStart takes the send time again, so queue time and
   * latency count from the request that was answered. Nothing of a response had arrived, so
   * nothing is lost.
   */
  private retryOnNewConnection(): void {
    this.controller = null;
    this.retryDispatcher = createDispatcher(1, this.context.config.request);
    this.dispatchOn(this.retryDispatcher);
  }

  /** One SSE event: only the fields a record needs are looked at. */
  private onEvent(data: string, type: string): void {
    if (this.done || this.settled) return;
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    if (this.template !== null && type === 'message') {
      const text = this.template.textOf(data);
      if (text !== null) {
        this.addContent(text);
        return;
      }
    }
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      this.fail('protocol', `malformed SSE event from ${this.endpoint.url}: its data is not JSON: ${quote(data)}`);
      return;
    }
    if (!isObject(event)) {
      this.fail('protocol', `malformed SSE event from ${this.endpoint.url}: its data is not a JSON object: ${quote(data)}`);
      return;
    }
    if (event.error !== undefined && event.error !== null) {
      this.fail('server', `the server sent an error mid-stream${this.progress()}: ${quote(serverErrorText(event.error))}`);
      return;
    }
    if (type === 'error') {
      this.fail('server', `the server sent an error event mid-stream${this.progress()}: ${quote(data)}`);
      return;
    }
    const choices = event.choices;
    if (Array.isArray(choices)) {
      let content = '';
      for (const choice of choices) content += this.readChoice(choice, 'delta');
      this.addContent(content);
      if (this.template === null && this.templateTries < TEMPLATE_TRIES && type === 'message' && content.length > 0) this.learnTemplate(data, event);
    }
    if (event.usage !== undefined) this.readUsage(event.usage);
  }

  private addContent(content: string): void {
    if (content.length === 0) return;
    if (this.firstTokenMs === null) this.firstTokenMs = this.now;
    this.chunkMs.push(this.now);
    this.lastContentMs = this.now;
    this.output.push(content);
  }

  /** Learns the shape of this response's content chunks from one that carries nothing but text. */
  private learnTemplate(data: string, event: Record<string, unknown>): void {
    const only = textOnlyChunk(event);
    if (only === null) return;
    this.templateTries++;
    this.template = ChunkTemplate.learn(data, only.member, only.text, (probe) => {
      try {
        const parsed: unknown = JSON.parse(probe);
        return isObject(parsed) ? (textOnlyChunk(parsed)?.text ?? null) : null;
      } catch {
        return null;
      }
    });
  }

  /** Text of one choice (content, reasoning and completions text all count as output); notes its finish reason. */
  private readChoice(choice: unknown, member: 'delta' | 'message'): string {
    if (!isObject(choice)) return '';
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    if (typeof choice.text === 'string') return choice.text;
    const part = choice[member];
    if (!isObject(part)) return '';
    let text = '';
    const reasoning = part.reasoning_content ?? part.reasoning;
    if (typeof reasoning === 'string') text += reasoning;
    if (typeof part.content === 'string') text += part.content;
    return text;
  }

  private readUsage(usage: unknown): void {
    if (!isObject(usage)) return;
    if (typeof usage.prompt_tokens === 'number') this.promptTokens = usage.prompt_tokens;
    if (typeof usage.completion_tokens === 'number') this.completionTokens = usage.completion_tokens;
  }

  private onJsonBody(endedMs: number): void {
    const text = this.bodyText();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      this.fail('protocol', `the response from ${this.endpoint.url} is not JSON: ${quote(text) || '(empty body)'}`);
      return;
    }
    if (isObject(body) && body.error !== undefined && body.error !== null) {
      this.fail('server', `the server answered HTTP ${this.status} with an error: ${quote(serverErrorText(body.error))}`);
      return;
    }
    if (this.endpoint.stream) {
      this.fail('protocol', `asked ${this.endpoint.url} for a stream but it sent a JSON body: does the server support "stream": true? Body: ${quote(text)}`);
      return;
    }
    if (!isObject(body) || !Array.isArray(body.choices)) {
      this.fail('protocol', `the response from ${this.endpoint.url} has no "choices": ${quote(text)}`);
      return;
    }
    for (const choice of body.choices) this.output.push(this.readChoice(choice, 'message'));
    this.readUsage(body.usage);
    this.succeed(endedMs);
  }

  private bodyText(): string {
    return Buffer.concat(this.body).toString('utf8');
  }

  /** ", after N chunks" for messages about a response that had begun. */
  private progress(): string {
    return this.chunkMs.length > 0 ? `, after ${this.chunkMs.length} content chunks` : '';
  }

  private succeed(endMs: number): void {
    this.endMs = endMs;
    this.settle();
  }

  /** Ends the exchange with an error; the first failure wins. Public for the step's abort listener. */
  fail(kind: ErrorKind, message: string): void {
    if (this.settled) return;
    this.error = { kind, message };
    this.endMs = performance.now() - this.context.stepStartMs;
    this.settle();
    this.controller?.abort(new Stopped(message));
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    inFlight.get(this.context.signal)?.delete(this);
    this.parser = null;
    this.body = [];
    // Its one request is over (answered or aborted): nothing in it is worth waiting for.
    this.retryDispatcher?.destroy().catch(() => undefined);
    this.request.onReply?.(this.output.join(''));
    this.resolve(this.record());
  }

  private record(): RequestRecord {
    const { request, meta, context } = this;
    let inputTokens: number | null = request.inputTokens.count;
    let inputTokensSource: TokenSource | null = request.inputTokens.source;
    if (this.promptTokens !== null) {
      inputTokens = this.promptTokens;
      inputTokensSource = 'usage';
    }
    let outputTokens: number | null = null;
    let outputTokensSource: TokenSource | null = null;
    if (this.completionTokens !== null) {
      outputTokens = this.completionTokens;
      outputTokensSource = 'usage';
    } else if (this.error === null || this.output.length > 0) {
      // Counted once over the whole output: counting per chunk inflates the count.
      try {
        outputTokens = context.tokenCounter.count(this.output.join(''));
        outputTokensSource = context.tokenCounter.source;
      } catch {
        // A counter that fails leaves the count unknown rather than losing the record.
      }
    }
    return {
      index: meta.index,
      warmup: meta.warmup,
      scheduledMs: meta.scheduledMs,
      sentMs: this.sentMs,
      queueMs: this.sentMs - meta.scheduledMs,
      firstTokenMs: this.firstTokenMs,
      chunkMs: this.chunkMs,
      endMs: this.endMs,
      inputTokens,
      inputTokensSource,
      outputTokens,
      outputTokensSource,
      finishReason: this.finishReason,
      httpStatus: this.status,
      error: this.error,
    };
  }
}

export const sendRequest: SendRequest = (request, meta, context) =>
  new Promise<RequestRecord>((resolve) => {
    let exchange: Exchange | undefined;
    try {
      const endpoint = endpointOf(context.config);
      const body = requestBody(endpoint, request);
      const headers = withApiKey(endpoint.headers, context.apiKey);
      exchange = new Exchange(endpoint, request, meta, context, resolve);
      exchange.start(headers, body);
    } catch (error) {
      const message = `could not send the request: ${error instanceof Error ? error.message : String(error)}`;
      if (exchange !== undefined) exchange.fail('other', message);
      else resolve(unsentRecord(request, meta, context, message));
    }
  });

/** The record of a request that failed before an exchange existed (e.g. a base URL that does not parse). */
function unsentRecord(request: PreparedRequest, meta: { index: number; warmup: boolean; scheduledMs: number }, context: ClientContext, message: string): RequestRecord {
  const nowMs = performance.now() - context.stepStartMs;
  return {
    index: meta.index,
    warmup: meta.warmup,
    scheduledMs: meta.scheduledMs,
    sentMs: nowMs,
    queueMs: nowMs - meta.scheduledMs,
    firstTokenMs: null,
    chunkMs: [],
    endMs: nowMs,
    inputTokens: request.inputTokens.count,
    inputTokensSource: request.inputTokens.source,
    outputTokens: null,
    outputTokensSource: null,
    finishReason: null,
    httpStatus: null,
    error: { kind: 'other', message },
  };
}
