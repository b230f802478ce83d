// Comparing two results inside a real VS Code: both runs open side by side as result editors (a
// diff of two compare URIs), and the overlay panel opens beside them.
import assert from 'node:assert/strict';
import { suite, teardown, test } from 'mocha';
import * as vscode from 'vscode';
import { concurrencySweep } from '../../helpers/result-documents';
import { allTabs, assertChartExports, waitFor, workspaceUri, writeText } from './results-helpers';

const COMPARE_SCHEME = 'llmbench-compare';

/** The diff tab showing `a` against `b`: its two sides are compare URIs of the two files. */
function compareDiffTab(a: vscode.Uri, b: vscode.Uri): vscode.Tab | undefined {
  const name = (uri: vscode.Uri) => uri.path.split('/').pop() ?? '';
  return allTabs().find((t) => t.label.includes(name(a)) && t.label.includes(name(b)) && !(t.input instanceof vscode.TabInputWebview));
}

const comparePanelTab = (): vscode.Tab | undefined =>
  allTabs().find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('llmBench.compare'));

async function twoRuns(prefix: string): Promise<[vscode.Uri, vscode.Uri]> {
  const a = await writeText(workspaceUri('benchmarks', `${prefix}-a.llmbench.json`), JSON.stringify(concurrencySweep(20, 1)));
  const b = await writeText(workspaceUri('benchmarks', `${prefix}-b.llmbench.json`), JSON.stringify(concurrencySweep(20, 2)));
  return [a, b];
}

suite('compare', () => {
  teardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Compare Selected opens both runs side by side as result editors, plus the compare panel', async () => {
    const [a, b] = await twoRuns('selected');
    await vscode.commands.executeCommand('llmBench.compareSelected', a, [a, b]);
    const diff = await waitFor('the side-by-side tab', () => compareDiffTab(a, b));
    const input = diff.input as { original?: vscode.Uri; modified?: vscode.Uri } | undefined;
    if (input?.original && input.modified) {
      assert.equal(input.original.scheme, COMPARE_SCHEME);
      assert.equal(input.modified.scheme, COMPARE_SCHEME);
    }
    await waitFor('the compare panel', comparePanelTab);
    // Both sides are our result editor, drawn: each returns a chart image.
    await assertChartExports(a, 'latency', workspaceUri('benchmarks', 'selected-a-latency.png'));
    await assertChartExports(b, 'latency', workspaceUri('benchmarks', 'selected-b-latency.png'));
  });

  test('Compare With... takes the second file as an argument', async () => {
    const [a, b] = await twoRuns('with');
    await vscode.commands.executeCommand('llmBench.compareWith', a, b);
    await waitFor('the side-by-side tab', () => compareDiffTab(a, b));
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
