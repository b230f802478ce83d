// The run-preparation table (test/helpers/run-preparation-cases.ts) through the command line:
// `llmbench run --config FILE [--sim PRESET] --dry-run` in a child process, from the folder that
// holds the files. The vscode tier feeds the same table through the extension's command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { assertMatches, normalizeOutcome, PREPARATION_CASES, simulatorUrlOf, type PreparationOutcome } from '../helpers/run-preparation-cases';

const repoRoot = process.env.LLMBENCH_ROOT ?? resolve(__dirname, '../../..');
const cliPath = join(repoRoot, 'dist', 'cli.js');

for (const testCase of PREPARATION_CASES) {
  test(`command line: ${testCase.name}`, () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'llmbench-prepare-')));
    try {
      for (const [path, text] of Object.entries(testCase.files)) {
        mkdirSync(dirname(join(workspace, path)), { recursive: true });
        writeFileSync(join(workspace, path), text);
      }
      const args = [cliPath, 'run', '--config', testCase.configFile, '--dry-run', ...(testCase.simulator ? ['--sim', testCase.simulator] : [])];
      const child = spawnSync(process.execPath, args, { cwd: workspace, encoding: 'utf8', timeout: 30_000 });
      const outcome = JSON.parse(child.stdout) as PreparationOutcome;
      assert.equal(child.status, 'error' in outcome ? 2 : 0, `exit status (stderr: ${child.stderr})`);
      // The command line names a file by its flag: `--config keyed.json`; the extension by its path.
      const named = JSON.parse(JSON.stringify(outcome).split(`--config ${testCase.configFile}`).join(testCase.configFile)) as PreparationOutcome;
      assertMatches(normalizeOutcome(named, workspace, simulatorUrlOf(named)), testCase.expected);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
}
