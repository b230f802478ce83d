// Importing inside a real VS Code: pasted text through "Import Benchmark Results from Clipboard"
// (the real clipboard), a Markdown file through "Import Benchmark Results...", one result file per
// run, and the report over them grouped by the label asked for.
import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { allTabs, readText, waitFor, workspaceUri, writeText } from './results-helpers';
import { NOTES } from '../../helpers/import-samples';

interface OpenedReport {
  title: string;
  model: { groupBy: string | null; groups: string[] };
  problems: string[];
}

const parse = async (uri: vscode.Uri) => JSON.parse(await readText(uri)) as { labels: Record<string, string>; steps: { name: string }[]; importedFrom: { file: string; lines: { first: number; last: number } } };

suite('import', () => {
  test('from the clipboard: one result per run with the labels of its context line, then the report grouped by engine', async () => {
    await vscode.env.clipboard.writeText(NOTES);
    const folder = workspaceUri('imported-clipboard');
    const files = (await vscode.commands.executeCommand('llmBench.importFromClipboard', folder)) as vscode.Uri[] | undefined;
    assert.ok(files, 'the command answers with the files it wrote');
    assert.deepEqual(
      files.map((f) => f.path.split('/').pop()),
      ['01-qwen2-7b-instruct-awq-sglang-2xl20-48gb.llmbench.json', '02-qwen2-7b-instruct-awq-vllm-2xl20-48gb.llmbench.json'],
    );
    const [sglang, vllm] = await Promise.all(files.map(parse));
    assert.equal(sglang?.labels['engine'], 'sglang');
    assert.equal(vllm?.labels['engine'], 'vllm');
    assert.deepEqual(sglang?.steps.map((s) => s.name), ['concurrency@4', 'concurrency@16']);
    assert.equal(sglang?.importedFrom.file, 'clipboard');
    assert.equal(NOTES.split('\n')[(sglang?.importedFrom.lines.first ?? 0) - 1], '- **Qwen2-7B-Instruct-AWQ**, **2** x **L20 48GB**, **SGLang**, prompt_tokens=512, generated_tokens=128');

    // A second import into the same folder never overwrites the first.
    const again = (await vscode.commands.executeCommand('llmBench.importFromClipboard', folder, NOTES)) as vscode.Uri[];
    assert.deepEqual(
      again.map((f) => f.path.split('/').pop()),
      ['01-qwen2-7b-instruct-awq-sglang-2xl20-48gb-2.llmbench.json', '02-qwen2-7b-instruct-awq-vllm-2xl20-48gb-2.llmbench.json'],
    );

    const opened = (await vscode.commands.executeCommand('llmBench.openReport', undefined, files, { groupBy: 'engine' })) as OpenedReport;
    await waitFor('the report panel', () => allTabs().find((t) => t.input instanceof vscode.TabInputWebview && t.label === opened.title));
    assert.deepEqual(opened.problems, []);
    assert.equal(opened.model.groupBy, 'engine');
    assert.deepEqual(opened.model.groups, ['sglang', 'vllm']);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('without a target: the review lists the runs, Write goes on to the folder dialog, the results land there', async () => {
    let files: vscode.Uri[] | undefined;
    let settled = false;
    const pending = Promise.resolve(vscode.commands.executeCommand('llmBench.importFromClipboard', undefined, NOTES) as Thenable<vscode.Uri[] | undefined>).then((written) => {
      files = written;
      settled = true;
    });
    // The first item of the review is "Write 2 result files"; the folder dialog then offers the
    // workspace's results folder. Each accept goes to whichever quick input shows (none: nothing happens).
    for (let tries = 0; tries < 60 && !settled; tries++) {
      await new Promise((r) => setTimeout(r, 500));
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    }
    await pending;
    assert.ok(files, 'the import wrote files');
    assert.equal(files.length, 2);
    assert.ok(files.every((f) => f.path.startsWith(workspaceUri('benchmarks').path + '/')), files.map((f) => f.path).join(', '));
  });

  test('a Markdown file through Import Benchmark Results: one run to a result file, several to a folder, nothing found is an error', async () => {
    const single = await writeText(workspaceUri('notes', 'sglang.md'), NOTES.split('- **Qwen2-7B-Instruct-AWQ**, **2** x **L20 48GB**, **vLLM**')[0] ?? '');
    const target = workspaceUri('notes', 'sglang.llmbench.json');
    const written = (await vscode.commands.executeCommand('llmBench.importResults', single, undefined, target)) as vscode.Uri[];
    assert.deepEqual(written.map((f) => f.toString()), [target.toString()]);
    assert.deepEqual((await parse(target)).steps.map((s) => s.name), ['concurrency@4', 'concurrency@16']);

    const both = await writeText(workspaceUri('notes', 'both.md'), NOTES);
    const folder = workspaceUri('notes', 'runs');
    const files = (await vscode.commands.executeCommand('llmBench.importResults', both, undefined, folder)) as vscode.Uri[];
    assert.equal(files.length, 2);
    assert.ok(files.every((f) => f.path.startsWith(folder.path + '/')));

    const empty = await writeText(workspaceUri('notes', 'empty.md'), '# nothing measured here\n');
    const refused = await vscode.commands.executeCommand('llmBench.importResults', empty, undefined, workspaceUri('notes', 'none'));
    assert.equal(refused, undefined, 'the error is shown, nothing written');
    await assert.rejects(async () => vscode.workspace.fs.stat(workspaceUri('notes', 'none')));
  });
});
