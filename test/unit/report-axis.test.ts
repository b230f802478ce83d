// Load axes mean achieved load (issue 15): a real sweep on the built-in simulator, whose throughput
// step sends every request at once, is placed in the report at the rate each step completed
// requests, never at the throughput step's send rate; the knee is found on that axis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBenchmark } from '../../src/load/runner';
import { readResultText } from '../../src/results/read-result';
import { RunConfigSchema } from '../../src/format/config';
import { startSimServer } from '../../src/sim/index';
import { buildReportModel, loadOf } from '../../src/views/report';

test('a sweep is placed at completed requests per second; the throughput step is not put at its send rate', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-axis-'));
  const sim = await startSimServer({ preset: 'tiny' });
  try {
    const path = join(dir, 'sweep.llmbench.json');
    const config = RunConfigSchema.parse({
      endpoint: { baseUrl: sim.baseUrl, model: sim.model },
      workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 32 },
      profile: { kind: 'sweep', rateCount: 2 },
      limits: { requests: 24 },
    });
    await runBenchmark(config, { resultPath: path });
    const read = readResultText(readFileSync(path, 'utf8'));
    assert.ok(read.ok, read.ok ? '' : read.error);
    const run = { name: 'sweep', doc: read.value.document };
    const throughput = run.doc.steps.find((step) => step.profile.kind === 'throughput');
    assert.ok(throughput?.summary, 'the sweep has a throughput step');
    const sendRate = throughput.summary.achievedRate ?? 0;
    const completed = throughput.summary.requestsPerSecond ?? 0;
    assert.ok(sendRate > 3 * completed, `everything was sent at once (${sendRate.toFixed(0)} sends/s against ${completed.toFixed(1)} completions/s)`);

    for (const step of run.doc.steps) assert.equal(loadOf(step, 'rate'), step.summary?.requestsPerSecond, step.name);
    const model = buildReportModel([run], { axis: 'rate' });
    const xs = model.charts[0]!.curves[0]!.points.map((p) => p.x);
    assert.ok(Math.max(...xs) <= completed * 1.0001, `no point past the highest completed rate (${xs.join(', ')})`);
    assert.match(model.charts[0]!.xTitle, /completed req\/s/);
    // The knee is one of the curve's own points: found on the completed-rate axis, not the send rate.
    const tokens = model.charts.find((c) => c.id === 'outputTokensPerSecond')!.curves[0]!;
    const knee = tokens.knee;
    if (knee) assert.ok(tokens.points.some((p) => p.x === knee.x && p.step === knee.step) && knee.x <= completed * 1.0001, `knee ${JSON.stringify(knee)}`);
    assert.equal(model.knees[0]?.step ?? null, knee?.step ?? null, 'the ranking names the same knee');
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
