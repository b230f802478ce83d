// The extensionTestsPath of the vscode tier: VS Code's extension host loads this module and awaits
// run(). It runs the suite files test/vscode/run.ts names in $LLMBENCH_VSCODE_SUITES with mocha's
// `tdd` interface (suite/test/setup/teardown, imported from 'mocha'), prints mocha's spec report and
// writes each test's result to $LLMBENCH_VSCODE_RESULTS for test/vscode/run.ts. How to write a suite:
// test/vscode/harness/README.md.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';
import { resultsFileVariable, suiteFilesVariable, type TestResult } from '../harness/environment';

export async function run(): Promise<void> {
  const resultsFile = process.env[resultsFileVariable];
  const suiteFiles = process.env[suiteFilesVariable]?.split(',').filter(Boolean) ?? [];
  if (!resultsFile || suiteFiles.length === 0) {
    throw new Error(`${resultsFileVariable} and ${suiteFilesVariable} are not set: start the suites with test/vscode/run.ts`);
  }
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 60_000 });
  for (const file of suiteFiles) mocha.addFile(join(__dirname, file));

  const results: TestResult[] = [];
  const failures = await new Promise<number>((resolve) => {
    mocha
      .run(resolve)
      .on('pass', (test) => results.push({ title: test.fullTitle(), state: 'passed', durationMs: test.duration ?? 0 }))
      .on('pending', (test) => results.push({ title: test.fullTitle(), state: 'skipped' }))
      .on('fail', (test, error: Error) =>
        results.push({ title: test.fullTitle(), state: 'failed', error: error.stack ?? String(error) }),
      );
  });
  writeFileSync(resultsFile, JSON.stringify(results, null, 2));
  if (failures > 0) throw new Error(`${failures} test(s) failed`);
}
