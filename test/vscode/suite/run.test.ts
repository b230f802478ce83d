// "Run LLM Benchmark" inside a real VS Code: a run given as a command argument against the
// built-in simulator writes a valid result into the workspace's benchmarks/, opens the live panel
// and then the result editor; a cancelled run keeps what it measured; a bad argument says why.
import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { parseResultDocument, RESULT_FILE_SUFFIX } from '../../../src/format/result';
import { readNotifications, type Notification } from '../harness/workbench-probe';
import { allTabs, readText, resultTab, waitFor, workspaceUri, writeText } from './results-helpers';

interface RunOutcome {
  status: string;
  reason: string | null;
  resultUri: string | null;
}

const workload = { kind: 'synthetic', inputTokens: 64, outputTokens: 16 };

const liveTab = () => allTabs().find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('llmBench.live'));

async function resultFiles(): Promise<string[]> {
  const entries = await vscode.workspace.fs.readDirectory(workspaceUri('benchmarks'));
  return entries.map(([name]) => name).filter((name) => name.endsWith(RESULT_FILE_SUFFIX));
}

suite('run', () => {
  test('a config argument runs against the simulator, saves a valid result and shows it live, then as a result', async () => {
    await vscode.extensions.getExtension('llm-bench.llm-bench')?.activate();
    const outcome = await vscode.commands.executeCommand<RunOutcome>('llmBench.run', {
      config: { workload, profile: { kind: 'concurrency', levels: [1, 4] }, limits: { requests: 8 }, labels: { hardware: 'test box' } },
      simulator: { preset: 'tiny' },
    });
    assert.ok(outcome, 'the command returns the outcome');
    assert.equal(outcome.status, 'complete', outcome.reason ?? '');
    assert.ok(outcome.resultUri);
    const file = vscode.Uri.parse(outcome.resultUri);
    const benchmarks = workspaceUri('benchmarks').path;
    assert.equal(file.path.slice(0, file.path.lastIndexOf('/')), benchmarks, 'saved into the workspace\'s benchmarks/');
    assert.match(file.path.slice(benchmarks.length + 1), /^\d{8}-\d{6}-sim-tiny-concurrency\.llmbench\.json$/);

    const parsed = parseResultDocument(await readText(file));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    const doc = parsed.value;
    assert.equal(doc.status, 'complete');
    assert.deepEqual(doc.steps.map((s) => s.name), ['concurrency@1', 'concurrency@4']);
    for (const step of doc.steps) {
      const failures = step.requests.filter((r) => r.error !== null).map((r) => r.error);
      assert.equal(step.summary?.requests.completed, 8, `${step.name}: failed requests ${JSON.stringify(failures)}`);
      assert.ok((step.summary?.ttftMs?.mean ?? 0) > 0, `${step.name} measured TTFT`);
    }
    assert.equal(doc.labels['simulator'], 'tiny', 'a simulated run says so');
    // One key per meaning: a `hardware` label is written as `gpu`, as the command line and the importers write it.
    assert.equal(doc.labels['gpu'], 'test box');
    assert.equal(doc.labels['hardware'], undefined);
    assert.ok(!JSON.stringify(doc).includes('Bearer'), 'no key material in the file');

    assert.ok(liveTab(), 'the live panel opened');
    await waitFor('the result editor', () => resultTab(file));
  });

  test('cancelling a run keeps every request it measured, as a partial result', async () => {
    const before = new Set(await resultFiles());
    const running = vscode.commands.executeCommand<RunOutcome>('llmBench.run', {
      config: { workload: { kind: 'synthetic', inputTokens: 64, outputTokens: 64 }, profile: { kind: 'synchronous' }, limits: { requests: 400 } },
      simulator: { preset: 'tiny' },
      openResult: false,
    });
    const file = await waitFor('the new result file with requests in it', async () => {
      const name = (await resultFiles()).find((n) => !before.has(n));
      if (!name) return undefined;
      const uri = workspaceUri('benchmarks', name);
      const doc = parseResultDocument(await readText(uri).catch(() => ''));
      return doc.ok && (doc.value.steps[0]?.requests.length ?? 0) >= 3 ? uri : undefined;
    });
    await vscode.commands.executeCommand('llmBench.cancel');
    const outcome = await running;
    assert.equal(outcome?.status, 'partial');
    assert.equal(outcome?.resultUri, file.toString());
    const parsed = parseResultDocument(await readText(file));
    assert.ok(parsed.ok);
    const step = parsed.value.steps[0];
    assert.equal(parsed.value.status, 'partial');
    assert.ok(step && step.requests.length >= 3 && step.requests.length < 400, `${step?.requests.length} requests kept`);
    assert.ok(step.summary && step.summary.requests.completed >= 3, 'the kept requests are summarized');
  });

  test('an invalid config argument starts nothing and writes nothing', async () => {
    const before = await resultFiles();
    const outcome = await vscode.commands.executeCommand<RunOutcome | undefined>('llmBench.run', {
      config: { profile: { kind: 'concurrency', levels: [0] }, limits: { requests: 1 } },
      simulator: { preset: 'tiny' },
    });
    assert.equal(outcome, undefined);
    assert.deepEqual(await resultFiles(), before);
  });

  test('a dataset the engine cannot use is shown as a config problem, not as a failed run with a result to open', async () => {
    const before = new Set(await resultFiles());
    const dataset = await writeText(workspaceUri('empty-prompts.jsonl'), '');
    const outcome = await vscode.commands.executeCommand<RunOutcome>('llmBench.run', {
      config: { workload: { kind: 'dataset', path: dataset.fsPath, format: 'jsonl' }, profile: { kind: 'synchronous' }, limits: { requests: 2 } },
      simulator: { preset: 'tiny' },
      openResult: false,
    });
    assert.equal(outcome?.status, 'failed');
    assert.match(outcome?.reason ?? '', /empty-prompts\.jsonl has no usable prompts/);
    let showing: Notification[] = [];
    const shown = await waitFor('the config problem notification', async () => {
      await vscode.commands.executeCommand('notifications.showList');
      showing = await readNotifications();
      return showing.find((n) => n.message.includes('empty-prompts.jsonl has no usable prompts'));
    }).catch((error: Error) => {
      throw new Error(`${error.message}; the workbench shows ${JSON.stringify(showing)}`);
    });
    assert.match(shown.message, /^LLM Bench: Dataset file /, 'worded as the input to fix');
    assert.ok(!shown.actions.includes('Open Result'), `no result to open: ${JSON.stringify(shown.actions)}`);
    assert.ok(!/the run failed/.test(shown.message));
    await vscode.commands.executeCommand('notifications.clearAll');
    assert.deepEqual((await resultFiles()).filter((name) => !before.has(name)), [], 'no result file for a run that never started');
  });
});
