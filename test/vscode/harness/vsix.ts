// Packages the extension the way it ships: esbuild's bundles, then `vsce package` (offline).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from './tools';

/** Builds dist/ and packs the extension at `root` into a fresh .vsix; returns its path. */
export function packageExtension(root = repoRoot): string {
  const out = join(mkdtempSync(join(tmpdir(), 'llmbench-vsix-')), 'llm-bench.vsix');
  const steps: string[][] = [
    ['esbuild.mjs'],
    // The bundles hold the dependencies (--no-dependencies); no LICENSE or repository URL is needed to test.
    [join('node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--no-rewrite-relative-links', '--out', out],
  ];
  for (const args of steps) {
    const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
    if (result.status !== 0) {
      rmSync(dirname(out), { recursive: true, force: true });
      throw new Error(`packaging the extension failed at \`node ${args.join(' ')}\` (exit ${result.status}):\n${result.stdout}${result.stderr}`);
    }
  }
  return out;
}
