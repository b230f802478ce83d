/**
 * Sends one OpenAI-compatible request and measures it into a RequestRecord.
 *
 * It talks to undici's dispatcher directly (no response stream object in between): each socket
 * read arrives as one callback, is stamped with a single performance.now() and fed to the
 * byte-level SSE parser. What an event or a body means is the API's (chat.ts, responses.ts,
 * embeddings.ts): per event only the fields a record needs are read from the parsed JSON, and the
 * many chunks that repeat a response's text-only shape (one for its reasoning, one for its answer)
 * are read without parsing (chunk-template.ts). This file does what every API shares: the HTTP,
 * the times, the timeouts, cancellation and the errors.
 */
import { STATUS_CODES } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Agent, type Dispatcher } from 'undici';
import type { ApiKind, RequestConfig, RunConfig } from '../format/config';
import type { ErrorKind, RequestRecord } from '../format/result';
import { chatProtocol, serverErrorText } from './chat';
import { ChunkTemplate } from './chunk-template';
import { embeddingsProtocol } from './embeddings';
import { errorCode, QUOTE_LENGTH, quote, messageOf } from '../format/errors';
import { withApiKey } from '../observe/probe-core';
import { ResponseOutput } from './output';
import { responsesProtocol } from './responses';
import { SseParser } from './sse';
import type { PreparedRequest } from '../workload/types';
import type { ApiProtocol, ClientContext, ReadFailure, RequestMeta, SendRequest } from './types';

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
  protocol: ApiProtocol;
  model: string;
  stream: boolean;
  /** Whether a stream asks for the server's usage (wantsUsage). */
  usage: boolean;
  headers: Record<string, string>;
  extraBody: Record<string, unknown>;
  idleTimeoutMs: number;
  totalTimeoutMs: number;
  /** The tag name of reasoning written in the text (`<think>`), or null. */
  reasoningTag: string | null;
}

/** Each API's requests and responses. */
export function protocolOf(api: ApiKind): ApiProtocol {
  switch (api) {
    case 'chat':
    case 'completions':
      return chatProtocol(api);
    case 'responses':
      return responsesProtocol;
    case 'embeddings':
      return embeddingsProtocol;
  }
}

const endpoints = new WeakMap<RunConfig, Endpoint>();

/** What a config means for the wire, worked out once per config rather than per request. */
function endpointOf(config: RunConfig): Endpoint {
  let endpoint = endpoints.get(config);
  if (endpoint === undefined) {
    const base = new URL(config.endpoint.baseUrl);
    const basePath = base.pathname.replace(/\/+$/, '');
    const protocol = protocolOf(config.endpoint.api);
    const path = `${basePath}/${protocol.route}`;
    const stream = protocol.streams && config.request.stream;
    endpoint = {
      origin: base.origin,
      path,
      url: base.origin + path,
      protocol,
      model: config.endpoint.model,
      stream,
      usage: wantsUsage(config.request),
      headers: {
        ...config.endpoint.headers,
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
      },
      extraBody: config.request.extraBody,
      idleTimeoutMs: config.request.idleTimeoutMs,
      totalTimeoutMs: config.request.totalTimeoutMs,
      reasoningTag: config.endpoint.reasoningTags ?? null,
    };
    endpoints.set(config, endpoint);
  }
  return endpoint;
}

