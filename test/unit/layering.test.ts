// The rooms of the code and who may import whom (docs/architecture.md): only src/host knows VS Code;
// nothing in src/ imports the webviews; the webviews import from src/ only the schemas (format),
// the view models (views) and the pure helpers they format with (report's units, tables and label text). A
// file that breaks a rule is named with the import that breaks it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { repoRoot } from '../helpers/limited-child';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Each import of a file, as the repository path it names (or the package name). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'/gm)].map((m) => {
    const spec = (m[1] ?? m[2]) as string;
    return spec.startsWith('.') ? relative(repoRoot, resolve(file, '..', spec)).split(sep).join('/') : spec;
  });
}

function breaches(room: string, forbidden: (target: string) => boolean): string[] {
  return sourceFiles(join(repoRoot, room)).flatMap((file) =>
    importsOf(file)
      .filter(forbidden)
      .map((target) => `${relative(repoRoot, file)} imports ${target}`),
  );
}

test('only src/host imports vscode', () => {
  const outside = readdirSync(join(repoRoot, 'src')).filter((room) => room !== 'host' && statSync(join(repoRoot, 'src', room)).isDirectory());
  assert.ok(outside.includes('engine') && outside.includes('views'), `the rooms of src/: ${outside.join(', ')}`);
  assert.deepEqual(outside.flatMap((room) => breaches(`src/${room}`, (target) => target === 'vscode')), []);
});

test('nothing in src/ imports the webviews', () => {
  assert.deepEqual(breaches('src', (target) => target.startsWith('webview/')), []);
});

test('the webviews take from src/ only schemas, view models and formatting helpers', () => {
  const allowed = ['src/format/', 'src/views/'];
  assert.deepEqual(breaches('webview', (target) => target.startsWith('src/') && !allowed.some((room) => target.startsWith(room))), []);
});
