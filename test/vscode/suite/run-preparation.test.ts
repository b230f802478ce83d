// The run-preparation table (test/helpers/run-preparation-cases.ts) through the extension inside a
// real VS Code: `llmBench.run` with `{ configFile, simulator, dryRun: true }` for each case, the
// files written into the workspace. Each answer must match the case's expectation, and must be the
// whole of what the command line answers for the same files (`llmbench run --config FILE --dry-run`,
// run here as a child process from the same folder): every field of the prepared configuration,
// defaults included, and every word of a problem.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { cliPath } from '../../helpers/limited-child';
import { assertMatches, normalizeOutcome, PREPARATION_CASES, simulatorUrlOf, type PreparationOutcome } from '../../helpers/run-preparation-cases';
import { workspaceUri, writeText } from './results-helpers';

/** The command line's dry run of the same case, from the folder that holds its files, named as the extension names files. */
function commandLineOutcome(folder: string, configFile: string, simulator: string | undefined): PreparationOutcome {
  const args = [cliPath, 'run', '--config', configFile, '--dry-run', ...(simulator ? ['--sim', simulator] : [])];
  const child = spawnSync(process.execPath, args, { cwd: folder, encoding: 'utf8', timeout: 30_000, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  assert.ok(child.stdout, `the command line answered nothing (exit ${child.status}): ${child.stderr}`);
  return JSON.parse(JSON.stringify(JSON.parse(child.stdout)).split(`--config ${configFile}`).join(configFile)) as PreparationOutcome;
}

suite('run preparation', () => {
  for (const testCase of PREPARATION_CASES) {
    test(`extension: ${testCase.name}`, async () => {
      const folder = `prepare-${PREPARATION_CASES.indexOf(testCase)}`;
      await vscode.workspace.fs.createDirectory(workspaceUri(folder));
      for (const [path, text] of Object.entries(testCase.files)) await writeText(workspaceUri(folder, ...path.split('/')), text);
      const outcome = await vscode.commands.executeCommand<PreparationOutcome | undefined>('llmBench.run', {
        configFile: `${folder}/${testCase.configFile}`,
        ...(testCase.simulator ? { simulator: { preset: testCase.simulator } } : {}),
        dryRun: true,
      });
      assert.ok(outcome, 'the dry run answers');
      // The extension names a file by its path in the workspace: drop the folder this test put it in
      // (once the folder's absolute path, which also ends in it, has become <workspace>).
      const workspace = workspaceUri(folder).fsPath;
      const normalized = normalizeOutcome(outcome, workspace, simulatorUrlOf(outcome));
      const fromExtension = JSON.parse(JSON.stringify(normalized).split(`${folder}/${testCase.configFile}`).join(testCase.configFile)) as PreparationOutcome;
      assertMatches(fromExtension, testCase.expected);
      const cli = commandLineOutcome(workspace, testCase.configFile, testCase.simulator);
      assert.deepEqual(fromExtension, normalizeOutcome(cli, workspace, simulatorUrlOf(cli)), 'the command line prepares the same run, or words the same problem');
    });
  }
});
