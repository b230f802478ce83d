/**
 * Runs one benchmark in its own process, for tests that kill it mid-run:
 *   node runner-child.js '<run config JSON>' <result path>
 * Prints `done <status>` when the run ends by itself. LLMBENCH_EXECUTOR_SCRIPT names the executor
 * threads' bundle for a config with workers (dist/executor-worker.js).
 */
import { runBenchmark } from '../../src/load/runner';
import { RunConfigSchema } from '../../src/format/config';

const [configJson, resultPath] = process.argv.slice(2);
if (configJson === undefined || resultPath === undefined) {
  console.error('usage: runner-child.js <config JSON> <result path>');
  process.exit(2);
}
const executorScript = process.env['LLMBENCH_EXECUTOR_SCRIPT'];
runBenchmark(RunConfigSchema.parse(JSON.parse(configJson)), { resultPath, ...(executorScript ? { executorScript } : {}) }).then(
  (doc) => console.log(`done ${doc.status}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
