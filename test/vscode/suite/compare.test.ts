// Comparing two results inside a real VS Code: both runs open side by side as result editors (in
// two columns, on compare URIs), and the overlay panel opens beside them.
import assert from 'node:assert/strict';
import { suite, teardown, test } from 'mocha';
import * as vscode from 'vscode';
import { assertChartExports, COMPARE_SCHEME, comparePanelTab, compareSideTab, twoRuns, waitFor, workspaceUri } from './results-helpers';

suite('compare', () => {
  teardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Compare Selected opens both runs side by side as result editors, plus the compare panel', async () => {
    const [a, b] = await twoRuns('selected');
    await vscode.commands.executeCommand('llmBench.compareSelected', a, [a, b]);
    const left = await waitFor('run A on the left', () => compareSideTab(a, b));
    const right = await waitFor('run B on the right', () => compareSideTab(b, a));
    assert.notEqual(left.group.viewColumn, right.group.viewColumn);
    await waitFor('the compare panel', comparePanelTab);
    // Both sides are our result editor, drawn: each returns a chart image.
    await assertChartExports(a, 'latency', workspaceUri('benchmarks', 'selected-a-latency.png'));
    await assertChartExports(b, 'latency', workspaceUri('benchmarks', 'selected-b-latency.png'));
  });

  test('Compare With... takes the second file as an argument', async () => {
    const [a, b] = await twoRuns('with');
    await vscode.commands.executeCommand('llmBench.compareWith', a, b);
    await waitFor('both runs side by side', () => (compareSideTab(a, b) && compareSideTab(b, a) ? true : undefined));
    await waitFor('the compare panel', comparePanelTab);
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
