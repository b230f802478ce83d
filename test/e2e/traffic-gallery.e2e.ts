// The views issue 22 adds, as a user sees them: a Mooncake-style trace replayed by the real engine
// over two simulators of different presets (a small fast engine and a 70B model on two H100s), in
// the result editor (the Per endpoint table with its notes, the Trace replay table and its recorded
// against sent load, the server strip summed and then one by one) and in the report of its folder
// (Per endpoint). Each at 1000x700 and 1280x800 in dark, light and high-contrast themes, nothing cut
// off (the per-endpoint and trace tables have more columns than a 1000 px editor: they scroll in
// their boxes, the step column held); screenshots in .test-artifacts/gallery-traffic-<view>-<theme>-<width>.png.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunConfigSchema } from '../../src/format/config';
import { parseResultDocument } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { startSimServer } from '../../src/sim';
import { repoRoot } from '../vscode/harness/tools';
import { explorerContextCommand, findWebview, openFile, scenario, waitForText } from './harness';
import { shootAtEachSize, THEMES } from './harness/layout';

/**
 * 60 rows over about 6 s whose load changes (5, then 20, then 10 requests per second), each opening
 * with one of 4 shared two-block prefixes, as Mooncake's rows do.
 */
function mooncakeTrace(): string {
  const rows: string[] = [];
  let time = 0;
  for (let i = 0; i < 60; i++) {
    if (i > 0) time += i < 15 ? 200 : i < 45 ? 50 : 100;
    const prefix = i % 4;
    rows.push(JSON.stringify({ timestamp: time, input_length: 2 * 512 + 40, output_length: 12, hash_ids: [2 * prefix, 2 * prefix + 1, 100 + i] }));
  }
  return `${rows.join('\n')}\n`;
}

/** Replays the trace over the two simulators (each in a thread of its own) into `folder`. */
async function writeReplay(folder: string): Promise<void> {
  mkdirSync(folder, { recursive: true });
  const tracePath = join(folder, 'mooncake-style.jsonl');
  writeFileSync(tracePath, mooncakeTrace());
  const workerScript = join(repoRoot, 'dist', 'sim-worker.js');
  const [fast, slow] = await Promise.all([startSimServer({ preset: 'tiny', inWorker: true, workerScript }), startSimServer({ preset: 'llama3.3-70b-fp8-2xh100-nim', inWorker: true, workerScript })]);
  try {
    const endpoints = [fast, slow].map((server) => ({ baseUrl: server.baseUrl, model: server.model }));
    const file = join(folder, 'replay.llmbench.json');
    const config = RunConfigSchema.parse({
      endpoint: endpoints[0],
      endpoints,
      endpointStrategy: 'round-robin',
      workload: { kind: 'synthetic' },
      profile: { kind: 'trace', path: tracePath },
      serverMetrics: { intervalMs: 500 },
      labels: { run: 'trace over two replicas' },
    });
    await runBenchmark(config, { resultPath: file });
    const parsed = parseResultDocument(readFileSync(file, 'utf8'));
    if (!parsed.ok) throw new Error(`the replay is not a valid result document: ${parsed.error}`);
    if (parsed.value.status !== 'complete') throw new Error(`the replay ended ${parsed.value.status}: ${parsed.value.statusReason}`);
  } finally {
    await Promise.all([fast.close(), slow.close()]);
  }
}

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `traffic gallery in the ${theme} theme: a trace replayed over two replicas in the result editor and the report`,
    async ({ page, workspace }) => {
      await writeReplay(join(workspace, 'traffic'));
      await openFile(page, 'traffic/replay.llmbench.json');
      const result = () => findWebview(page, { title: 'replay.llmbench.json', text: 'Per endpoint', timeoutMs: 60_000 });
      await waitForText(await result(), 'Trace replay');
      await waitForText(await result(), /is slower: (TTFT|TPOT) p50/);
      await shootAtEachSize(page, result, `traffic-result-${theme}`, undefined, '#trace-section');
      await (await result()).locator('#server-one-by-one').click();
      await waitForText(await result(), /Endpoint 1: /);
      await shootAtEachSize(page, result, `traffic-replicas-${theme}`, undefined, '#server-section');

      await explorerContextCommand(page, 'traffic', 'Open Benchmark Report');
      const report = () => findWebview(page, { title: 'Report', text: 'Per endpoint', timeoutMs: 60_000 });
      await shootAtEachSize(page, report, `traffic-report-${theme}`);
    },
    {
      timeoutMs: 180_000,
      workspace: { settings: { 'workbench.colorTheme': themeName } },
    },
  );
}
