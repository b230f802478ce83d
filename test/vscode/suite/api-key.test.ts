// API keys inside a real VS Code: a key set with "Set API Key" for an endpoint is sent as
// "Authorization: Bearer <key>" to that endpoint (a loopback server here), and never reaches the
// result file or the settings; after "Clear API Key" the next run sends no Authorization at all.
import assert from 'node:assert/strict';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import { parseResultDocument } from '../../../src/format/result';
import { startChatEndpoint, type ScriptedServer } from '../../helpers/sse-server';
import { readText } from './results-helpers';

interface RunOutcome {
  status: string;
  reason: string | null;
  resultUri: string | null;
}

const MODEL = 'key-test-model';
const KEY = 'sk-llmbench-test-3f9a1c7e5b';

suite('api keys', () => {
  let server: ScriptedServer;

  suiteSetup(async () => {
    server = await startChatEndpoint([MODEL], { pieces: ['a ', 'b ', 'c '], usage: { prompt_tokens: 8, completion_tokens: 3 } });
    await vscode.extensions.getExtension('llm-bench.llm-bench')?.activate();
  });

  // Leaves the workbench as it found it: the live panel of these runs would crowd the next suites' editors.
  suiteTeardown(async () => {
    await vscode.commands.executeCommand('llmBench.clearApiKey', { baseUrl: server.baseUrl });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await server.close();
  });

  /** Runs two requests against the loopback server; the outcome and the chat requests it received. */
  async function runAgainstServer(): Promise<{ outcome: RunOutcome; text: string; authorizations: (string | undefined)[] }> {
    const seenBefore = server.requests.length;
    const outcome = await vscode.commands.executeCommand<RunOutcome>('llmBench.run', {
      config: {
        endpoint: { baseUrl: server.baseUrl, model: MODEL },
        workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 3 },
        profile: { kind: 'synchronous' },
        limits: { requests: 2 },
      },
      openResult: false,
    });
    assert.ok(outcome, 'the command returns the outcome');
    assert.equal(outcome.status, 'complete', outcome.reason ?? '');
    assert.ok(outcome.resultUri);
    const text = await readText(vscode.Uri.parse(outcome.resultUri));
    const chats = server.requests.slice(seenBefore).filter((r) => r.method === 'POST');
    assert.equal(chats.length, 2, 'both requests reached the server');
    return { outcome, text, authorizations: chats.map((r) => r.headers.authorization) };
  }

  test('a key set for an endpoint is sent to it, and is in neither the result file nor the settings', async () => {
    await vscode.commands.executeCommand('llmBench.setApiKey', { baseUrl: server.baseUrl, key: KEY });
    const { text, authorizations } = await runAgainstServer();
    assert.deepEqual(authorizations, [`Bearer ${KEY}`, `Bearer ${KEY}`]);

    const parsed = parseResultDocument(text);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.equal(parsed.value.steps[0]?.summary?.requests.completed, 2);
    assert.ok(!text.includes(KEY), 'the result file does not hold the key');
    assert.ok(!text.includes('Bearer'), 'nor any Authorization value');

    const settings = JSON.stringify(vscode.workspace.getConfiguration('llmBench')) + JSON.stringify(vscode.workspace.getConfiguration());
    assert.ok(settings.length > 100, 'the settings were read');
    assert.ok(!settings.includes(KEY), 'the settings do not hold the key');
  });

  test('after clearing the key, the next run sends no Authorization header', async () => {
    await vscode.commands.executeCommand('llmBench.clearApiKey', { baseUrl: server.baseUrl });
    const { text, authorizations } = await runAgainstServer();
    assert.deepEqual(authorizations, [undefined, undefined]);
    assert.ok(!text.includes(KEY));
  });

  test('a malformed argument stores nothing', async () => {
    await vscode.commands.executeCommand('llmBench.setApiKey', { baseUrl: server.baseUrl, key: '   ' });
    await vscode.commands.executeCommand('llmBench.setApiKey', { baseUrl: server.baseUrl, key: KEY, extra: true });
    const { authorizations } = await runAgainstServer();
    assert.deepEqual(authorizations, [undefined, undefined]);
  });
});
