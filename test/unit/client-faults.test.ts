import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendRequest } from '../../src/load/client';
import { RequestRecordSchema, type RequestRecord } from '../../src/format/result';
import type { RunConfigInput } from '../../src/format/config';
import { closedPort } from '../helpers/cli-server';
import { clientContext, meta, preparedRequest, type TestContext } from '../helpers/client-context';
import { chatStreamEvents, JSON_HEADERS, sseEvent, startScriptedServer, type Responder } from '../helpers/sse-server';

/** Sends one request to a scripted server and returns its record (checked against the schema). */
async function sendTo(
  respond: Responder,
  options: { request?: RunConfigInput['request']; endpoint?: Partial<RunConfigInput['endpoint']>; apiKey?: string; basePath?: string; during?: (tc: TestContext) => void } = {},
): Promise<{ record: RequestRecord; requests: number; elapsedMs: number }> {
  const server = await startScriptedServer(respond);
  const baseUrl = options.basePath === undefined ? server.baseUrl : `http://127.0.0.1:${server.port}${options.basePath}`;
  const tc = clientContext(baseUrl, { request: options.request, endpoint: options.endpoint, apiKey: options.apiKey });
  try {
    const started = performance.now();
    const pending = sendRequest(preparedRequest(), meta(), tc.context);
    options.during?.(tc);
    const record = await pending;
    RequestRecordSchema.parse(record);
    return { record, requests: server.requests.length, elapsedMs: performance.now() - started };
  } finally {
    await tc.close();
    await server.close();
  }
}

const partOfChat = chatStreamEvents({ pieces: ['one', ' two', ' three'], usage: { prompt_tokens: 3, completion_tokens: 3 } });

test('fault: nothing listening -> connect error that says to check the server', async () => {
  const port = await closedPort();
  const tc = clientContext(`http://127.0.0.1:${port}/v1`);
  const record = await sendRequest(preparedRequest(), meta(), tc.context);
  await tc.close();
  assert.equal(record.error?.kind, 'connect');
  assert.equal(record.error?.message, `connection refused at http://127.0.0.1:${port}/v1/chat/completions: is the server running?`);
  assert.equal(record.httpStatus, null);
  assert.equal(record.outputTokens, null);
});

test('fault: a base URL without /v1 -> HTTP 404 with the body and the hint', async () => {
  const { record } = await sendTo(
    (request) => (request.path.startsWith('/v1/') ? { headers: JSON_HEADERS, steps: ['{}'] } : { status: 404, headers: JSON_HEADERS, steps: ['{"detail":"Not Found"}'] }),
    { basePath: '' },
  );
  assert.equal(record.error?.kind, 'http');
  assert.equal(record.httpStatus, 404);
  assert.match(record.error?.message ?? '', /^HTTP 404 Not Found from http:\/\/127\.0\.0\.1:\d+\/chat\/completions: \{"detail":"Not Found"\}\. Check that the base URL ends with \/v1/);
});

test('fault: 401 -> the status, URL, body and "Check the API key", without the key', async () => {
  const { record } = await sendTo(() => ({ status: 401, headers: JSON_HEADERS, steps: ['{"error":{"message":"Incorrect API key provided"}}'] }), { apiKey: 'sk-do-not-leak' });
  assert.equal(record.error?.kind, 'http');
  assert.match(record.error?.message ?? '', /^HTTP 401 Unauthorized from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: \{"error":\{"message":"Incorrect API key provided"\}\}\. Check the API key\.$/);
  assert.ok(!JSON.stringify(record).includes('sk-do-not-leak'));
});

test('fault: 429 and 500 -> http errors with their hints; a long body is cut to 200 characters', async () => {
  const limited = await sendTo(() => ({ status: 429, headers: JSON_HEADERS, steps: ['{"error":"too many requests"}'] }));
  assert.equal(limited.record.httpStatus, 429);
  assert.match(limited.record.error?.message ?? '', /HTTP 429 Too Many Requests .*rate limiting/);
  const failed = await sendTo(() => ({ status: 500, headers: { 'content-type': 'text/plain' }, steps: ['x'.repeat(5000)] }));
  assert.equal(failed.record.error?.kind, 'http');
  assert.match(failed.record.error?.message ?? '', /HTTP 500 Internal Server Error .*: x{200}\.\.\.\. The server failed: see its log\.$/);
});

test('fault: a 200 body that is not JSON (non-streaming) -> protocol error quoting it', async () => {
  const { record } = await sendTo(() => ({ headers: { 'content-type': 'text/html' }, steps: ['<html>proxy login</html>'] }), { request: { stream: false } });
  assert.equal(record.error?.kind, 'protocol');
  assert.match(record.error?.message ?? '', /is not JSON: <html>proxy login<\/html>/);
});

test('fault: an error object in a 200 body -> server error, streaming or not', async () => {
  const body = JSON.stringify({ error: { message: 'model overloaded', type: 'server_error' } });
  for (const stream of [false, true]) {
    const { record } = await sendTo(() => ({ headers: JSON_HEADERS, steps: [body] }), { request: { stream } });
    assert.equal(record.error?.kind, 'server', `stream ${stream}`);
    assert.match(record.error?.message ?? '', /model overloaded/);
  }
});