function requestBody(endpoint: Endpoint, request: PreparedRequest): string {
  const body = endpoint.protocol.body(request, endpoint.model);
  Object.assign(body, endpoint.extraBody);
  // The measurement depends on streaming, so extraBody cannot turn it off; usage it can (wantsUsage).
  endpoint.protocol.fixBody(body, endpoint.stream, endpoint.usage, endpoint.extraBody);
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

/** A response whose first text-only chunks of a part give no usable template parses that part chunk by chunk. */
const TEMPLATE_TRIES = 2;

/**
 * The chunk shapes of one part of a response (its reasoning or its answer), learnt from the first
 * chunks that carry nothing but text; until one is learnt, or after TEMPLATE_TRIES failed tries,
 * that part's chunks are parsed as JSON.
 */
interface PartTemplate {
  template: ChunkTemplate | null;
  tries: number;
  /** The SSE event type it was learnt from (`message`, or the Responses API's `response.output_text.delta`): it reads only those. */
  type: string;
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
  private readonly output: ResponseOutput;
  /** The shapes of this response's text-only answer and reasoning chunks: such chunks are read without JSON.parse. */
  private readonly answerTemplate: PartTemplate = { template: null, tries: 0, type: '' };
  private readonly reasoningTemplate: PartTemplate = { template: null, tries: 0, type: '' };
  /** The part the previous template-read chunk belonged to: its template is tried first. */
  private lastPartReasoning = false;
  /** [DONE], or the API's terminal event (the Responses API's response.completed). */
  private done = false;
  /** The run's cancel by design, once armed (from the send time). */
  private cancelTimer: NodeJS.Timeout | undefined;
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
    private readonly meta: RequestMeta,
    private readonly context: ClientContext,
    private readonly resolve: (record: RequestRecord) => void,
  ) {
    this.sentMs = performance.now() - context.stepStartMs;
    this.output = new ResponseOutput(endpoint.reasoningTag);
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
    this.armCancel();
  }

  /**
   * The run's cancel by design: the request is aborted `cancelAfterMs` after it was written (a retry
   * on a new connection counts from its own send, as its times do).
   */
  private armCancel(): void {
    const after = this.meta.cancelAfterMs;
    if (after === undefined) return;
    const cancelAt = performance.now() + after;
    // Node's timers run on a millisecond clock and may fire up to a millisecond early: never cancel before the delay.
    const check = (): void => {
      const left = cancelAt - performance.now();
      if (left > 0) {
        this.cancelTimer = setTimeout(check, Math.ceil(left));
        this.cancelTimer.unref();
        return;
      }
      this.fail('cancelled', `cancelled by design ${after} ms after it was sent (cancel in the run configuration)${this.progress()}`);
    };
    clearTimeout(this.cancelTimer);
    this.cancelTimer = setTimeout(check, after);
    this.cancelTimer.unref();
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
    const received = this.context.received;
    if (received !== undefined) received.bytes += chunk.length;
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
      if (this.endpoint.protocol.needsTerminalEvent && !this.done) {
        this.fail('protocol', `the stream from ${this.endpoint.url} ended before its final event (response.completed)${this.progress()}: it was cut short.`);
        return;
      }
      this.succeed(this.output.lastContentMs ?? endedMs);
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
    if (this.readByTemplate(data, type)) return;
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
    const chunks = this.output.chunkCount;
    const outcome = this.endpoint.protocol.readEvent(event, type, this.output, this.now);
    if (outcome === 'complete') this.done = true;
    else if (outcome !== null) this.failReading(outcome);
    else if (this.output.chunkCount > chunks) this.learnTemplate(data, event, type);
  }

  /** Reads a chunk through a learnt template (the previous chunk's part first); false when none matches. */
  private readByTemplate(data: string, type: string): boolean {
    const first = this.lastPartReasoning ? this.reasoningTemplate : this.answerTemplate;
    const second = this.lastPartReasoning ? this.answerTemplate : this.reasoningTemplate;
    for (const part of [first, second]) {
      if (part.template === null || part.type !== type) continue;
      const text = part.template.textOf(data);
      if (text === null) continue;
      const reasoning = part === this.reasoningTemplate;
      this.lastPartReasoning = reasoning;
      if (reasoning) this.output.add(this.now, text, '');
      else this.output.add(this.now, '', text);
      return true;
    }
    return false;
  }

  /** Learns the shape of this response's chunks of one part from one that carries nothing but text. */
  private learnTemplate(data: string, event: Record<string, unknown>, type: string): void {
    const { protocol } = this.endpoint;
    // An `event: error` must never be read as text, whatever its data looks like.
    if (type === 'error') return;
    const only = protocol.textOnly(event);
    if (only === null) return;
    const part = only.reasoning ? this.reasoningTemplate : this.answerTemplate;
    if (part.template !== null || part.tries >= TEMPLATE_TRIES) return;
    part.tries++;
    part.type = type;
    part.template = ChunkTemplate.learn(data, only.member, only.text, (probe) => {
      try {
        const parsed: unknown = JSON.parse(probe);
        const read = isObject(parsed) ? protocol.textOnly(parsed) : null;
        return read !== null && read.reasoning === only.reasoning ? read.text : null;
      } catch {
        return null;
      }
    });
  }

  /** A failure the API's reader found, worded with how far the response had come (a whole body's names the URL). */
  private failReading(failure: ReadFailure, whole = false): void {
    const where = whole ? ` (from ${this.endpoint.url})` : this.progress();
    this.fail(failure.kind, `${failure.message}${where}${failure.detail !== undefined ? `: ${failure.detail}` : ''}`);
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
    const failure = this.endpoint.protocol.readBody(body, this.output, this.request);
    if (failure !== null) {
      this.failReading(failure, true);
      return;
    }
    this.succeed(endedMs);
  }

  private bodyText(): string {
    return Buffer.concat(this.body).toString('utf8');
  }

  /** ", after N chunks" for messages about a response that had begun. */
  private progress(): string {
    const chunks = this.output.chunkCount;
    return chunks > 0 ? `, after ${chunks} content chunks` : '';
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
    clearTimeout(this.cancelTimer);
    inFlight.get(this.context.signal)?.delete(this);
    this.parser = null;
    this.body = [];
    // Its one request is over (answered or aborted): nothing in it is worth waiting for.
    this.retryDispatcher?.destroy().catch(() => undefined);
    const record = this.record();
    this.request.onReply?.(this.answerText);
    this.resolve(record);
  }

  /** The answer as received (reasoning left out): what a session keeps in its history. */
  private answerText = '';

  private record(): RequestRecord {
    const { request, meta, output } = this;
    let inputTokens: number | null = request.inputTokens.count;
    let inputTokensSource: RequestRecord['inputTokensSource'] = request.inputTokens.source;
    if (output.promptTokens !== null) {
      inputTokens = output.promptTokens;
      inputTokensSource = 'usage';
    }
    const fields = output.finish(this.context.tokenCounter, this.error !== null);
    this.answerText = fields.answerText;
    const embeddings = this.endpoint.protocol === embeddingsProtocol;
    return {
      index: meta.index,
      warmup: meta.warmup,
      scheduledMs: meta.scheduledMs,
      sentMs: this.sentMs,
      queueMs: this.sentMs - meta.scheduledMs,
      firstTokenMs: output.firstTokenMs,
      chunkMs: output.chunkMs,
      endMs: this.endMs,
      inputTokens,
      inputTokensSource,
      // An embedding generates nothing: no output count at all, not a count of 0.
      outputTokens: embeddings ? null : fields.outputTokens,
      outputTokensSource: embeddings ? null : fields.outputTokensSource,
      finishReason: output.finishReason,
      httpStatus: this.status,
      error: this.error,
      ...(fields.reasoning !== undefined ? { reasoning: fields.reasoning } : {}),
      ...(output.embeddings !== null ? { embeddings: output.embeddings } : {}),
      ...(meta.cancelAfterMs !== undefined ? { cancelAfterMs: meta.cancelAfterMs } : {}),
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
      const message = `could not send the request: ${messageOf(error)}`;
      if (exchange !== undefined) exchange.fail('other', message);
      else resolve(unsentRecord(request, meta, context, message));
    }
  });

/** The record of a request that failed before an exchange existed (e.g. a base URL that does not parse). */
function unsentRecord(request: PreparedRequest, meta: RequestMeta, context: ClientContext, message: string): RequestRecord {
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
