// A throwaway workspace folder for a test run: .vscode/settings.json, an empty benchmarks/ (the
// default llmBench.resultsDirectory) and any files a test asks for.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface WorkspaceOptions {
  /** Workspace settings written to .vscode/settings.json. */
  settings?: Record<string, unknown>;
  /** Extra files, by path relative to the folder. */
  files?: Record<string, string>;
}

export function createWorkspace(options: WorkspaceOptions = {}): string {
  const folder = mkdtempSync(join(tmpdir(), 'llmbench-workspace-'));
  mkdirSync(join(folder, 'benchmarks'));
  const files = { '.vscode/settings.json': JSON.stringify(options.settings ?? {}, null, 2), ...options.files };
  for (const [relative, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, relative)), { recursive: true });
    writeFileSync(join(folder, relative), text);
  }
  return folder;
}
