/**
 * The endpoint probe against a real llama.cpp `llama-server` (scripts/setup.d/llama.sh): it lists
 * the served model and names llama.cpp with the build it reports; a run then carries those labels.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema } from '../../src/format/config';
import type { RunEvent } from '../../src/format/events';
import { runBenchmark } from '../../src/load/runner';
import { probeEndpoint } from '../../src/observe/probe';
import { LLAMA_MODEL_ID, LLAMA_STARTUP_LIMIT_MS, startLlamaServer, type LlamaServer } from '../helpers/llama-server';

describe('endpoint probe against llama.cpp llama-server (real engine)', { timeout: 300_000 }, () => {
  let llama: LlamaServer | undefined;
  before(async () => {
    llama = await startLlamaServer();
  }, { timeout: LLAMA_STARTUP_LIMIT_MS + 30_000 });
  after(() => llama?.stop());

  test('lists the served model and names llama.cpp with its build', async () => {
    const probe = await probeEndpoint(llama?.baseUrl ?? '');
    assert.equal(probe.error, null);
    assert.equal(probe.reachable, true);
    assert.deepEqual(probe.models, [LLAMA_MODEL_ID]);
    assert.equal(probe.engine?.name, 'llama.cpp');
    // Debian's build reports e.g. "b11669-Debian"; the version is whatever /props says, not null.
    assert.match(probe.engine?.version ?? '', /\S/);
    assert.match(probe.engine?.evidence ?? '', /GET \/props gives build_info/);
    assert.match(probe.engine?.evidence ?? '', /owned_by "llamacpp"/);
    console.log(`llama-server probe: ${JSON.stringify(probe.engine)}`);
  });

  test('a run without an engine label gets engine=llama.cpp and its version', { timeout: 120_000 }, async () => {
    const events: RunEvent[] = [];
    const config = RunConfigSchema.parse({
      endpoint: { baseUrl: llama?.baseUrl, model: LLAMA_MODEL_ID, api: 'completions' },
      workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 4 },
      request: { extraBody: { ignore_eos: true } },
      limits: { requests: 2 },
      labels: { hardware: 'ci' },
    });
    const doc = await runBenchmark(config, { onEvent: (e) => events.push(e) });
    assert.equal(doc.status, 'complete', doc.statusReason ?? '');
    assert.equal(doc.labels.engine, 'llama.cpp');
    // `hardware` is an alias of the one key `gpu` (LABEL_ALIASES): the result keeps it under that key.
    assert.equal(doc.labels.gpu, 'ci');
    assert.equal(doc.labels.hardware, undefined);
    assert.match(doc.labels.engineVersion ?? '', /\S/);
    assert.ok(events.some((e) => e.type === 'log' && e.message.startsWith('Engine: llama.cpp')));
  });
});
