// Run config files as first-class JSON inside a real VS Code: a `*.llmbench-config.json` file is
// validated by the contributed JSON Schema (a wrong field shows as a diagnostic), may name its
// schema with `$schema`, and runs from "Run LLM Benchmark from This Config".
import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { parseResultDocument } from '../../../src/format/result';
import { startSimServer } from '../../../src/sim/index';
import { readText, waitFor, workspaceUri, writeText } from './results-helpers';

interface RunOutcome {
  status: string;
  reason: string | null;
  resultUri: string | null;
}

const SCHEMA_REFERENCE = './node_modules/llm-bench/media/llmbench-config.schema.json';

suite('config files', () => {
  test('a wrong field in a *.llmbench-config.json file is reported by VS Code from the contributed schema', async () => {
    const file = await writeText(
      workspaceUri('configs', 'wrong.llmbench-config.json'),
      JSON.stringify({ profile: { kind: 'concurrency', levels: ['eight'] }, limits: { requests: 4 }, requestz: 1 }, null, 2),
    );
    await vscode.window.showTextDocument(file);
    const diagnostics = await waitFor(
      'the JSON language service to report the schema violations',
      () => {
        const found = vscode.languages.getDiagnostics(file);
        return found.length >= 2 ? found : undefined;
      },
      60_000,
    );
    const messages = diagnostics.map((d) => d.message).join(' | ');
    assert.match(messages, /requestz/, `the unknown field is reported: ${messages}`);
    assert.match(messages, /integer|number/i, `the wrong level type is reported: ${messages}`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('a config file naming its $schema runs from "Run LLM Benchmark from This Config"', async () => {
    const sim = await startSimServer({ preset: 'tiny' });
    try {
      const file = await writeText(
        workspaceUri('configs', 'good.llmbench-config.json'),
        JSON.stringify({
          $schema: SCHEMA_REFERENCE,
          endpoint: { baseUrl: sim.baseUrl, model: sim.model },
          workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 8 },
          profile: { kind: 'synchronous' },
          limits: { requests: 3 },
        }),
      );
      const outcome = await vscode.commands.executeCommand<RunOutcome>('llmBench.runConfigFile', file);
      assert.ok(outcome, 'the command returns the outcome');
      assert.equal(outcome.status, 'complete', outcome.reason ?? '');
      assert.ok(outcome.resultUri);
      const parsed = parseResultDocument(await readText(vscode.Uri.parse(outcome.resultUri)));
      assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
      assert.equal(parsed.value.steps[0]!.requests.filter((r) => r.error === null).length, 3);
      assert.ok(!('$schema' in parsed.value.config), 'the $schema key names the file\'s schema, not part of the run');
    } finally {
      await sim.close();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
