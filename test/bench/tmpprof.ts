import { performance } from 'node:perf_hooks';
import { RunConfigSchema } from '../../src/format/config';
import { runBenchmark } from '../../src/load/runner';
import { serveIfAsked, spawnServer } from './lib/server-process';
async function main() {
  if (serveIfAsked()) return;
  const server = await spawnServer({ defaultTokens: 64, traceWrites: false });
  const config = RunConfigSchema.parse({ endpoint: { baseUrl: server.baseUrl, model: 'm' }, workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 64 }, profile: { kind: 'concurrency', levels: [256] }, limits: { requests: 4000 }, serverMetrics: { url: 'off' }, workers: 1 });
  for (let round = 0; round < Number(process.argv[2] ?? 4); round++) {
    const cpu0 = process.cpuUsage(); const t0 = performance.now();
    const doc = await runBenchmark(config, {});
    const cpu = process.cpuUsage(cpu0);
    const chunks = doc.steps[0]!.requests.reduce((n, r) => n + r.chunkMs.length, 0);
    console.log(`round ${round}: ${((cpu.user + cpu.system) / chunks).toFixed(2)} µs/chunk, ${(chunks / ((performance.now() - t0) / 1000)).toFixed(0)} chunks/s`);
  }
  server.stop();
}
void main();
