import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendRequest } from '../../src/load/client';
import type { RequestRecord } from '../../src/format/result';
import { startSimServer, type SimOptionsInput } from '../../src/sim';
import { clientContext, meta } from '../helpers/client-context';

/** Sends `count` streaming requests (chat unless told) one after another with the engine's client. */
async function withFaults(faults: SimOptionsInput['faults'], count: number, seed = 5, more: { api?: 'chat' | 'responses'; reasoning?: SimOptionsInput['reasoning'] } = {}) {
  const sim = await startSimServer({ preset: 'tiny', seed, faults, ...(more.reasoning ? { reasoning: more.reasoning } : {}) });
  const { context, close } = clientContext(sim.baseUrl, { endpoint: { model: sim.model, api: more.api ?? 'chat' }, request: { extraBody: { ignore_eos: true } } });
  try {
    const records: RequestRecord[] = [];
    for (let i = 0; i < count; i++) {
      records.push(await sendRequest({ prompt: 'Fault me.', maxTokens: 20, inputTokens: { count: 3, source: 'estimate' } }, meta(i), context));
    }
    return { records, traces: await sim.trace() };
  } finally {
    await close();
    await sim.close();
  }
}

test('injected error statuses reach the client as HTTP errors, drawn from the given statuses', async () => {
  const { records, traces } = await withFaults({ errorRate: 1, errorStatuses: [429, 503] }, 12);
  assert.ok(records.every((r) => r.error?.kind === 'http'));
  const statuses = new Set(records.map((r) => r.httpStatus));
  assert.deepEqual([...statuses].sort(), [429, 503]);
  assert.ok(traces.every((t) => t.fault === 'error' && (t.status === 429 || t.status === 503)));
});

test('a disconnect mid-stream is a reset for the client, and the engine drops the request', async () => {
  const { records, traces } = await withFaults({ disconnectRate: 1 }, 4);
  for (const r of records) assert.equal(r.error?.kind, 'reset', JSON.stringify(r.error));
  for (const t of traces) {
    assert.equal(t.fault, 'disconnect');
    assert.ok(t.outputTokens < 20 || t.finishReason === null);
  }
});

test('a malformed chunk is a protocol error for the client', async () => {
  const { records } = await withFaults({ malformedRate: 1 }, 3);
  for (const r of records) assert.equal(r.error?.kind, 'protocol', JSON.stringify(r.error));
});

test('the Responses API through the simulator: a disconnect mid-stream is a reset, a malformed event a protocol error; the thoughts that came are kept', async () => {
  const reasoning = { tokens: 8, field: 'reasoning' as const };
  const cut = await withFaults({ disconnectRate: 1 }, 4, 5, { api: 'responses', reasoning });
  for (const r of cut.records) assert.equal(r.error?.kind, 'reset', JSON.stringify(r.error));
  assert.ok(cut.traces.every((t) => t.fault === 'disconnect' && t.api === 'responses'));
  // The cut strikes at a drawn token: those after some thoughts keep them in the partial record.
  assert.ok(cut.records.some((r) => (r.reasoning?.chunks ?? 0) > 0), 'some cut responses had begun to reason');
  const malformed = await withFaults({ malformedRate: 1 }, 3, 5, { api: 'responses', reasoning });
  for (const r of malformed.records) assert.equal(r.error?.kind, 'protocol', JSON.stringify(r.error));
});

test('a stall holds the writes back for its duration, then the stream completes', async () => {
  const { records, traces } = await withFaults({ stallRate: 1, stallMs: 300 }, 2);
  assert.ok(traces.every((t) => t.fault === 'stall'));
  for (const r of records) {
    assert.equal(r.error, null);
    assert.equal(r.outputTokens, 20);
    // The stall may strike before the first token or between two.
    const silences = [(r.firstTokenMs as number) - r.sentMs, ...r.chunkMs.slice(1).map((ms, j) => ms - (r.chunkMs[j] as number))];
    const longest = Math.max(...silences);
    assert.ok(longest >= 250, `the longest silence was ${longest.toFixed(0)} ms`);
  }
});

test('the same seed injects faults into the same requests', async () => {
  const pattern = async (seed: number) => (await withFaults({ errorRate: 0.5 }, 16, seed)).records.map((r) => r.error !== null);
  const first = await pattern(11);
  assert.ok(first.includes(true) && first.includes(false));
  assert.deepEqual(await pattern(11), first);
});
