// The result custom editor inside a real VS Code: opening valid, partial and corrupt files, and the
// exports that prove the webview drew (a chart PNG comes back from the webview's canvas).
import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { concurrencySweep, makeDocument } from '../../helpers/result-documents';
import { assertChartExports, readText, resultTab, waitFor, workspaceUri, writeText } from './results-helpers';

suite('result editor', () => {
  test('a result file opens in the LLM Bench result editor, draws its charts and exports its table', async () => {
    const file = await writeText(workspaceUri('benchmarks', 'sweep.llmbench.json'), JSON.stringify(concurrencySweep(20)));
    await vscode.commands.executeCommand('vscode.open', file);
    await waitFor('the result editor tab', () => resultTab(file));

    await assertChartExports(file, 'ttft', workspaceUri('benchmarks', 'sweep-ttft.png'));

    const markdownUri = workspaceUri('benchmarks', 'sweep.md');
    await vscode.commands.executeCommand('llmBench.saveResultTableMarkdown', file, markdownUri);
    const markdown = await readText(markdownUri);
    assert.match(markdown, /^\| Benchmark \|/);
    for (const step of ['synchronous', 'concurrency@4', 'concurrency@16']) assert.ok(markdown.includes(`| ${step} |`), step);
  });

  test('a corrupt file opens in the result editor without throwing and has no table to export', async () => {
    const file = await writeText(workspaceUri('benchmarks', 'broken.llmbench.json'), '{"schemaVersion": 1, "steps": [');
    await vscode.commands.executeCommand('vscode.open', file);
    await waitFor('the result editor tab', () => resultTab(file));
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('llmBench.saveResultTableMarkdown', file, workspaceUri('benchmarks', 'broken.md'))),
      /not a readable result/,
    );
  });

  test('the view follows its file as a running benchmark rewrites it', async () => {
    const full = concurrencySweep(10);
    const running = makeDocument([], { ...full, status: 'running', finishedAt: null, steps: full.steps.slice(0, 1) });
    const file = await writeText(workspaceUri('benchmarks', 'growing.llmbench.json'), JSON.stringify(running));
    await vscode.commands.executeCommand('vscode.open', file);
    await waitFor('the result editor tab', () => resultTab(file));
    const markdownUri = workspaceUri('benchmarks', 'growing.md');
    const table = async () => {
      await vscode.commands.executeCommand('llmBench.saveResultTableMarkdown', file, markdownUri);
      return readText(markdownUri);
    };
    assert.ok(!(await table()).includes('concurrency@16'));

    await writeText(file, JSON.stringify(full));
    await waitFor('the rewritten file in the view', async () => ((await table()).includes('| concurrency@16 |') ? true : undefined));
  });
});
