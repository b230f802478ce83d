// Helpers of the result and compare suites: workspace files, waiting, finding our editor tabs.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { concurrencySweep } from '../../helpers/result-documents';

export const RESULT_VIEW_TYPE = 'llmBench.result';

export function workspaceUri(...path: string[]): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the vscode tier opens a workspace folder');
  return vscode.Uri.joinPath(folder.uri, ...path);
}

export async function writeText(uri: vscode.Uri, text: string): Promise<vscode.Uri> {
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  return uri;
}

export async function readText(uri: vscode.Uri): Promise<string> {
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}

export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const allTabs = (): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs);

export function resultTab(uri: vscode.Uri): vscode.Tab | undefined {
  return allTabs().find(
    (t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === RESULT_VIEW_TYPE && t.input.uri.toString() === uri.toString(),
  );
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Exports a chart of the open result view to a file and checks it is a real, non-trivial PNG. */
export async function assertChartExports(file: vscode.Uri, chartId: string, target: vscode.Uri): Promise<void> {
  const saved = await vscode.commands.executeCommand<vscode.Uri>('llmBench.exportResultChart', file, chartId, target);
  assert.equal(saved?.toString(), target.toString());
  const bytes = await vscode.workspace.fs.readFile(target);
  assert.deepEqual([...bytes.subarray(0, 8)], PNG_SIGNATURE);
  assert.ok(bytes.length > 2_000, `a drawn chart, not an empty canvas (${bytes.length} bytes)`);
}

export const COMPARE_SCHEME = 'llmbench-compare';

/** The result editor tab showing `file` aligned with `partner` (a compare URI of our scheme). */
export function compareSideTab(file: vscode.Uri, partner: vscode.Uri): vscode.Tab | undefined {
  return allTabs().find((t) => {
    if (!(t.input instanceof vscode.TabInputCustom) || t.input.viewType !== RESULT_VIEW_TYPE) return false;
    const query = new URLSearchParams(t.input.uri.query);
    return t.input.uri.scheme === COMPARE_SCHEME && query.get('of') === file.toString() && query.get('with') === partner.toString();
  });
}

export const comparePanelTab = (): vscode.Tab | undefined =>
  allTabs().find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('llmBench.compare'));

/** Two result files in benchmarks/, `<prefix>-a` and a slower `<prefix>-b`. */
export async function twoRuns(prefix: string): Promise<[vscode.Uri, vscode.Uri]> {
  const a = await writeText(workspaceUri('benchmarks', `${prefix}-a.llmbench.json`), JSON.stringify(concurrencySweep(20, 1)));
  const b = await writeText(workspaceUri('benchmarks', `${prefix}-b.llmbench.json`), JSON.stringify(concurrencySweep(20, 2)));
  return [a, b];
}
