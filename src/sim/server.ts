/**
 * The simulator's HTTP server on 127.0.0.1: OpenAI-compatible routes in front of the real-time
 * scheduler, vLLM's /health and /metrics, and /sim/trace with each request's server-side times.
 *
 * Every request draws its randomness (natural reply length, token text, faults) from a generator
 * seeded with the server seed and the request's arrival index, so a seed gives the same replies
 * for the same sequence of requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createRandom, type Random } from '../workload/random';
import { CHARS_PER_TOKEN, estimateTokens } from '../workload/tokens';
import { promptBlockHashes } from './kv-cache';
import { renderMetrics, SimMetrics } from './metrics';
import type { SimConfig } from './options';
import {
  ChunkWriter,
  completeBody,
  embeddingsBody,
  errorBody,
  ResponsesWriter,
  THINK_CLOSE,
  THINK_OPEN,
  toEmbeddingsRequest,
  toGenerationRequest,
  type ApiKind,
  type Counts,
  type GenerationApi,
  type StreamWriter,
  type TokenPart,
} from './protocol';
import { RealtimeEngine } from './realtime';
import { Scheduler, Sequence, type StepPlan } from './scheduler';
import { TraceLog, type FaultKind, type RequestTrace } from './trace';

/** Output token pieces: four characters each, so the documented estimate counts exactly one token per piece. */
const PIECES = [
  ' the', ' and', ' for', ' was', ' you', ' all', ' new', ' one', ' can', ' see', 'ing ', 'tion', ' lat', 'ency', ' tok', 'ens ',
  ' per', ' sec', 'ond ', ' gpu', ' kv ', 'cach', 'e hi', ' bat', 'ches', ' wai', 't in', ' que', 'ue a', ' it ', ' is ', 'ed a',
];

/**
 * Arriving requests are taken in only while the engine has this long before it must act: a burst
 * of hundreds of requests handled at once would otherwise hold back a step's tokens.
 */
const INTAKE_ROOM_MS = 0.5;

/** Bodies larger than this are refused (a 128k-token prompt is about 512 KB). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Epoch milliseconds with sub-millisecond precision: comparable across threads of a process. */
const epochOf = (nowMs: number): number => performance.timeOrigin + nowMs;

export interface RunningSimServer {
  port: number;
  config: SimConfig;
  trace(): RequestTrace[];
  close(): Promise<void>;
}

type FaultPlan =
  | { kind: 'error'; status: number }
  /** `at`: the token (0-based) at which the fault strikes. */
  | { kind: Exclude<FaultKind, 'error'>; at: number };

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** What the engine's events reach: a generation request, or an embeddings request (one sequence per input). */
interface EngineClient {
  onScheduled(atMs: number): void;
  onToken(atMs: number, sequence: Sequence): void;
}

