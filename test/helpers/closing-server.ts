/**
 * A raw HTTP/1.1 server on 127.0.0.1 (port 0) that misbehaves with its connections the way some
 * real engines do: it answers one request per connection and then closes it while its response
 * still says `Connection: keep-alive` (llama-server does this after streamed responses). It can
 * also reset its first connections once a request has arrived on them, without answering.
 */
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { listenOnLoopback } from './loopback';

export interface ClosingServer {
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** Requests read to their end (on a connection still open for them). */
  requests: number;
  /** Requests that began arriving on a connection the server had already closed: stale keep-alive reuse. */
  staleRequests: number;
  connections: number;
  close(): Promise<void>;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Index just past a complete request in `bytes` (headers plus Content-Length body), or -1. */
function requestEnd(bytes: Buffer): number {
  const headerEnd = bytes.indexOf(HEADER_END);
  if (headerEnd === -1) return -1;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(bytes.subarray(0, headerEnd).toString('latin1'));
  const end = headerEnd + HEADER_END.length + Number(length?.[1] ?? 0);
  return bytes.length >= end ? end : -1;
}

/** A whole streamed response in one chunked-encoding piece, advertising keep-alive. */
function keepAliveResponse(body: string): string {
  const size = Buffer.byteLength(body).toString(16);
  return (
    'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5, max=100\r\n' +
    `Transfer-Encoding: chunked\r\n\r\n${size}\r\n${body}\r\n0\r\n\r\n`
  );
}

export interface ClosingBehaviour {
  /** The SSE body of every answer. */
  body: string;
  /** This many first connections are reset instead of answered (Infinity: all). */
  resetConnections?: number;
  /** How long after its request arrived such a connection is reset. */
  resetDelayMs?: number;
}

export async function startClosingServer(behaviour: ClosingBehaviour): Promise<ClosingServer> {
  const server = createServer((socket) => {
    const resetIt = state.connections < (behaviour.resetConnections ?? 0);
    state.connections++;
    let pending = Buffer.alloc(0);
    let answered = false;
    socket.on('error', () => undefined); // the client's side of a reset
    socket.on('data', (bytes: Buffer) => {
      if (answered) {
        state.staleRequests++;
        return;
      }
      pending = Buffer.concat([pending, bytes]);
      if (requestEnd(pending) === -1) return;
      answered = true;
      state.requests++;
      if (resetIt) void sleep(behaviour.resetDelayMs ?? 0).then(() => socket.resetAndDestroy());
      // The response and the close leave together, as llama-server's do.
      else socket.end(keepAliveResponse(behaviour.body));
    });
  });
  const state: ClosingServer = {
    baseUrl: '',
    requests: 0,
    staleRequests: 0,
    connections: 0,
    close: () => Promise.resolve(),
  };
  const { baseUrl, close } = await listenOnLoopback(server);
  return Object.assign(state, { baseUrl, close });
}
