// The harness's own smoke suite: the packaged extension is what runs, it activates, and every command
// its manifest contributes is registered once it has.
import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import * as z from 'zod';

const extensionId = 'llm-bench.llm-bench';
const contributedCommands = z.object({ contributes: z.object({ commands: z.array(z.object({ command: z.string() })) }) });

suite('harness', () => {
  test('the extension under test is the installed VSIX, not the source tree', () => {
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension, `${extensionId} is not installed`);
    const root = process.env.LLMBENCH_ROOT;
    assert.ok(root, 'LLMBENCH_ROOT reaches the extension host');
    assert.notEqual(extension.extensionPath, root);
    assert.match(extension.extensionPath, new RegExp(`${extensionId.replace('.', '\\.')}-[\\d.]+$`));
    assert.equal(vscode.workspace.workspaceFolders?.length, 1);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
    assert.ok(folder.includes('llmbench-workspace-'), `the tier's own workspace is open (${folder})`);
  });

  test('it activates and registers every command it contributes', async () => {
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension);
    await extension.activate();
    assert.equal(extension.isActive, true);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributedCommands
      .parse(extension.packageJSON)
      .contributes.commands.map((c) => c.command)
      .filter((command) => !registered.has(command));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });
});
