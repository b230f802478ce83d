/**
 * What every loopback test server shares: listening on 127.0.0.1 at a free port, a close that
 * does not wait for clients' keep-alive connections, and reading a request's whole body.
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface Loopback {
  port: number;
  /** http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** Destroys open connections, then stops listening. */
  close(): Promise<void>;
}

/** Starts `server` (HTTP or raw TCP) on 127.0.0.1, port 0. */
export async function listenOnLoopback(server: Server): Promise<Loopback> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A request's body as text, once it has all arrived. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
  });
}
