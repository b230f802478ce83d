/**
 * scripts/test.mjs, the one test command, run in an empty folder so that its own outcome is what
 * is checked: the final count line, skips under CI, and a tier whose runner was not built.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/limited-child';

const script = join(repoRoot, 'scripts', 'test.mjs');

/** A folder with one node-tier test file (and its source, which the runner looks for) holding a pass and a skip. */
function folderWithASkip(): string {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-test-runner-'));
  mkdirSync(join(dir, 'out', 'test', 'unit'), { recursive: true });
  mkdirSync(join(dir, 'test', 'unit'), { recursive: true });
  writeFileSync(join(dir, 'test', 'unit', 'one.test.ts'), '');
  writeFileSync(join(dir, 'out', 'test', 'unit', 'one.test.js'), "const { test } = require('node:test');\ntest('passes', () => {});\ntest('skips', { skip: 'not here' }, () => {});\n");
  return dir;
}

function runTests(dir: string, args: string[], env: Record<string, string | undefined>): { status: number | null; lastLine: string; text: string } {
  // NODE_TEST_CONTEXT would make the inner node --test report to this test runner instead of its own files.
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NODE_TEST_CONTEXT: undefined, CI: undefined, LLMBENCH_ALLOW_SKIPS: undefined, ...env };
  for (const [key, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[key];
  const r = spawnSync(process.execPath, [script, '--no-setup', ...args], { cwd: dir, env: childEnv, encoding: 'utf8', timeout: 60_000 });
  const lines = r.stdout.trimEnd().split('\n');
  return { status: r.status, lastLine: lines.at(-1) ?? '', text: r.stdout };
}

// The empty folder has no build and no type-check: those two count as failed in every case below.
const BUILD_AND_TYPECHECK = 2;

test('the final line counts skips; under CI a skip fails the run unless LLMBENCH_ALLOW_SKIPS=1', () => {
  const dir = folderWithASkip();
  const local = runTests(dir, ['--tier', 'node'], {});
  assert.equal(local.lastLine, `1 passed, ${BUILD_AND_TYPECHECK} failed, 1 skipped`);
  const ci = runTests(dir, ['--tier', 'node'], { CI: 'true' });
  assert.equal(ci.lastLine, `1 passed, ${BUILD_AND_TYPECHECK + 1} failed, 1 skipped`);
  assert.match(ci.text, /1 skipped under CI \(set LLMBENCH_ALLOW_SKIPS=1/);
  assert.equal(ci.status, 1);
  const allowed = runTests(dir, ['--tier', 'node'], { CI: 'true', LLMBENCH_ALLOW_SKIPS: '1' });
  assert.equal(allowed.lastLine, `1 passed, ${BUILD_AND_TYPECHECK} failed, 1 skipped`);
  const notCi = runTests(dir, ['--tier', 'node'], { CI: 'false' });
  assert.equal(notCi.lastLine, `1 passed, ${BUILD_AND_TYPECHECK} failed, 1 skipped`);
});

test('a tier asked for whose runner was not built counts as failed; one not asked for does not', () => {
  const dir = folderWithASkip();
  const e2e = runTests(dir, ['--tier', 'e2e'], {});
  assert.match(e2e.text, /tier e2e: out\/test\/e2e\/run\.js is missing/);
  assert.equal(e2e.lastLine, `0 passed, ${BUILD_AND_TYPECHECK + 1} failed, 0 skipped`);
  assert.doesNotMatch(e2e.text, /tier vscode/);
  const all = runTests(dir, [], {});
  assert.equal(all.lastLine, `1 passed, ${BUILD_AND_TYPECHECK + 2} failed, 1 skipped`, 'vscode and e2e both missing');
});
