// The run-preparation table (test/helpers/run-preparation-cases.ts) through the extension inside a
// real VS Code: `llmBench.run` with `{ configFile, simulator, dryRun: true }` for each case, the
// files written into the workspace. The node tier feeds the same table through the command line.
import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { assertMatches, normalizeOutcome, PREPARATION_CASES, simulatorUrlOf, type PreparationOutcome } from '../../helpers/run-preparation-cases';
import { workspaceUri, writeText } from './results-helpers';

suite('run preparation', () => {
  for (const testCase of PREPARATION_CASES) {
    test(`extension: ${testCase.name}`, async () => {
      const folder = `prepare-${PREPARATION_CASES.indexOf(testCase)}`;
      for (const [path, text] of Object.entries(testCase.files)) await writeText(workspaceUri(folder, ...path.split('/')), text);
      const outcome = await vscode.commands.executeCommand<PreparationOutcome | undefined>('llmBench.run', {
        configFile: `${folder}/${testCase.configFile}`,
        ...(testCase.simulator ? { simulator: { preset: testCase.simulator } } : {}),
        dryRun: true,
      });
      assert.ok(outcome, 'the dry run answers');
      // The extension names a file by its path in the workspace: drop the folder this test put it in.
      const named = JSON.parse(JSON.stringify(outcome).split(`${folder}/${testCase.configFile}`).join(testCase.configFile)) as PreparationOutcome;
      assertMatches(normalizeOutcome(named, workspaceUri(folder).fsPath, simulatorUrlOf(named)), testCase.expected);
    });
  }
});
