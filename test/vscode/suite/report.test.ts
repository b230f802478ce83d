// The benchmark report inside a real VS Code: "Open Benchmark Report" on a folder of results (one
// imported from GuideLLM), grouping by a label, and "Edit Labels" rewriting only a file's labels.
import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { concurrencySweep } from '../../helpers/result-documents';
import { allTabs, readText, waitFor, workspaceUri, writeText } from './results-helpers';

interface OpenedReport {
  title: string;
  model: { groupBy: string | null; groups: string[]; charts: { id: string; curves: { points: unknown[] }[] }[]; ranking: { name: string }[] };
  problems: string[];
}

suite('benchmark report', () => {
  test('opens on a folder of results, groups by a label, edits labels without touching measurements', async () => {
    const a = concurrencySweep(10);
    const b = concurrencySweep(10, 2);
    const fileA = await writeText(workspaceUri('reports', 'a100.llmbench.json'), JSON.stringify({ ...a, labels: { gpu: 'A100', engine: 'vllm' } }));
    await writeText(workspaceUri('reports', 'l20.llmbench.json'), JSON.stringify({ ...b, labels: { gpu: 'L20', engine: 'vllm' } }));
    await writeText(workspaceUri('reports', 'notes.txt'), 'not a result');

    const opened = (await vscode.commands.executeCommand('llmBench.openReport', workspaceUri('reports'))) as OpenedReport | undefined;
    assert.ok(opened, 'the command answers with the report it opened');
    await waitFor('the report panel', () => allTabs().find((t) => t.input instanceof vscode.TabInputWebview && t.label === opened.title));
    assert.deepEqual(opened.problems, []);
    assert.equal(opened.model.groupBy, 'gpu', 'grouped by the label that tells the runs apart');
    assert.deepEqual(opened.model.groups, ['A100', 'L20']);
    const latency = opened.model.charts.find((c) => c.id === 'latencyMs');
    assert.equal(latency?.curves.length, 2);
    assert.ok(latency!.curves.every((c) => c.points.length === a.steps.length));

    const before = JSON.parse(await readText(fileA));
    assert.equal(await vscode.commands.executeCommand('llmBench.editLabels', fileA, 'gpu=H100, engine=sglang, quant=awq'), true);
    const after = JSON.parse(await readText(fileA));
    assert.deepEqual(after.labels, { gpu: 'H100', engine: 'sglang', quant: 'awq' });
    assert.deepEqual(after.steps, before.steps);

    const regrouped = (await vscode.commands.executeCommand('llmBench.openReport', undefined, [fileA, workspaceUri('reports', 'l20.llmbench.json')])) as OpenedReport;
    assert.deepEqual(regrouped.model.groups, ['H100', 'L20']);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
