import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema, redactHeaders } from '../../src/format/config';
import { parseResultDocument, SCHEMA_VERSION } from '../../src/format/result';
import { concurrencySweep } from '../helpers/result-documents';

test('a run config without a request or duration limit is rejected with the reason', () => {
  const r = RunConfigSchema.safeParse({ endpoint: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm' } });
  assert.equal(r.success, false);
  assert.match(JSON.stringify(r.error?.issues), /requests or durationSec/);
});

test('defaults fill a minimal run config', () => {
  const c = RunConfigSchema.parse({ endpoint: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm' }, limits: { requests: 3 } });
  assert.equal(c.endpoint.api, 'chat');
  assert.equal(c.request.stream, true);
  assert.deepEqual(c.workload, { kind: 'synthetic', inputTokens: 512, outputTokens: 128, sharedPrefixTokens: 0, prefixCount: 1 });
  assert.equal(c.profile.kind, 'synchronous');
});

test('secret-looking header values are redacted, others kept', () => {
  assert.deepEqual(redactHeaders({ Authorization: 'Bearer x', 'X-Api-Key': 'k', 'X-Team': 'a' }), {
    Authorization: '<redacted>',
    'X-Api-Key': '<redacted>',
    'X-Team': 'a',
  });
});

test('result parsing explains truncation, newer versions and wrong fields', () => {
  const truncated = parseResultDocument('{"schemaVersion": 1, "steps": [');
  assert.equal(truncated.ok, false);
  assert.match(!truncated.ok ? truncated.error : '', /not valid JSON/);
  const newer = parseResultDocument(JSON.stringify({ schemaVersion: SCHEMA_VERSION + 1 }));
  assert.match(!newer.ok ? newer.error : '', /newer than this version/);
  const wrong = parseResultDocument(JSON.stringify({ schemaVersion: 1, tool: 'x' }));
  assert.match(!wrong.ok ? wrong.error : '', /tool/);
});

test('chunk times must all be numbers, and a wrong one is named by its index', () => {
  const text = JSON.stringify(concurrencySweep(3));
  const good = parseResultDocument(text);
  assert.equal(good.ok, true);
  assert.deepEqual(good.ok && good.value.steps[1]?.requests[2]?.chunkMs, concurrencySweep(3).steps[1]?.requests[2]?.chunkMs);
  for (const bad of ['"12"', 'null', '{}']) {
    const doc = JSON.parse(text);
    doc.steps[1].requests[2].chunkMs[3] = JSON.parse(bad);
    const parsed = parseResultDocument(JSON.stringify(doc));
    assert.equal(parsed.ok, false, `a chunk time of ${bad}`);
    assert.match(!parsed.ok ? parsed.error : '', /steps\.1\.requests\.2\.chunkMs\.3: .*expected number/);
  }
  const notArray = JSON.parse(text);
  notArray.steps[0].requests[0].chunkMs = 5;
  assert.match(JSON.stringify(parseResultDocument(JSON.stringify(notArray))), /steps\.0\.requests\.0\.chunkMs: .*expected array/);
});