export async function startServer(config: SimConfig): Promise<RunningSimServer> {
  const scheduler = new Scheduler(config.engine, config.hardware);
  const metrics = new SimMetrics();
  const traces = new TraceLog(config.traceLimit, config.traceFile);
  const active = new Map<Sequence, EngineClient>();
  const reasoningField = config.reasoning?.field ?? 'reasoning';
  const engine = new RealtimeEngine(scheduler, config.speedup, {
    onStepStart(plan: StepPlan, atMs: number) {
      for (const { sequence } of plan.scheduled) active.get(sequence)?.onScheduled(atMs);
    },
    onToken(sequence: Sequence, atMs: number) {
      active.get(sequence)?.onToken(atMs, sequence);
    },
  });
  const createdSec = Math.floor(Date.now() / 1000);
  let nextIndex = 0;

  class ActiveRequest implements EngineClient {
    readonly trace: RequestTrace;
    private readonly writer: StreamWriter;
    private readonly pieces: string[] = [];
    /** The thoughts are written into the text between tags (no reasoning parser, or completions). */
    private readonly tagged: boolean;
    private stalledUntilMs = 0;
    private buffered = '';
    private done = false;

    constructor(
      readonly sequence: Sequence,
      readonly res: ServerResponse,
      readonly api: GenerationApi,
      readonly stream: boolean,
      readonly includeUsage: boolean,
      readonly maxTokens: number,
      /** The first this many tokens are reasoning. */
      readonly reasoningTokens: number,
      readonly random: Random,
      readonly fault: FaultPlan | null,
      trace: RequestTrace,
    ) {
      this.trace = trace;
      this.tagged = reasoningTokens > 0 && (reasoningField === 'tags' || api === 'completions');
      this.writer = api === 'responses' ? new ResponsesWriter(trace.id, config.model, createdSec, reasoningField) : new ChunkWriter(api, trace.id, config.model, createdSec, reasoningField);
      res.on('close', () => this.onClose());
    }

    /** A token's text as written: with tags, the thoughts open with `<think>` and the answer with `</think>`. */
    private textOf(index: number, piece: string): string {
      if (!this.tagged) return piece;
      if (index === 0) return THINK_OPEN + piece;
      return index === this.reasoningTokens ? THINK_CLOSE + piece : piece;
    }

    onScheduled(atMs: number): void {
      if (this.trace.scheduledMs === null) this.trace.scheduledMs = epochOf(atMs);
    }

    onToken(atMs: number): void {
      if (this.done) return;
      const index = this.pieces.length;
      const piece = PIECES[this.random.int(0, PIECES.length - 1)] as string;
      this.pieces.push(piece);
      const part: TokenPart = index < this.reasoningTokens ? 'reasoning' : 'answer';
      const text = this.textOf(index, piece);
      const tokenEpoch = epochOf(atMs);
      if (index > 0) metrics.itl.observe((tokenEpoch - (this.trace.tokenMs[index - 1] as number)) / 1000);
      else metrics.ttft.observe((tokenEpoch - this.trace.arrivalMs) / 1000);
      this.trace.tokenMs.push(tokenEpoch);
      this.trace.outputTokens = this.pieces.length;
      const last = this.pieces.length >= this.sequence.input.outputTokens;
      const finishReason = this.pieces.length >= this.maxTokens ? 'length' : 'stop';
      if (last) {
        this.trace.finishReason = finishReason;
        metrics.e2e.observe((tokenEpoch - this.trace.arrivalMs) / 1000);
        metrics.countFinished(finishReason);
        active.delete(this.sequence);
      }
      const faultHere = this.fault !== null && this.fault.kind !== 'error' && this.fault.at === index ? this.fault.kind : null;
      if (faultHere === 'stall') this.stalledUntilMs = performance.now() + config.faults.stallMs;

      if (!this.stream) {
        if (faultHere === 'disconnect') return this.drop();
        if (last) this.sendWhole(finishReason);
        return;
      }
      let event = index === 0 ? this.writer.openEvents() : '';
      if (faultHere === 'malformed') {
        this.emit(event + this.writer.malformedEvent(piece), true);
        return this.drop();
      }
      event += last ? this.writer.finalEvents(text, part, finishReason, this.counts(), this.includeUsage) : this.writer.tokenEvent(text, part);
      this.emit(event, last);
      if (faultHere === 'disconnect') this.drop();
    }

    /** The usage's counts: the reasoning among them when the server parsed it (not with tags). */
    private counts(): Counts {
      const configured = config.reasoning !== null && !this.tagged && this.api !== 'completions';
      return {
        promptTokens: this.sequence.input.promptTokens,
        completionTokens: this.pieces.length,
        cachedTokens: this.sequence.cachedTokens,
        reasoningTokens: configured ? Math.min(this.reasoningTokens, this.pieces.length) : null,
      };
    }

    /** Writes now, or holds the text while a stall lasts (the model keeps going meanwhile). */
    private emit(text: string, end: boolean): void {
      const now = performance.now();
      if (now < this.stalledUntilMs || this.buffered) {
        const flushAt = this.stalledUntilMs;
        if (!this.buffered) setTimeout(() => this.flush(), Math.max(0, flushAt - now));
        this.buffered += text;
        if (end) this.done = true;
        return;
      }
      this.trace.writeMs.push(epochOf(now));
      if (end) {
        this.done = true;
        this.res.end(text);
      } else {
        sendNow(this.res, text);
      }
    }

    private flush(): void {
      const nowEpoch = epochOf(performance.now());
      while (this.trace.writeMs.length < this.trace.tokenMs.length) this.trace.writeMs.push(nowEpoch);
      const text = this.buffered;
      this.buffered = '';
      if (this.res.destroyed) return;
      if (this.done) this.res.end(text);
      else sendNow(this.res, text);
    }

    private sendWhole(finishReason: string): void {
      this.done = true;
      const text = { reasoning: this.pieces.slice(0, this.reasoningTokens).join(''), answer: this.pieces.slice(this.reasoningTokens).join('') };
      const body =
        this.fault?.kind === 'malformed'
          ? '{"id":"' + this.trace.id + '","choices":[{"index":0,'
          : completeBody(this.api, this.trace.id, config.model, createdSec, text, this.tagged ? 'tags' : reasoningField, finishReason, this.counts());
      const send = (): void => {
        if (this.res.destroyed) return;
        this.res.writeHead(200, { 'content-type': 'application/json' });
        this.res.end(body);
      };
      const wait = this.stalledUntilMs - performance.now();
      if (wait > 0) setTimeout(send, wait);
      else send();
    }

    /** Ends the exchange abruptly: the model stops working on it and the socket is destroyed. */
    private drop(): void {
      this.done = true;
      active.delete(this.sequence);
      engine.abort(this.sequence);
      this.res.destroy();
    }

    private onClose(): void {
      if (active.get(this.sequence) === this) {
        // The client went away before the end: vLLM aborts such requests, and counts them as `abort`.
        active.delete(this.sequence);
        engine.abort(this.sequence);
        metrics.countFinished('abort');
        this.trace.finishReason = 'abort';
      }
      this.trace.preemptions = this.sequence.preemptions;
      this.trace.cachedTokens = this.sequence.cachedTokens;
      this.trace.closedMs = epochOf(performance.now());
      traces.add(this.trace);
    }
  }

  function drawFault(random: Random, stream: boolean, targetTokens: number): FaultPlan | null {
    const f = config.faults;
    // Every draw happens whatever the outcome, so one fault's rate does not shift another's requests.
    const draws = [random.next(), random.next(), random.next(), random.next()];
    const at = random.int(0, Math.max(0, targetTokens - 1));
    const status = f.errorStatuses[random.int(0, f.errorStatuses.length - 1)] as number;
    if ((draws[0] as number) < f.errorRate) return { kind: 'error', status };
    if ((draws[1] as number) < f.disconnectRate) return { kind: 'disconnect', at };
    // Without streaming a stall can only delay the whole body, so it strikes at the last token.
    if ((draws[2] as number) < f.stallRate) return { kind: 'stall', at: stream ? at : targetTokens - 1 };
    if ((draws[3] as number) < f.malformedRate) return { kind: 'malformed', at };
    return null;
  }

  function parseBody(raw: string): unknown {
    try {
      return JSON.parse(raw);
    } catch (e) {
      throw new HttpError(400, 'BadRequestError', `The request body is not valid JSON: ${(e as Error).message}`);
    }
  }

  /** The seed of the request that arrived `index`-th: its reply, faults and vectors follow from it. */
  function requestSeed(index: number): number {
    return (Math.imul(config.seed, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  }

  /**
   * An embeddings request: each input is a sequence of its own (vLLM splits a batch so), prefilled
   * with the others by the scheduler, so the latency grows with the batch's tokens and with the
   * load; the body goes out once every input is encoded.
   */
  class EmbeddingJob implements EngineClient {
    private remaining: number;
    private readonly sequences: Sequence[];

    constructor(
      inputTokens: readonly number[],
      private readonly res: ServerResponse,
      private readonly trace: RequestTrace,
      private readonly base64: boolean,
    ) {
      this.remaining = inputTokens.length;
      this.sequences = inputTokens.map((promptTokens, i) => new Sequence({ id: trace.index * 4096 + i, promptTokens, outputTokens: 1, blockHashes: [], pooling: true }));
      for (const sequence of this.sequences) active.set(sequence, this);
      res.on('close', () => this.onClose());
    }

    submit(readyAtMs: number): void {
      for (const sequence of this.sequences) engine.submit(sequence, readyAtMs);
    }

    onScheduled(atMs: number): void {
      if (this.trace.scheduledMs === null) this.trace.scheduledMs = epochOf(atMs);
    }

    onToken(atMs: number, sequence: Sequence): void {
      active.delete(sequence);
      this.trace.tokenMs.push(epochOf(atMs));
      if (--this.remaining > 0) return;
      this.trace.finishReason = 'stop';
      metrics.e2e.observe((epochOf(atMs) - this.trace.arrivalMs) / 1000);
      metrics.countFinished('stop');
      const random = createRandom(requestSeed(this.trace.index));
      const vectors = this.sequences.map(() => unitVector(config.embeddingDim, random));
      sendJson(this.res, 200, embeddingsBody(config.model, vectors, this.trace.promptTokens, this.base64));
    }

    private onClose(): void {
      const unfinished = this.sequences.filter((sequence) => active.get(sequence) === this);
      for (const sequence of unfinished) {
        active.delete(sequence);
        engine.abort(sequence);
      }
      if (unfinished.length > 0) {
        metrics.countFinished('abort');
        this.trace.finishReason = 'abort';
      }
      this.trace.closedMs = epochOf(performance.now());
      traces.add(this.trace);
    }
  }

  function handleEmbeddings(raw: string, arrivalMs: number, res: ServerResponse): void {
    const parsed = toEmbeddingsRequest(parseBody(raw));
    if (!parsed.ok) throw new HttpError(400, 'BadRequestError', `Invalid request: ${parsed.error}`);
    const request = parsed.value;
    if (request.model !== config.model) throw new HttpError(404, 'NotFoundError', `The model \`${request.model}\` does not exist.`, 'model');
    const { maxModelLen } = config.engine;
    const inputTokens = request.inputs.map((text, i) => {
      const tokens = estimateTokens(text);
      if (tokens === 0) throw new HttpError(400, 'BadRequestError', `Input ${i} is empty: send at least one token of text.`, 'input');
      if (tokens > maxModelLen) {
        throw new HttpError(400, 'BadRequestError', `This model's maximum context length is ${maxModelLen} tokens, but input ${i} has ${tokens} tokens. Shorten it.`, 'input');
      }
      return tokens;
    });
    const index = nextIndex++;
    const trace = openTrace({ index, id: `embd-sim-${index}`, api: 'embeddings', stream: false, status: 200, fault: null, promptTokens: inputTokens.reduce((a, b) => a + b, 0), targetTokens: 0, inputs: inputTokens.length }, arrivalMs);
    new EmbeddingJob(inputTokens, res, trace, request.base64).submit(arrivalMs + config.hardware.requestOverheadMs / config.speedup);
  }

  /** The reasoning tokens a request is to stream first (before max_tokens cuts them). */
  function drawReasoning(random: Random): number {
    const tokens = config.reasoning?.tokens;
    if (tokens === undefined) return 0;
    if (typeof tokens === 'number') return tokens;
    return Math.max(0, Math.round(tokens.mean + tokens.stdev * random.normal()));
  }

  function handleGeneration(api: GenerationApi, raw: string, arrivalMs: number, res: ServerResponse): void {
    const body = parseBody(raw);
    const parsed = toGenerationRequest(api, body);
    if (!parsed.ok) throw new HttpError(400, 'BadRequestError', `Invalid request: ${parsed.error}`);
    const request = parsed.value;
    if (request.model !== config.model) {
      throw new HttpError(404, 'NotFoundError', `The model \`${request.model}\` does not exist.`, 'model');
    }
    const text = request.prompt;
    const promptTokens = estimateTokens(text);
    const { maxModelLen } = config.engine;
    if (promptTokens === 0) throw new HttpError(400, 'BadRequestError', 'The prompt is empty: send at least one token of input.');
    if (promptTokens >= maxModelLen) {
      throw new HttpError(
        400,
        'BadRequestError',
        `This model's maximum context length is ${maxModelLen} tokens, but the prompt has ${promptTokens} tokens. Shorten the prompt.`,
      );
    }
    // vLLM's completions default is 16 tokens; chat may use whatever context is left.
    const asked = request.maxTokens ?? (api === 'completions' ? 16 : null);
    if (asked !== null && promptTokens + asked > maxModelLen) {
      throw new HttpError(
        400,
        'BadRequestError',
        `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${promptTokens + asked} tokens ` +
          `(${promptTokens} in the input, ${asked} in the completion). Reduce the length of the input or of max_tokens.`,
        'max_tokens',
      );
    }
    const maxTokens = asked ?? maxModelLen - promptTokens;
    const index = nextIndex++;
    const random = createRandom(requestSeed(index));
    const natural = Math.max(1, Math.round(random.gamma(2, config.naturalOutputTokensMean / 2)));
    // From a generator of its own, so that turning reasoning on leaves every other draw as it was.
    const reasoning = drawReasoning(createRandom(requestSeed(index) ^ 0x72656173));
    // max_tokens counts the thoughts too, as in vLLM; the answer ends by itself after them.
    const targetTokens = request.ignoreEos ? maxTokens : Math.min(maxTokens, Math.max(request.minTokens, reasoning + natural));
    const reasoningTokens = Math.min(reasoning, targetTokens);
    const stream = request.stream;
    const fault = drawFault(random, stream, targetTokens);
    const id = `${{ chat: 'chatcmpl', completions: 'cmpl', responses: 'resp' }[api]}-sim-${index}`;
    const trace = openTrace(
      { index, id, api, stream, status: fault?.kind === 'error' ? fault.status : 200, fault: fault?.kind ?? null, promptTokens, targetTokens, ...(config.reasoning !== null ? { reasoningTokens } : {}) },
      arrivalMs,
    );
    if (fault?.kind === 'error') {
      res.on('close', () => {
        trace.closedMs = epochOf(performance.now());
        traces.add(trace);
      });
      sendJson(res, fault.status, errorBody(fault.status, 'InjectedFault', `Injected fault: status ${fault.status} (simulator fault injection).`));
      return;
    }
    const hashes = config.engine.enablePrefixCaching ? promptBlockHashes(text, promptTokens, config.engine.blockSize, CHARS_PER_TOKEN) : [];
    const sequence = new Sequence({ id: index, promptTokens, outputTokens: targetTokens, blockHashes: hashes });
    active.set(sequence, new ActiveRequest(sequence, res, api, stream, request.includeUsage, maxTokens, reasoningTokens, random, fault, trace));
    if (stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
    }
    engine.submit(sequence, arrivalMs + config.hardware.requestOverheadMs / config.speedup);
  }

  function route(req: IncomingMessage, res: ServerResponse, raw: string, arrivalMs: number): void {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const routes: Record<string, ApiKind> = { '/v1/chat/completions': 'chat', '/v1/completions': 'completions', '/v1/responses': 'responses', '/v1/embeddings': 'embeddings' };
    const api = routes[path ?? ''];
    if (api) {
      if (method !== 'POST') throw new HttpError(405, 'MethodNotAllowed', `Use POST for ${path}.`);
      if (api === 'embeddings') return handleEmbeddings(raw, arrivalMs, res);
      return handleGeneration(api, raw, arrivalMs, res);
    }
    if (path === '/reset_prefix_cache') {
      // vLLM's (with VLLM_SERVER_DEV_MODE=1): an empty POST, answered 200 once the cache is empty.
      if (method !== 'POST') throw new HttpError(405, 'MethodNotAllowed', `Use POST for ${path}.`);
      scheduler.kv.resetPrefixCache();
      res.writeHead(200).end();
      return;
    }
    if (method !== 'GET') throw new HttpError(405, 'MethodNotAllowed', `Use GET for ${path}.`);
    switch (path) {
      case '/health':
        res.writeHead(200).end();
        return;
      case '/v1/models':
        return sendJson(
          res,
          200,
          JSON.stringify({
            object: 'list',
            data: [{ id: config.model, object: 'model', created: createdSec, owned_by: 'llmbench-sim', max_model_len: config.engine.maxModelLen }],
          }),
        );
      case '/metrics': {
        const gauges = {
          running: scheduler.numRunning,
          waiting: scheduler.numWaiting + engine.pendingCount,
          kvUsage: scheduler.kv.usage,
          ...scheduler.counters,
        };
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end(renderMetrics(config.model, gauges, metrics));
        return;
      }
      case '/sim/trace':
        return sendJson(res, 200, JSON.stringify({ requests: traces.list() }));
      case '/sim/config':
        return sendJson(res, 200, JSON.stringify(config));
      default:
        throw new HttpError(404, 'NotFoundError', `No route ${path}: this server serves /v1/models, /v1/chat/completions, /v1/completions, /v1/responses, /v1/embeddings, /health, /metrics, /reset_prefix_cache and /sim/trace.`);
    }
  }

  const server: Server = createServer({ noDelay: true, keepAliveTimeout: 60_000, requestTimeout: 0 }, (req, res) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        sendJson(res, 413, errorBody(413, 'BadRequestError', `The request body is larger than ${MAX_BODY_BYTES} bytes.`));
        req.destroy();
        return;
      }
      parts.push(chunk);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      const arrivalMs = performance.now();
      intake.push(() => {
        if (res.destroyed) return;
        try {
          route(req, res, Buffer.concat(parts).toString('utf8'), arrivalMs);
        } catch (e) {
          if (!(e instanceof HttpError)) throw e;
          sendJson(res, e.status, errorBody(e.status, e.type, e.message, e.param));
        }
      });
      queueIntake();
    });
  });

  // Requests are stamped on arrival and handled when the engine has room (see INTAKE_ROOM_MS);
  // at least one per pass of the event loop, so that intake never starves.
  const intake: (() => void)[] = [];
  let intakeQueued = false;
  function queueIntake(): void {
    if (intakeQueued) return;
    intakeQueued = true;
    setImmediate(takeIn);
  }
  function takeIn(): void {
    intakeQueued = false;
    let handled = 0;
    while (intake.length > 0 && (handled === 0 || engine.msUntilDue() > INTAKE_ROOM_MS)) {
      (intake.shift() as () => void)();
      handled++;
    }
    if (intake.length > 0) queueIntake();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, '127.0.0.1', () => resolve());
  });

  return {
    port: (server.address() as AddressInfo).port,
    config,
    trace: () => traces.list(),
    close: () =>
      new Promise<void>((resolve) => {
        engine.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Writes a piece of a response to the socket now. ServerResponse.write() corks the socket until the
 * next tick to batch a response's writes, which would hold every token a step emits until the
 * emitting loop yields (up to the whole ~10 ms a large step spreads its tokens over). The cork and
 * uncork must pair: Node 22+ counts them on the response, and an unpaired uncork leaves the count
 * negative, so later writes are buffered out of order and the client sees a broken HTTP stream.
 */
function sendNow(res: ServerResponse, text: string): void {
  res.cork();
  res.write(text);
  res.uncork();
}

/** A request's trace as it arrives: what it is, and nothing measured yet. */
function openTrace(
  head: Pick<RequestTrace, 'index' | 'id' | 'api' | 'stream' | 'status' | 'fault' | 'promptTokens' | 'targetTokens'> & Partial<Pick<RequestTrace, 'reasoningTokens' | 'inputs'>>,
  arrivalMs: number,
): RequestTrace {
  return { ...head, cachedTokens: 0, outputTokens: 0, finishReason: null, preemptions: 0, arrivalMs: epochOf(arrivalMs), scheduledMs: null, tokenMs: [], writeMs: [], closedMs: null };
}

/** A vector of `dim` floats of length 1, from `random`. */
function unitVector(dim: number, random: Random): Float32Array {
  const vector = new Float32Array(dim);
  let squares = 0;
  for (let i = 0; i < dim; i++) {
    const value = random.normal();
    vector[i] = value;
    squares += value * value;
  }
  const norm = Math.sqrt(squares) || 1;
  for (let i = 0; i < dim; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}

function sendJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body);
}
