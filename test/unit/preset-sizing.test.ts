// The default concurrency preset measures what it names (issue 26): 40 requests at concurrency 64
// never had 64 in flight, and every run of the preset carried a warning about its own last step.
// Each step now measures at least 4 requests per concurrent slot; a run of the preset against the
// simulator reaches every level it names, and its result view warns of none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { repoRoot } from '../vscode/harness/tools';
import { translator } from '../../src/views/l10n';
import { runBenchmark } from '../../src/load/runner';
import { RunConfigSchema, stepRequests } from '../../src/format/config';
import { PresetSettingsSchema, presets } from '../../src/run/presets';
import { forReading } from '../../src/results/read-result';
import { buildResultView } from '../../src/views/result';
import { planOf, planText } from '../../src/views/plan';
import { startSimServer } from '../../src/sim';

const workerScript = join(process.env.LLMBENCH_ROOT ?? process.cwd(), 'dist', 'sim-worker.js');

test('a concurrency step measures the larger of its requests and its slots times requestsPerConcurrency', () => {
  assert.equal(stepRequests({ requests: 40, requestsPerConcurrency: 4 }, 64), 256);
  assert.equal(stepRequests({ requests: 40, requestsPerConcurrency: 4 }, 8), 40);
  assert.equal(stepRequests({ requests: 40 }, 64), 40, 'without it, requests as set');
  assert.equal(stepRequests({ requests: 40, requestsPerConcurrency: 4 }), 40, 'an open-loop step has no slots');
  assert.equal(stepRequests({ requestsPerConcurrency: 4 }, 16), 64, 'a duration-limited run still sizes its concurrency steps');
  assert.equal(stepRequests({}, 16), null);
});

test('the default concurrency preset, run against the simulator, reaches every level it names and warns of none', async (t) => {
  const sim = await startSimServer({ preset: 'tiny', speedup: 4, inWorker: true, workerScript });
  t.after(() => sim.close());
  const settings = PresetSettingsSchema.parse({ requestsPerStep: 40, concurrencyLevels: [16, 64], inputTokens: 64, outputTokens: 32 });
  const preset = presets(settings).find((p) => p.id === 'concurrency')!;
  assert.equal(planText(planOf(preset.config)!), 'Plan: 2 steps, 320 requests (+4 warm-up); time: as long as the server takes');
  const doc = await runBenchmark(
    RunConfigSchema.parse({ ...preset.config, endpoint: { baseUrl: sim.baseUrl, model: sim.model }, request: { extraBody: { ignore_eos: true } }, serverMetrics: { url: 'off' } }),
    {},
  );
  assert.deepEqual(doc.steps.map((s) => [s.name, s.summary?.requests.total]), [['concurrency@16', 64], ['concurrency@64', 256]]);
  for (const step of doc.steps) {
    const level = step.profile.concurrency ?? 0;
    const mean = step.summary?.achievedConcurrency ?? 0;
    assert.ok(mean >= 0.75 * level, `${step.name}: ${mean.toFixed(1)} in flight on average`);
  }
  const view = buildResultView(forReading(doc), 'preset.llmbench.json');
  assert.deepEqual(view.notes.filter((n) => /requests in flight/.test(n)), []);
});

test('the plan line says what can be said before a run: steps, requests, and its time', () => {
  assert.equal(planText(planOf({ profile: { kind: 'rate', rates: [1, 2] }, limits: { requests: 60, warmup: 0 } })!), 'Plan: 2 steps, 120 requests; time: about 1 min 30 s (the rates\' schedules)');
  assert.equal(planText(planOf({ profile: { kind: 'concurrency', levels: [1, 8] }, limits: { durationSec: 30 }, repeat: { count: 2, pauseSec: 5 } })!), 'Plan: 4 steps, requests as the duration allows; time: at most about 2 min 5 s');
  assert.equal(planOf({ profile: { kind: 'concurrency', levels: [] }, limits: {} }), null, 'a profile that does not parse has no plan');
});

test('the plan line in Chinese, as the palette shows it in that display language; English as before without a bundle', () => {
  const chinese = translator(JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>);
  const rates = planOf({ profile: { kind: 'rate', rates: [1, 2] }, limits: { requests: 60, warmup: 0 } })!;
  assert.equal(planText(rates, chinese), '计划：2 步，120 个请求；用时：约 1 分 30 秒（各速率的发送计划）');
  const sweep = planOf({ profile: { kind: 'concurrency', levels: [1, 8] }, limits: { requests: 160, warmup: 2 } })!;
  assert.equal(planText(sweep), 'Plan: 2 steps, 320 requests (+4 warm-up); time: as long as the server takes');
  assert.equal(planText(sweep, chinese), '计划：2 步，320 个请求（另加 4 个预热）；用时：取决于服务端');
  const one = planOf({ profile: { kind: 'concurrency', levels: [4] }, limits: { durationSec: 30 } })!;
  assert.equal(planText(one, chinese), '计划：1 步，请求数由时长决定；用时：至多约 30 秒');
  assert.equal(planText(one), 'Plan: 1 step, requests as the duration allows; time: at most about 30 s');
});
