// The vscode tier (scripts/test.mjs runs out/test/vscode/run.js): mocha suites inside a real VS Code.
// Packages the extension as a VSIX, then for each pass opens a fresh workspace folder and runs its
// suites through @vscode/test-electron's runTests, whose `vscodeExecutablePath` is our launcher
// (code-server + headless Chromium, see harness/launcher.ts). Two passes, each its own VS Code:
//   trusted     every suite/*.test.js but the restricted ones, Workspace Trust off;
//   restricted  suite/*.restricted.test.js, Workspace Trust on and the folder not trusted (Restricted Mode).
// Arguments: FILTER... keeps the suite files whose name contains one of them. Prints each test, then
// `N passed, N failed` last.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runTests, TestRunFailedError } from '@vscode/test-electron';
import {
  resultsFileVariable,
  suiteFilesVariable,
  testResultsSchema,
  workspaceTrustVariable,
  type TestResult,
  type WorkspaceTrust,
} from './harness/environment';
import { findCodeServer, repoRoot } from './harness/tools';
import { packageExtension } from './harness/vsix';
import { createWorkspace, type WorkspaceOptions } from './harness/workspace';

const restrictedSuffix = '.restricted.test.js';

interface Pass {
  name: string;
  workspaceTrust: WorkspaceTrust;
  suiteFiles: string[];
  workspace?: WorkspaceOptions;
}

function planPasses(filters: string[]): Pass[] {
  const suiteDir = join(__dirname, 'suite');
  const files = readdirSync(suiteDir)
    .filter((name) => name.endsWith('.test.js') && (filters.length === 0 || filters.some((f) => name.includes(f))))
    .sort();
  const passes: Pass[] = [
    { name: 'trusted', workspaceTrust: 'disabled', suiteFiles: files.filter((f) => !f.endsWith(restrictedSuffix)) },
    {
      name: 'restricted',
      workspaceTrust: 'restricted',
      suiteFiles: files.filter((f) => f.endsWith(restrictedSuffix)),
      // Settings a workspace may not set while untrusted (package.json restrictedConfigurations): ignored in Restricted Mode.
      workspace: {
        settings: {
          'llmBench.endpoints': [{ name: 'Set by the untrusted workspace', baseUrl: 'http://127.0.0.1:9/v1' }],
          'llmBench.resultsDirectory': 'chosen-by-the-workspace',
        },
      },
    },
  ];
  return passes.filter((pass) => pass.suiteFiles.length > 0);
}

async function runPass(pass: Pass, vsix: string): Promise<{ results: TestResult[]; exitCode: number }> {
  const scratch = mkdtempSync(join(tmpdir(), 'llmbench-vscode-tier-'));
  const workspace = createWorkspace(pass.workspace);
  const resultsFile = join(scratch, 'results.json');
  const launcher = join(__dirname, 'harness', 'launcher.js');
  chmodSync(launcher, 0o755);
  let exitCode: number;
  try {
    exitCode = await runTests({
      vscodeExecutablePath: launcher,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: join(__dirname, 'suite', 'index.js'),
      launchArgs: [workspace, `--user-data-dir=${join(scratch, 'user-data')}`, `--extensions-dir=${join(scratch, 'extensions')}`],
      extensionTestsEnv: {
        LLMBENCH_VSIX: vsix,
        LLMBENCH_ROOT: repoRoot,
        [resultsFileVariable]: resultsFile,
        [suiteFilesVariable]: pass.suiteFiles.join(','),
        [workspaceTrustVariable]: pass.workspaceTrust,
      },
    });
  } catch (error) {
    // runTests rejects on a non-zero exit; the results file (if any) still says which tests failed.
    exitCode = error instanceof TestRunFailedError && error.code !== undefined ? error.code : 1;
  }
  try {
    const results = existsSync(resultsFile) ? testResultsSchema.parse(JSON.parse(readFileSync(resultsFile, 'utf8'))) : [];
    if (exitCode !== 0 && !results.some((r) => r.state === 'failed')) {
      results.push({ title: `${pass.name} pass: VS Code ended with exit code ${exitCode} after ${results.length} test(s) and no failed one`, state: 'failed' });
    }
    return { results, exitCode };
  } finally {
    for (const dir of [scratch, workspace]) rmSync(dir, { recursive: true, force: true });
  }
}

async function runSuites(filters: string[]): Promise<TestResult[]> {
  findCodeServer();
  const passes = planPasses(filters);
  if (passes.length === 0) throw new Error(`no suite file in ${join(__dirname, 'suite')} matches ${filters.join(' ')}`);
  const started = Date.now();
  const vsix = packageExtension();
  console.log(`packaged the extension in ${((Date.now() - started) / 1000).toFixed(1)} s: ${vsix}`);
  const results: TestResult[] = [];
  try {
    for (const pass of passes) {
      console.log(`\n--- ${pass.name} pass (Workspace Trust ${pass.workspaceTrust}): ${pass.suiteFiles.join(', ')}`);
      const outcome = await runPass(pass, vsix);
      results.push(...outcome.results);
      if (outcome.results.length === 0) results.push({ title: `${pass.name} pass: no test reported a result`, state: 'failed' });
    }
  } finally {
    rmSync(dirname(vsix), { recursive: true, force: true });
  }
  return results;
}

async function main(): Promise<number> {
  let results: TestResult[];
  try {
    results = await runSuites(process.argv.slice(2));
  } catch (error) {
    console.log(`The vscode tier could not run: ${error instanceof Error ? error.message : String(error)}`);
    console.log('0 passed, 1 failed');
    return 1;
  }
  console.log('\nvscode tier results:');
  for (const result of results) {
    const mark = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip' }[result.state];
    console.log(`  ${mark} ${result.title}${result.durationMs === undefined ? '' : ` (${result.durationMs} ms)`}`);
    if (result.error) console.log(result.error.replace(/^/gm, '         '));
  }
  const count = (state: TestResult['state']): number => results.filter((r) => r.state === state).length;
  const failed = count('failed');
  const skipped = count('skipped');
  console.log(`${count('passed')} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  return failed > 0 ? 1 : 0;
}

void main().then((code) => process.exit(code));
