/**
 * A loopback chat-completions server for the runner tests: each request's answer (tokens,
 * delays, HTTP status) is programmed by index, and the server itself counts what it saw:
 * requests in flight at once, arrivals and completed responses. Those counts check the runner
 * from the outside, independently of the records it writes. GET /metrics answers with vLLM's
 * names from the same counts (requests in flight, tokens written), or as a test programs it.
 */
import { createServer, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { listenOnLoopback, readBody } from './loopback';
import { chatCompletionBody, chatStreamEvents, JSON_HEADERS, SSE_HEADERS } from './sse-server';

export interface Answer {
  /** Content chunks of one token each. */
  tokens?: number;
  firstTokenMs?: number;
  gapMs?: number;
  /** A non-2xx status answers with an OpenAI-style error body at once. */
  status?: number;
  /** The content pieces streamed (one token each), instead of `t0 `, `t1 `, ... */
  pieces?: string[];
  /** false: no `usage` in the answer, so that the client keeps the workload's own counts. */
  usage?: boolean;
  /** The completion tokens `usage` reports, instead of the tokens streamed: a tag the record carries back. */
  completionTokens?: number;
}

/** What GET /metrics answers: a status, a body, after a delay. */
export interface MetricsAnswer {
  status?: number;
  body?: string;
  delayMs?: number;
}

/** What the server knows when /metrics is asked for. */
export interface ServerCounts {
  inFlight: number;
  /** Content tokens written to responses so far. */
  generatedTokens: number;
  /** Every header of the /metrics request, for the tests of authentication. */
  headers: Record<string, string | string[] | undefined>;
}

/** vLLM's exposition of the server's own counts. */
export const vllmMetrics = ({ inFlight, generatedTokens }: ServerCounts): MetricsAnswer => ({
  body: [
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running{model_name="m"} ${inFlight}`,
    '# TYPE vllm:num_requests_waiting gauge',
    'vllm:num_requests_waiting{model_name="m"} 0',
    '# TYPE vllm:generation_tokens_total counter',
    `vllm:generation_tokens_total{model_name="m"} ${generatedTokens}`,
    '',
  ].join('\n'),
});

export interface RunnerServer {
  baseUrl: string;
  /** performance.now() of every request's arrival, in order. */
  readonly arrivals: number[];
  /** Every request's parsed JSON body, in arrival order ({} for an unreadable one). */
  readonly bodies: Record<string, unknown>[];
  /** Responses written to the end. */
  readonly completed: number;
  readonly inFlight: number;
  /** Most requests in flight at the same time. */
  readonly maxInFlight: number;
  /** Requests to GET /metrics. */
  readonly metricsRequests: number;
  close(): Promise<void>;
}

export async function startRunnerServer(
  answer: (index: number, body: Record<string, unknown>) => Answer = () => ({}),
  metrics: (counts: ServerCounts) => MetricsAnswer = vllmMetrics,
): Promise<RunnerServer> {
  const arrivals: number[] = [];
  const bodies: Record<string, unknown>[] = [];
  let completed = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let generatedTokens = 0;
  let metricsRequests = 0;

  const respond = async (res: ServerResponse, body: Record<string, unknown>, plan: Answer): Promise<void> => {
    const { firstTokenMs = 0, gapMs = 0, status = 200, pieces } = plan;
    const tokens = pieces?.length ?? plan.tokens ?? 4;
    if (status !== 200) {
      res.writeHead(status, JSON_HEADERS).end(JSON.stringify({ error: { message: `programmed ${status}`, code: status } }));
      return;
    }
    const usage = plan.usage === false ? undefined : { prompt_tokens: 10, completion_tokens: plan.completionTokens ?? tokens };
    if (body.stream === false) {
      await sleep(firstTokenMs + gapMs * Math.max(0, tokens - 1));
      res.writeHead(200, JSON_HEADERS).end(chatCompletionBody(pieces?.join('') ?? 'x '.repeat(tokens).trim(), usage));
      generatedTokens += tokens;
      return;
    }
    res.writeHead(200, SSE_HEADERS);
    const events = chatStreamEvents({ pieces: pieces ?? Array.from({ length: tokens }, (_, i) => `t${i} `), usage, finishReason: 'length' });
    const [role, ...rest] = events;
    res.write(role ?? '');
    for (const [i, event] of rest.entries()) {
      if (i < tokens) await sleep(i === 0 ? firstTokenMs : gapMs);
      if (res.destroyed) return;
      res.write(event);
      if (i < tokens) generatedTokens++;
    }
    res.end();
  };

  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      metricsRequests++;
      const { status = 200, body = '', delayMs = 0 } = metrics({ inFlight, generatedTokens, headers: req.headers });
      void sleep(delayMs).then(() => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain; version=0.0.4' }).end(body);
      });
      return;
    }
    // The runner's endpoint probe (GET /v1/models, /version, ...) is not load: answered, not counted.
    if (req.method !== 'POST') {
      res.writeHead(404, JSON_HEADERS).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const index = arrivals.length;
    arrivals.push(performance.now());
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let done = false;
    const leave = (finished: boolean): void => {
      if (done) return;
      done = true;
      inFlight--;
      if (finished) completed++;
    };
    res.on('finish', () => leave(true));
    res.on('close', () => leave(false));
    void readBody(req).then((text) => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // an unreadable body is answered as a stream
      }
      bodies[index] = body;
      return respond(res, body, answer(index, body));
    });
  });
  const { baseUrl, close } = await listenOnLoopback(server);
  return {
    baseUrl,
    arrivals,
    bodies,
    get completed() {
      return completed;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get metricsRequests() {
      return metricsRequests;
    },
    close,
  };
}
