// Result files made by the real engine against the simulator, written into a scenario's workspace
// before the views open them: what the report and server-metrics scenarios picture.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBenchmark } from '../../../src/load/runner';
import { RunConfigSchema } from '../../../src/format/config';
import { parseResultDocument, type ResultDocument } from '../../../src/format/result';
import { startSimServer, type SimOptionsInput } from '../../../src/sim';
import { repoRoot } from '../../vscode/harness/tools';

export interface SimRun {
  /** The file name, without `.llmbench.json`. */
  name: string;
  labels: Record<string, string>;
  /** Synthetic tokens in and out of each request. */
  inputTokens: number;
  outputTokens: number;
  levels: number[];
  requests: number;
  seed: number;
  /** How often the server's /metrics is scraped (default 1 s). */
  serverMetricsIntervalMs?: number;
  /** Runs the whole sweep this many times into the file (`--repeat`). */
  repeat?: number;
}

/**
 * Runs each of `runs` as a concurrency sweep on a simulator started with `sim` (in a thread of its
 * own, so that the browser's work here does not delay its steps) and writes the result files into
 * `folder`; answers the documents after checking that each parses and completed.
 */
export async function writeSimRuns(folder: string, sim: SimOptionsInput, runs: SimRun[]): Promise<ResultDocument[]> {
  mkdirSync(folder, { recursive: true });
  const server = await startSimServer({ ...sim, inWorker: true, workerScript: join(repoRoot, 'dist', 'sim-worker.js') });
  try {
    const documents: ResultDocument[] = [];
    for (const run of runs) {
      const file = join(folder, `${run.name}.llmbench.json`);
      const config = RunConfigSchema.parse({
        endpoint: { baseUrl: server.baseUrl, model: server.model },
        workload: { kind: 'synthetic', inputTokens: run.inputTokens, outputTokens: run.outputTokens },
        profile: { kind: 'concurrency', levels: run.levels },
        limits: { requests: run.requests },
        labels: run.labels,
        seed: run.seed,
        ...(run.serverMetricsIntervalMs ? { serverMetrics: { intervalMs: run.serverMetricsIntervalMs } } : {}),
        ...(run.repeat ? { repeat: { count: run.repeat } } : {}),
      });
      await runBenchmark(config, { resultPath: file });
      const parsed = parseResultDocument(readFileSync(file, 'utf8'));
      if (!parsed.ok) throw new Error(`${run.name} is not a valid result document: ${parsed.error}`);
      if (parsed.value.status !== 'complete') throw new Error(`${run.name} ended ${parsed.value.status}: ${parsed.value.statusReason}`);
      documents.push(parsed.value);
    }
    return documents;
  } finally {
    await server.close();
  }
}
