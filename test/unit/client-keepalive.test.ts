import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { sendRequest } from '../../src/load/client';
import { RequestRecordSchema } from '../../src/format/result';
import { clientContext, meta, preparedRequest } from '../helpers/client-context';
import { startClosingServer } from '../helpers/closing-server';
import { chatStreamEvents, startScriptedServer } from '../helpers/sse-server';

const stream = chatStreamEvents({ pieces: ['one', ' two', ' three'], usage: { prompt_tokens: 3, completion_tokens: 3 } }).join('');
const REQUESTS = 12;

test('keep-alive: a server that closes every connection after its response (llama-server) fails no request, sequential or concurrent', async (t) => {
  const server = await startClosingServer({ body: stream });
  t.after(() => server.close());
  for (const concurrency of [1, 4]) {
    const { context, close } = clientContext(server.baseUrl, { concurrency });
    const records = [];
    for (let lane = 0; lane < concurrency; lane++) {
      records.push(
        (async () => {
          const own = [];
          // Each lane sends its next request as soon as its previous one ends, as the runner does.
          for (let i = 0; i < REQUESTS / concurrency; i++) own.push(await sendRequest(preparedRequest(), meta(i), context));
          return own;
        })(),
      );
    }
    const all = (await Promise.all(records)).flat();
    await close();
    for (const record of all) {
      RequestRecordSchema.parse(record);
      assert.equal(record.error, null, record.error?.message);
      assert.equal(record.chunkMs.length, 3);
      assert.equal(record.outputTokens, 3);
    }
  }
  // The race was really met: requests went out on sockets the server had closed, and were answered anyway.
  assert.ok(server.staleRequests >= 1, `${server.staleRequests} requests reached a closed connection`);
  assert.equal(server.requests, 2 * REQUESTS, 'each request answered once');
});

test('keep-alive: a retried request is timed from its second send: the lost attempt counts as queue time', async (t) => {
  const resetDelayMs = 150;
  const server = await startClosingServer({ body: stream, resetConnections: 1, resetDelayMs });
  const { context, close } = clientContext(server.baseUrl, { concurrency: 1 });
  t.after(async () => {
    await close();
    await server.close();
  });
  const scheduledMs = performance.now() - context.stepStartMs;
  const record = await sendRequest(preparedRequest(), { index: 0, warmup: false, scheduledMs }, context);
  assert.equal(record.error, null, record.error?.message);
  assert.equal(server.connections, 2);
  assert.ok(record.sentMs - scheduledMs >= resetDelayMs - 5, `sent ${record.sentMs - scheduledMs} ms after it was due: the send time is the retry's`);
  assert.equal(record.queueMs, record.sentMs - record.scheduledMs);
  assert.ok((record.firstTokenMs as number) >= record.sentMs);
});

test('keep-alive: a server that resets every connection before answering -> retried once, then the reset error is kept', async (t) => {
  const server = await startClosingServer({ body: stream, resetConnections: Infinity });
  const { context, close } = clientContext(server.baseUrl, { concurrency: 1 });
  t.after(async () => {
    await close();
    await server.close();
  });
  const record = await sendRequest(preparedRequest(), meta(), context);
  RequestRecordSchema.parse(record);
  assert.equal(record.error?.kind, 'reset');
  assert.match(record.error?.message ?? '', /closed the connection before responding, also when retried on a new connection \((ECONNRESET|UND_ERR_SOCKET)\)/);
  assert.equal(record.httpStatus, null);
  assert.equal(server.requests, 2, 'the first send and one retry');
  assert.equal(server.connections, 2, 'the retry used a new connection');
});

test('keep-alive: no retry once response bytes have arrived', async (t) => {
  const server = await startScriptedServer(() => ({ steps: [stream.slice(0, 40), { delayMs: 20 }, { reset: true }] }));
  const { context, close } = clientContext(server.baseUrl, { concurrency: 1 });
  t.after(async () => {
    await close();
    await server.close();
  });
  const record = await sendRequest(preparedRequest(), meta(), context);
  assert.equal(record.error?.kind, 'reset');
  assert.match(record.error?.message ?? '', /closed the connection mid-response/);
  assert.equal(record.httpStatus, 200);
  assert.equal(server.requests.length, 1, 'not sent again');
});