test('fault: malformed SSE -> protocol error; a stream with no data events -> protocol error', async () => {
  const broken = await sendTo(() => ({ steps: [partOfChat[0] as string, 'data: {"choices": [{"delta": \n\n'] }));
  assert.equal(broken.record.error?.kind, 'protocol');
  assert.match(broken.record.error?.message ?? '', /malformed SSE event .*not JSON: \{"choices": \[\{"delta":/);
  const noEvents = await sendTo(() => ({ steps: ['hello\nworld\n\n'] }));
  assert.equal(noEvents.record.error?.kind, 'protocol');
  assert.match(noEvents.record.error?.message ?? '', /has no SSE data events: hello world/);
});

test('fault: connection reset mid-stream -> reset error, chunks before it kept', async () => {
  const { record } = await sendTo(() => ({ steps: [...partOfChat.slice(0, 3), { delayMs: 20 }, { reset: true }] }));
  assert.equal(record.error?.kind, 'reset');
  assert.match(record.error?.message ?? '', /closed the connection mid-response, after 2 content chunks/);
  assert.equal(record.chunkMs.length, 2);
  assert.equal(record.httpStatus, 200);
});

test('fault: a server that never sends a byte -> idle timeout', async () => {
  const { record, elapsedMs } = await sendTo(() => ({ silent: true }), { request: { idleTimeoutMs: 300, totalTimeoutMs: 5000 } });
  assert.equal(record.error?.kind, 'timeout-idle');
  assert.match(record.error?.message ?? '', /no response from .* within the idle timeout of 300 ms/);
  assert.ok(elapsedMs >= 250 && elapsedMs < 4000, `took ${elapsedMs} ms`);
});

test('fault: a stream that stalls after some chunks -> idle timeout naming the stall', async () => {
  const { record } = await sendTo(() => ({ steps: [...partOfChat.slice(0, 2), { hang: true }] }), { request: { idleTimeoutMs: 300, totalTimeoutMs: 5000 } });
  assert.equal(record.error?.kind, 'timeout-idle');
  assert.match(record.error?.message ?? '', /stalled: no byte for the idle timeout of 300 ms, after 1 content chunks/);
});

test('fault: a server that trickles bytes forever -> total timeout', async () => {
  const { record, elapsedMs } = await sendTo(() => ({ steps: [partOfChat[0] as string, { trickleMs: 20 }] }), { request: { idleTimeoutMs: 300, totalTimeoutMs: 700 } });
  assert.equal(record.error?.kind, 'timeout-total');
  assert.match(record.error?.message ?? '', /within the total timeout of 700 ms/);
  assert.ok(elapsedMs >= 650 && elapsedMs < 4000, `took ${elapsedMs} ms`);
});

test('fault: an error object mid-stream -> server error with its message', async () => {
  const error = sseEvent({ error: { message: 'CUDA out of memory', code: 500 } });
  const { record } = await sendTo(() => ({ steps: [...partOfChat.slice(0, 3), error, ...partOfChat.slice(3)] }));
  assert.equal(record.error?.kind, 'server');
  assert.match(record.error?.message ?? '', /mid-stream, after 2 content chunks: CUDA out of memory/);
  assert.equal(record.chunkMs.length, 2);
});

test('fault: the step signal cancels a request in flight, and one not yet sent', async () => {
  const { record, elapsedMs } = await sendTo(() => ({ steps: [...partOfChat.slice(0, 2), { hang: true }] }), {
    during: (tc) => setTimeout(() => tc.abort.abort(), 150),
  });
  assert.equal(record.error?.kind, 'cancelled');
  assert.ok(elapsedMs < 1500, `took ${elapsedMs} ms`);

  const server = await startScriptedServer(() => ({ steps: partOfChat }));
  const tc = clientContext(server.baseUrl);
  tc.abort.abort();
  const unsent = await sendRequest(preparedRequest(), meta(), tc.context);
  await tc.close();
  await server.close();
  assert.equal(unsent.error?.kind, 'cancelled');
  assert.match(unsent.error?.message ?? '', /before it was sent/);
  assert.equal(server.requests.length, 0);
});

test('fault: a header value the HTTP layer refuses -> an error record, not an exception', async () => {
  const { record, requests } = await sendTo(() => ({ steps: partOfChat }), { endpoint: { headers: { 'X-Bad': 'line\nbreak' } } });
  assert.equal(record.error?.kind, 'other');
  assert.match(record.error?.message ?? '', /failed: invalid X-Bad header/);
  assert.equal(requests, 0);
});

test('fault: many requests on one step signal are all cancelled by one abort', async () => {
  const server = await startScriptedServer(() => ({ steps: [partOfChat[0] as string, { hang: true }] }));
  const tc = clientContext(server.baseUrl, { concurrency: 16 });
  const pending = Array.from({ length: 16 }, (_, i) => sendRequest(preparedRequest(), meta(i), tc.context));
  setTimeout(() => tc.abort.abort(), 150);
  const records = await Promise.all(pending);
  await tc.close();
  await server.close();
  assert.deepEqual(new Set(records.map((r) => r.error?.kind)), new Set(['cancelled']));
});
