// The per-test results the mocha entry (test/vscode/suite/index.ts) writes inside VS Code's extension
// host and test/vscode/run.ts reads back to print and count.
import * as z from 'zod';

export const resultsFileVariable = 'LLMBENCH_VSCODE_RESULTS';

export const testResultSchema = z.object({
  title: z.string(),
  state: z.enum(['passed', 'failed', 'skipped']),
  durationMs: z.number().optional(),
  error: z.string().optional(),
});
export type TestResult = z.infer<typeof testResultSchema>;

export const testResultsSchema = z.array(testResultSchema);
