/**
 * A gateway that keeps the server's token counts to itself, in front of a real server: every
 * generation request is forwarded with `stream_options.include_usage` set, the server's `usage`
 * is noted and taken out of the stream the client receives, so that the client must count
 * itself while the test still knows what the server counted. Other requests (/metrics, /health)
 * pass through unchanged. Streams are forwarded event by event, as they arrive.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import { listenOnLoopback, readBody } from './loopback';

export interface ProxiedExchange {
  /** The request body as the client sent it. */
  body: Record<string, unknown>;
  /** The server's usage, which the client did not get; null when none came. */
  usage: { prompt_tokens: number; completion_tokens: number } | null;
}

export interface UsageProxy {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** Every generation request, in arrival order, its usage filled in once its answer ended. */
  readonly exchanges: ProxiedExchange[];
  close(): Promise<void>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `upstream`: the server's origin, `http://127.0.0.1:PORT`. */
export async function startUsageProxy(upstream: string): Promise<UsageProxy> {
  const exchanges: ProxiedExchange[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = req.url ?? '/';
      const generation = req.method === 'POST' && /\/(chat\/)?completions$/.test(path);
      let body = raw;
      let exchange: ProxiedExchange | null = null;
      if (generation) {
        const parsed = JSON.parse(raw) as Record<string, unknown>;
        exchange = { body: structuredClone(parsed), usage: null };
        exchanges.push(exchange);
        if (parsed.stream === true) parsed.stream_options = { ...(isObject(parsed.stream_options) ? parsed.stream_options : {}), include_usage: true };
        body = JSON.stringify(parsed);
      }
      // A connection of its own for each request: llama-server closes its connection after a
      // streamed answer while advertising keep-alive, and a reused socket would fail the next one.
      const answer = await new Promise<IncomingMessage>((resolve, reject) => {
        const forwarded = request(upstream + path, { method: req.method ?? 'GET', agent: false, headers: { 'content-type': 'application/json' } }, resolve);
        forwarded.on('error', reject);
        forwarded.end(req.method === 'POST' ? body : undefined);
      });
      const contentType = String(answer.headers['content-type'] ?? 'application/octet-stream');
      res.writeHead(answer.statusCode ?? 502, { 'content-type': contentType });
      const whole = async (): Promise<string> => {
        const parts: Buffer[] = [];
        for await (const part of answer) parts.push(part as Buffer);
        return Buffer.concat(parts).toString('utf8');
      };
      if (exchange === null) {
        res.end(await whole());
        return;
      }
      const noted = exchange;
      const keep = (event: Record<string, unknown>): Record<string, unknown> | null => {
        if (!isObject(event.usage)) return event;
        noted.usage = { prompt_tokens: Number(event.usage.prompt_tokens), completion_tokens: Number(event.usage.completion_tokens) };
        const rest = { ...event };
        delete rest.usage;
        delete rest.timings;
        // The usage-only chunk of a chat stream carries nothing else.
        return Array.isArray(rest.choices) && rest.choices.length === 0 ? null : rest;
      };
      if (!contentType.includes('event-stream')) {
        res.end(JSON.stringify(keep(JSON.parse(await whole()) as Record<string, unknown>)));
        return;
      }
      let pending = '';
      const decoder = new TextDecoder();
      for await (const chunk of answer as AsyncIterable<Buffer>) {
        pending += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = pending.indexOf('\n\n')) !== -1) {
          const event = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const data = event.startsWith('data: ') ? event.slice(6) : null;
          if (data === null || data === '[DONE]') {
            res.write(`${event}\n\n`);
            continue;
          }
          const kept = keep(JSON.parse(data) as Record<string, unknown>);
          if (kept !== null) res.write(`data: ${JSON.stringify(kept)}\n\n`);
        }
      }
      res.end(pending);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    });
  });
  const loopback = await listenOnLoopback(server);
  return { baseUrl: loopback.baseUrl, exchanges, close: loopback.close };
}
