import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultJsonSchema } from '../../src/format/json-schema';

test('the shipped JSON Schema is the one generated from the zod result schema', () => {
  const shipped = JSON.parse(readFileSync(join(__dirname, '../../../media/llmbench.schema.json'), 'utf8'));
  assert.deepEqual(shipped, resultJsonSchema());
  const properties = shipped.properties as Record<string, unknown>;
  for (const key of ['schemaVersion', 'tool', 'createdAt', 'endpoint', 'labels', 'config', 'status', 'steps']) {
    assert.ok(key in properties, `${key} is described`);
    assert.ok((shipped.required as string[]).includes(key), `${key} is required`);
  }
});
