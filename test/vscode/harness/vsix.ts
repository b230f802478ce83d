// Packages the extension the way a publisher does: `vsce package` with no flag but where to write
// it (its vscode:prepublish script builds the production bundles), so every tier installs exactly
// what a user would.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from './tools';

export interface PackagedExtension {
  vsix: string;
  /** What vsce printed: the tests check it holds no warning. */
  output: string;
}

/** Packs the extension at `root` into a fresh .vsix (`extraArgs` only for older checkouts a benchmark compares with). */
export function packageExtensionWithOutput(root = repoRoot, extraArgs: string[] = []): PackagedExtension {
  const vsix = join(mkdtempSync(join(tmpdir(), 'llmbench-vsix-')), 'llm-bench.vsix');
  const args = [join('node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--out', vsix, ...extraArgs];
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  if (result.status !== 0) {
    rmSync(dirname(vsix), { recursive: true, force: true });
    throw new Error(`packaging the extension failed at \`node ${args.join(' ')}\` (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  }
  return { vsix, output: `${result.stdout}${result.stderr}` };
}

/** Packs the extension at `root` into a fresh .vsix; returns its path. */
export function packageExtension(root = repoRoot, extraArgs: string[] = []): string {
  return packageExtensionWithOutput(root, extraArgs).vsix;
}
