/**
 * Whether the end of a 10,000-request run holds up the extension host (issue 10): the extension,
 * packaged as users install it, runs three such benchmarks in a real VS Code (code-server, the
 * vscode tier's launcher) while test/bench/run-end-probe.ts times stalls of the extension host's
 * own thread. Prints figures; asserts nothing.
 * Run: npm run bench:vscode (after the activation figures), or after `npm run build && npx tsc -p .`:
 *   node dist/bench/run-end.js [OTHER_CHECKOUT]   also measures another checkout, e.g. an older commit
 *                                                (packaged with the flags its own package.json needed).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { repoRoot } from '../vscode/harness/tools';
import { packageExtension } from '../vscode/harness/vsix';
import { createWorkspace } from '../vscode/harness/workspace';
import type { Round } from './run-end-probe';

/** Checkouts from before issue 9 had no repository or LICENSE and needed vsce's flags to package. */
function packagingFlags(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { repository?: unknown };
  return manifest.repository ? [] : ['--no-dependencies', '--allow-missing-repository', '--skip-license', '--no-rewrite-relative-links'];
}

async function measure(root: string): Promise<Round[]> {
  const vsix = packageExtension(root, packagingFlags(root));
  const scratch = mkdtempSync(join(tmpdir(), 'llmbench-run-end-'));
  const workspace = createWorkspace();
  const results = join(scratch, 'rounds.json');
  try {
    await runTests({
      vscodeExecutablePath: join(repoRoot, 'out', 'test', 'vscode', 'harness', 'launcher.js'),
      extensionDevelopmentPath: root,
      extensionTestsPath: join(__dirname, 'run-end-probe.js'),
      launchArgs: [workspace, `--user-data-dir=${join(scratch, 'user-data')}`, `--extensions-dir=${join(scratch, 'extensions')}`],
      extensionTestsEnv: { LLMBENCH_VSIX: vsix, LLMBENCH_RUN_END_RESULTS: results },
    });
    if (!existsSync(results)) throw new Error('the probe wrote no figures');
    return JSON.parse(readFileSync(results, 'utf8')) as Round[];
  } finally {
    for (const dir of [scratch, workspace, dirname(vsix)]) rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const targets: Array<[string, string]> = [['this checkout', repoRoot]];
  if (process.argv[2]) targets.unshift([process.argv[2], process.argv[2]]);
  console.log(`The end of a 10,000-request run in the extension host (load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  for (const [name, root] of targets) {
    const rounds = await measure(root);
    console.log(`\n${name}:`);
    console.log('| round | status | run (s) | longest stall, last second before the answer (ms) | longest stall, whole run (ms) |');
    console.log('| --- | --- | --- | --- | --- |');
    rounds.forEach((r, i) => console.log(`| ${i + 1} | ${r.status} | ${(r.runMs / 1000).toFixed(1)} | ${r.endStallMs.toFixed(1)} | ${r.runStallMs.toFixed(1)} |`));
  }
  console.log(`\nload average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
