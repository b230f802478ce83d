// Comparing two results inside a real VS Code: one compare panel opens in the active editor column
// (no result editor is opened twice); the compare file system that the optional side-by-side
// editors read through is read-only.
import assert from 'node:assert/strict';
import { suite, teardown, test } from 'mocha';
import * as vscode from 'vscode';
import { COMPARE_SCHEME, comparePanelTab, compareSideTab, twoRuns, waitFor } from './results-helpers';

suite('compare', () => {
  teardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Compare Selected opens one compare panel in one editor column, and no result editor', async () => {
    const [a, b] = await twoRuns('selected');
    await vscode.commands.executeCommand('llmBench.compareSelected', a, [a, b]);
    const panel = await waitFor('the compare panel', comparePanelTab);
    assert.equal(vscode.window.tabGroups.all.length, 1, 'one editor column');
    assert.equal(compareSideTab(a, b), undefined);
    assert.equal(compareSideTab(b, a), undefined);
    assert.match(panel.label, /selected-a\.llmbench\.json \u2194 selected-b\.llmbench\.json/);
    // Asked again for the same pair, the panel comes forward instead of a second one.
    await vscode.commands.executeCommand('llmBench.compareSelected', a, [a, b]);
    assert.equal(vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview).length, 1);
  });

  test('Compare With... takes the second file as an argument', async () => {
    const [a, b] = await twoRuns('with');
    await vscode.commands.executeCommand('llmBench.compareWith', a, b);
    await waitFor('the compare panel', comparePanelTab);
    assert.equal(compareSideTab(a, b), undefined, 'the result editors open only on request (Open Side by Side)');
  });

  test('a compare URI reads the real file through the read-only compare file system', async () => {
    const [a, b] = await twoRuns('fs');
    const uri = a.with({ scheme: COMPARE_SCHEME, query: new URLSearchParams({ of: a.toString(), with: b.toString() }).toString() });
    await vscode.commands.executeCommand('llmBench.compareWith', a, b); // activates the extension
    const bytes = await vscode.workspace.fs.readFile(uri);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(bytes)).endpoint.model, 'test-model');
    await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(uri, new Uint8Array([1]))));
  });
});
