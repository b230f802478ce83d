import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// ajv is already in node_modules (a dependency of the packaging tools); it reads JSON Schema 2020-12 as shipped.
import Ajv2020 from 'ajv/dist/2020';
import { resultJsonSchema, runConfigJsonSchema } from '../../src/format/json-schema';
import { concurrencySweep } from '../helpers/result-documents';

const shippedSchema = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(__dirname, '../../../media', name), 'utf8'));

/** A validator of the shipped schema; formats (uri, date-time) are the zod side's to check, not the editor's. */
function validatorOf(schema: Record<string, unknown>) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  const validate = ajv.compile(schema);
  return (value: unknown): string[] => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`));
}

/** A deep copy of `value` with `edit` applied. */
function edited<T>(value: T, edit: (copy: any) => void): unknown {
  const copy = structuredClone(value);
  edit(copy);
  return copy;
}

test('the shipped JSON Schema is the one generated from the zod result schema', () => {
  const shipped = shippedSchema('llmbench.schema.json');
  assert.deepEqual(shipped, resultJsonSchema());
  const properties = shipped.properties as Record<string, unknown>;
  for (const key of ['schemaVersion', 'tool', 'createdAt', 'endpoint', 'labels', 'config', 'status', 'steps']) {
    assert.ok(key in properties, `${key} is described`);
    assert.ok((shipped.required as string[]).includes(key), `${key} is required`);
  }
});

test('the shipped result schema accepts result documents and refuses broken ones', () => {
  const validate = validatorOf(shippedSchema('llmbench.schema.json'));
  const good = concurrencySweep(5);
  assert.deepEqual(validate(good), []);
  assert.deepEqual(validate(edited(good, (d) => ((d.status = 'running'), (d.steps[2].summary = null)))), [], 'a running file with an open step');
  assert.deepEqual(validate(edited(good, (d) => (d.steps[0].requests[0].error = { kind: 'client', message: 'EMFILE' }))), []);
  const bad: Array<[string, unknown, RegExp]> = [
    ['no status', edited(good, (d) => delete d.status), /must have required property 'status'/],
    ['an unknown status', edited(good, (d) => (d.status = 'done')), /\/status must be equal to one of the allowed values/],
    ['a newer schema version', edited(good, (d) => (d.schemaVersion = 99)), /\/schemaVersion must be equal to constant/],
    ['steps not a list', edited(good, (d) => (d.steps = {})), /\/steps must be array/],
    ['chunk times as text', edited(good, (d) => (d.steps[0].requests[0].chunkMs = ['1'])), /\/steps\/0\/requests\/0\/chunkMs\/0 must be number/],
    ['an unknown error kind', edited(good, (d) => (d.steps[0].requests[0].error = { kind: 'boom', message: '' })), /\/error\/kind must be equal to one of the allowed values/],
    ['a negative count', edited(good, (d) => (d.steps[0].summary.requests.total = -1)), /\/requests\/total must be >= 0/],
    ['a step without a name', edited(good, (d) => delete d.steps[1].name), /\/steps\/1 must have required property 'name'/],
  ];
  for (const [what, doc, message] of bad) {
    const errors = validate(doc);
    assert.ok(errors.some((e) => message.test(e)), `${what}: ${errors.join('; ') || 'accepted'}`);
  }
});

test('the shipped run config schema accepts configs as people write them and refuses broken ones', () => {
  const shipped = shippedSchema('llmbench-config.schema.json');
  assert.deepEqual(shipped, runConfigJsonSchema());
  const validate = validatorOf(shipped);
  const good = {
    $schema: './node_modules/llm-bench/media/llmbench-config.schema.json',
    endpoint: { baseUrl: 'http://127.0.0.1:8000/v1', model: 'Qwen/Qwen2-7B-Instruct' },
    workload: { kind: 'dataset', path: 'prompts.jsonl' },
    profile: { kind: 'concurrency', levels: [1, 8, 64] },
    limits: { requests: 100 },
  };
  assert.deepEqual(validate(good), []);
  assert.deepEqual(validate({ endpoint: good.endpoint, profile: { kind: 'sweep' }, limits: { durationSec: 30 } }), []);
  const bad: Array<[string, unknown, RegExp]> = [
    ['no endpoint', edited(good, (d) => delete d.endpoint), /must have required property 'endpoint'/],
    ['an unknown field', edited(good, (d) => (d.limits.requestz = 5)), /\/limits must NOT have additional properties/],
    ['an unknown profile', edited(good, (d) => (d.profile = { kind: 'burst' })), /\/profile/],
    ['concurrency above the bound', edited(good, (d) => (d.profile.levels = [1e12])), /\/profile\/levels\/0 must be <= 100000/],
    ['a timeout past Node.js timers', edited(good, (d) => (d.request = { totalTimeoutMs: 1e12 })), /\/request\/totalTimeoutMs must be <= 2147483647/],
    ['a dataset format that is not one', edited(good, (d) => (d.workload.format = 'csv')), /\/workload/],
  ];
  for (const [what, config, message] of bad) {
    const errors = validate(config);
    assert.ok(errors.some((e) => message.test(e)), `${what}: ${errors.join('; ') || 'accepted'}`);
  }
});
