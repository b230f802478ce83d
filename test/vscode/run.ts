// The vscode tier (scripts/test.mjs runs out/test/vscode/run.js): mocha suites inside a real VS Code.
// Packages the extension as a VSIX, opens a fresh workspace folder and runs test/vscode/suite/index.ts
// through @vscode/test-electron's runTests, whose `vscodeExecutablePath` is our launcher (code-server +
// headless Chromium, see harness/launcher.ts). Prints each test, then `N passed, N failed` last.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runTests, TestRunFailedError } from '@vscode/test-electron';
import { resultsFileVariable, testResultsSchema, type TestResult } from './harness/results';
import { findCodeServer, repoRoot } from './harness/tools';
import { packageExtension } from './harness/vsix';
import { createWorkspace } from './harness/workspace';

async function runSuites(): Promise<{ results: TestResult[]; exitCode: number }> {
  findCodeServer();
  const started = Date.now();
  const vsix = packageExtension();
  console.log(`packaged the extension in ${((Date.now() - started) / 1000).toFixed(1)} s: ${vsix}`);
  const scratch = mkdtempSync(join(tmpdir(), 'llmbench-vscode-tier-'));
  const workspace = createWorkspace();
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
      extensionTestsEnv: { LLMBENCH_VSIX: vsix, LLMBENCH_ROOT: repoRoot, [resultsFileVariable]: resultsFile },
    });
  } catch (error) {
    // runTests rejects on a non-zero exit; the results file (if any) still says which tests failed.
    exitCode = error instanceof TestRunFailedError && error.code !== undefined ? error.code : 1;
  }
  try {
    const results = existsSync(resultsFile) ? testResultsSchema.parse(JSON.parse(readFileSync(resultsFile, 'utf8'))) : [];
    return { results, exitCode };
  } finally {
    for (const dir of [scratch, workspace, dirname(vsix)]) rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  let outcome: { results: TestResult[]; exitCode: number };
  try {
    outcome = await runSuites();
  } catch (error) {
    console.log(`The vscode tier could not run: ${error instanceof Error ? error.message : String(error)}`);
    console.log('0 passed, 1 failed');
    return 1;
  }
  console.log('\nvscode tier results:');
  for (const result of outcome.results) {
    const mark = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip' }[result.state];
    console.log(`  ${mark} ${result.title}${result.durationMs === undefined ? '' : ` (${result.durationMs} ms)`}`);
    if (result.error) console.log(result.error.replace(/^/gm, '         '));
  }
  const count = (state: TestResult['state']): number => outcome.results.filter((r) => r.state === state).length;
  let failed = count('failed');
  if (failed === 0 && (outcome.exitCode !== 0 || outcome.results.length === 0)) {
    console.log(`VS Code ended with exit code ${outcome.exitCode} after ${outcome.results.length} test(s) and no failed one: counted as 1 failed.`);
    failed = 1;
  }
  const skipped = count('skipped');
  console.log(`${count('passed')} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  return failed > 0 ? 1 : 0;
}

void main().then((code) => process.exit(code));
