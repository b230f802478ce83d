/**
 * `node dist/bench/sim.js [--requests N]`: the simulator's timing accuracy under load. The
 * simulator runs in a worker thread; the engine's runner drives 256 concurrent streams from the
 * main thread of the same process (both share this machine's cores). Prints, per scenario, how
 * late tokens were written against their model time (the goal: p99 <= 1 ms at 256 streams), the
 * throughput, and the CPU the process used. Figures go to docs/performance.md ("## Simulator").
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runBenchmark } from '../../src/engine';
import { RunConfigSchema } from '../../src/format/config';
import { startSimServer, tokenLateness, type StartSimOptions } from '../../src/sim';

const args = process.argv.slice(2);
const requests = Number(args[args.indexOf('--requests') + 1] ?? NaN) || 384;
const CONCURRENCY = 256;
const workerScript = join(__dirname, '..', 'sim-worker.js');

const scenarios: { name: string; options: StartSimOptions; inputTokens: number; outputTokens: number }[] = [
  {
    name: 'qwen2-7b-a100-vllm, real time (~2,000 tok/s; ~45 ms steps at 256 sequences, tokens 0.04 ms apart)',
    options: { preset: 'qwen2-7b-a100-vllm' },
    inputTokens: 512,
    outputTokens: 128,
  },
  {
    name: 'the same with every token of a step due at the step end (--output-per-seq-ms 0)',
    options: { preset: 'qwen2-7b-a100-vllm', hardware: { outputPerSeqMs: 0 } },
    inputTokens: 512,
    outputTokens: 128,
  },
  {
    name: 'stress: tiny with max-num-seqs 256 (~6 ms steps, ~40,000 tok/s asked)',
    options: { preset: 'tiny', engine: { maxNumSeqs: 256, maxNumBatchedTokens: 8192 } },
    inputTokens: 64,
    outputTokens: 128,
  },
];

const fmt = (ms: number | null | undefined): string => (ms == null ? '-' : ms.toFixed(3));

async function main(): Promise<void> {
  console.log(`Simulator timing: ${CONCURRENCY} concurrent streams, ${requests} requests per scenario (node ${process.version})\n`);
  for (const scenario of scenarios) {
    const sim = await startSimServer({ ...scenario.options, inWorker: true, workerScript });
    try {
      const cpuBefore = process.cpuUsage();
      const wallBefore = performance.now();
      const doc = await runBenchmark(
        RunConfigSchema.parse({
          endpoint: { baseUrl: sim.baseUrl, model: sim.model, api: 'chat' },
          request: { stream: true, extraBody: { ignore_eos: true } },
          workload: { kind: 'synthetic', inputTokens: scenario.inputTokens, outputTokens: scenario.outputTokens },
          profile: { kind: 'concurrency', levels: [CONCURRENCY] },
          limits: { requests },
        }),
        {},
      );
      const wallSec = (performance.now() - wallBefore) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const summary = doc.steps[0]?.summary;
      const traces = await sim.trace();
      const lateness = tokenLateness(traces);
      const tokens = traces.reduce((sum, t) => sum + t.writeMs.length, 0);
      console.log(scenario.name);
      console.log(`  requests ${summary?.requests.completed}/${summary?.requests.total} completed, ${tokens} tokens written in ${wallSec.toFixed(1)} s`);
      console.log(
        `  output ${summary?.outputTokensPerSecond?.toFixed(0)} tok/s, TTFT p50 ${fmt(summary?.ttftMs?.p50)} ms, ITL mean ${fmt(summary?.itlMs?.mean)} ms`,
      );
      console.log(
        `  token write lateness (write time - model time): p50 ${fmt(lateness?.p50)} ms, p90 ${fmt(lateness?.p90)} ms, ` +
          `p99 ${fmt(lateness?.p99)} ms, max ${fmt(lateness?.max)} ms (n=${lateness?.count})`,
      );
      console.log(`  process CPU (both threads): ${(((cpu.user + cpu.system) / 1e6 / wallSec) * 100).toFixed(0)}% of one core\n`);
    } finally {
      await sim.close();
    }
  }
}

void main();
