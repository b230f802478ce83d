// What test/vscode/run.ts, the launcher (./launcher.ts) and the mocha entry inside VS Code's extension
// host (test/vscode/suite/index.ts) pass each other through the environment: the Workspace Trust to
// start VS Code with, the suite files to run, and the per-test results to print and count.
import * as z from 'zod';

/** A WorkspaceTrust for the launcher (runTests always passes --disable-workspace-trust, so that flag cannot say it). */
export const workspaceTrustVariable = 'LLMBENCH_WORKSPACE_TRUST';

/** `disabled`: no Workspace Trust, every folder trusted. `restricted`: Workspace Trust on and the folder not trusted. */
export const workspaceTrustSchema = z.enum(['disabled', 'restricted']);
export type WorkspaceTrust = z.infer<typeof workspaceTrustSchema>;

/** Comma-separated file names of out/test/vscode/suite/ to run in this VS Code. */
export const suiteFilesVariable = 'LLMBENCH_VSCODE_SUITES';

export const resultsFileVariable = 'LLMBENCH_VSCODE_RESULTS';

export const testResultSchema = z.object({
  title: z.string(),
  state: z.enum(['passed', 'failed', 'skipped']),
  durationMs: z.number().optional(),
  error: z.string().optional(),
});
export type TestResult = z.infer<typeof testResultSchema>;

export const testResultsSchema = z.array(testResultSchema);
