/**
 * Simplified Chinese through VS Code's own route (issue 27): package.nls*.json for the manifest,
 * l10n/bundle.l10n*.json for what the host and its webviews show. A key one side lacks shows a raw
 * `%key%` or an English string in a Chinese UI, so the sets must be equal both ways.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../vscode/harness/tools';

const readJson = (path: string): unknown => JSON.parse(readFileSync(join(repoRoot, path), 'utf8'));

function manifestKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    const key = /^%(.+)%$/.exec(value)?.[1];
    if (key) into.add(key);
  } else if (Array.isArray(value)) for (const item of value) manifestKeys(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) manifestKeys(item, into);
  return into;
}

function stringTable(path: string): Record<string, string> {
  const table = readJson(path);
  assert.ok(table && typeof table === 'object' && !Array.isArray(table), `${path} is not an object`);
  for (const [key, text] of Object.entries(table)) assert.equal(typeof text, 'string', `${path}: ${key} is not a string`);
  return table as Record<string, string>;
}

const sorted = (keys: Iterable<string>): string[] => [...keys].sort();

test('every %key% of package.json is in package.nls.json and package.nls.zh-cn.json, and they hold no other key', () => {
  const used = sorted(manifestKeys(readJson('package.json')));
  assert.ok(used.length > 60, `package.json names only ${used.length} %keys%: its titles and descriptions are not localized`);
  assert.deepEqual(sorted(Object.keys(stringTable('package.nls.json'))), used);
  assert.deepEqual(sorted(Object.keys(stringTable('package.nls.zh-cn.json'))), used);
});

test('every command title and setting description of package.json goes through a %key%', () => {
  const manifest = readJson('package.json') as { contributes: { commands: { title: string; category?: string }[]; configuration: { properties: Record<string, unknown> } } };
  for (const command of manifest.contributes.commands) {
    assert.match(command.title, /^%.+%$/, `command title "${command.title}" is not localized`);
    if (command.category) assert.match(command.category, /^%.+%$/);
  }
  const plain: string[] = [];
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      if (/(description|markdownDescription|enumDescriptions\.\d+)$/.test(path) && !/^%.+%$/.test(value)) plain.push(path);
    } else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, `${path}.${k}`);
  };
  visit(manifest.contributes.configuration.properties, 'configuration');
  assert.deepEqual(plain, [], 'settings text not localized');
});

test('the zh-cn manifest strings are Chinese where the English is prose', () => {
  const english = stringTable('package.nls.json');
  const chinese = stringTable('package.nls.zh-cn.json');
  // Product names and bare API routes stay; every sentence gets a translation.
  const untranslated = Object.keys(english).filter((key) => /[a-z]{3,} [a-z]{3,}/i.test(english[key]!.replace(/POST \/v1\/\S+|LLM Bench/g, '')) && !/[\u4e00-\u9fff]/.test(chinese[key]!));
  assert.deepEqual(untranslated, []);
});
