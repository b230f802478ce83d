// Restricted Mode inside a real VS Code (the tier's restricted pass: Workspace Trust on, the folder not
// trusted). Running a benchmark refuses at once with a notification that says why and offers what to
// do, and no request reaches the endpoint; Tune Server Flags refuses the same way and launches nothing;
// the workspace's endpoint settings are ignored; result files still open in the result editor and compare.
import assert from 'node:assert/strict';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import { concurrencySweep } from '../../helpers/result-documents';
import { startChatEndpoint, type ScriptedServer } from '../../helpers/sse-server';
import { readNotifications, type Notification } from '../harness/workbench-probe';
import {
  assertChartExports,
  comparePanelTab,
  readText,
  resultTab,
  twoRuns,
  waitFor,
  workspaceUri,
  writeText,
} from './results-helpers';

const MODEL = 'restricted-test-model';
const REFUSAL = /running a benchmark needs a trusted workspace, because it sends requests to servers and writes result files/;

/** Settles with the command's answer, or fails if it is still waiting after `ms` (e.g. for a notification to close). */
async function answerWithin<T>(ms: number, what: string, pending: Thenable<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve(pending), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function resultFilesInWorkspace(): Promise<string[]> {
  return (await vscode.workspace.findFiles('**/*.llmbench.json')).map((uri) => uri.path).sort();
}

suite('restricted mode', () => {
  let server: ScriptedServer;

  suiteSetup(async () => {
    server = await startChatEndpoint([MODEL], { pieces: ['a ', 'b '], usage: { prompt_tokens: 8, completion_tokens: 2 } });
    await vscode.extensions.getExtension('llm-bench.llm-bench')?.activate();
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await server?.close();
  });

  test('the workspace is untrusted and its endpoint and results folder settings are ignored', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const written = JSON.parse(await readText(workspaceUri('.vscode', 'settings.json'))) as Record<string, unknown>;
    assert.ok(Array.isArray(written['llmBench.endpoints']) && written['llmBench.endpoints'].length === 1, 'the workspace does set an endpoint');
    const settings = vscode.workspace.getConfiguration('llmBench');
    assert.deepEqual(settings.get('endpoints'), []);
    assert.equal(settings.get('resultsDirectory'), 'benchmarks');
  });

  test('Run LLM Benchmark refuses at once, says why and what to do, and sends nothing', async () => {
    const before = await resultFilesInWorkspace();
    const config = {
      endpoint: { baseUrl: server.baseUrl, model: MODEL },
      workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 2 },
      profile: { kind: 'synchronous' },
      limits: { requests: 2 },
    };
    const configFile = await writeText(workspaceUri('restricted-run.json'), JSON.stringify(config));

    const fromArgument = await answerWithin(10_000, 'llmBench.run', vscode.commands.executeCommand('llmBench.run', { config, openResult: false }));
    assert.equal(fromArgument, undefined);
    const fromConfigFile = await answerWithin(10_000, 'llmBench.runConfigFile', vscode.commands.executeCommand('llmBench.runConfigFile', configFile));
    assert.equal(fromConfigFile, undefined);

    let showing: Notification[] = [];
    const shown = await waitFor('the refusal notification', async () => {
      await vscode.commands.executeCommand('notifications.showList');
      showing = await readNotifications();
      return showing.find((n) => REFUSAL.test(n.message));
    }).catch((error: Error) => {
      throw new Error(`${error.message}; the workbench shows ${JSON.stringify(showing)}`);
    });
    assert.match(shown.message, /Result files can still be viewed in Restricted Mode/);
    assert.deepEqual(shown.actions, ['Manage Workspace Trust']);

    assert.deepEqual(server.requests, [], 'no request reached the endpoint (not even /v1/models)');
    assert.deepEqual(await resultFilesInWorkspace(), before, 'no result file was written');
  });

  test('Tune Server Flags refuses at once, says why and what to do, and launches nothing', async () => {
    const config = await writeText(workspaceUri('restricted.llmtune-config.json'), JSON.stringify({ server: { command: ['llmbench', 'sim', '--port', '{port}'] } }));
    const outcome = await answerWithin(10_000, 'llmBench.tune', vscode.commands.executeCommand('llmBench.tune', { config }));
    assert.equal(outcome, undefined);
    let showing: Notification[] = [];
    const shown = await waitFor('the tune refusal notification', async () => {
      await vscode.commands.executeCommand('notifications.showList');
      showing = await readNotifications();
      return showing.find((n) => /tuning server flags needs a trusted workspace, because it launches servers/.test(n.message));
    }).catch((error: Error) => {
      throw new Error(`${error.message}; the workbench shows ${JSON.stringify(showing)}`);
    });
    assert.deepEqual(shown.actions, ['Manage Workspace Trust']);
    assert.deepEqual((await vscode.workspace.findFiles('**/*.llmtune.json')).length, 0, 'no tune file was written');
  });

  test('a result file opens in the result editor and draws its charts', async () => {
    const file = await writeText(workspaceUri('benchmarks', 'restricted.llmbench.json'), JSON.stringify(concurrencySweep(10)));
    await vscode.commands.executeCommand('vscode.open', file);
    await waitFor('the result editor tab', () => resultTab(file));
    await assertChartExports(file, 'ttft', workspaceUri('benchmarks', 'restricted-ttft.png'));
  });

  test('two results compare in one compare panel', async () => {
    const [a, b] = await twoRuns('restricted');
    await vscode.commands.executeCommand('llmBench.compareSelected', a, [a, b]);
    const panel = await waitFor('the compare panel', comparePanelTab);
    assert.match(panel.label, /restricted-a\.llmbench\.json \u2194 restricted-b\.llmbench\.json/);
  });
});
