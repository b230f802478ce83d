/**
 * Rule sets checked against what the engines do: llama-server 0.7.0's own start-up (each rule was
 * tried on the Debian build of the test set-up: docs/tuning.md), and the workload the benchmark
 * sends (a combination whose context cannot hold its largest request is refused before a launch);
 * and the SLO boundary: a figure equal to its limit meets it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { WorkloadNeed } from '../../src/engines/workload-need';
import { TuneConfigSchema, type Objective } from '../../src/format/tune';
import type { RunOverview } from '../../src/load/worker-host';
import { checkConstraints, runTune } from '../../src/tune/index';
import { scoreRun, sloMet } from '../../src/tune/objective';
import { engineWorkerScript, liveSimulators, llmbenchCommand, tempDir, vllmLikeConfig } from '../helpers/tune-runs';

const llama = (...flags: string[]) => ['llama-server', '-m', 'model.gguf', ...flags];
const ruleOf = (argv: string[], need?: WorkloadNeed) => checkConstraints(['llama.cpp'], {}, argv, need)?.rule;

test('llama.cpp rules as llama-server 0.7.0 starts: any context splits into slots (rounded), -b must hold every slot and more than one token, -np at least 1, -ub above -b is a repeat', () => {
  // Accepted by llama-server 0.7.0 (each slot: 512, 256 and 256 tokens), refused by the old rules.
  assert.equal(ruleOf(llama('-c', '2047', '-np', '4')), undefined);
  assert.equal(ruleOf(llama('-c', '1000', '-np', '3')), undefined);
  assert.equal(ruleOf(llama('-c', '3', '-np', '8')), undefined);
  // Crashes at start (GGML_ASSERT n_outputs_max, exit 139): fewer batch tokens than slots.
  assert.equal(ruleOf(llama('-np', '4', '-b', '3')), 'llama.cpp/batch-holds-slots');
  assert.equal(ruleOf(llama('-np', '8', '-c', '2048', '-b', '7')), 'llama.cpp/batch-holds-slots');
  assert.equal(ruleOf(llama('-np', '4', '-b', '4')), undefined);
  // Crashes at start (its warm-up decodes two tokens): a batch of one.
  assert.equal(ruleOf(llama('-np', '1', '-b', '1')), 'llama.cpp/batch-above-one');
  // Refused by llama-server ("invalid value for n_parallel"); -1 is its "auto".
  assert.equal(ruleOf(llama('-np', '0')), 'llama.cpp/parallel-positive');
  assert.equal(ruleOf(llama('-np', '-1')), undefined);
  // Accepted, with the micro-batch cut to the batch (n_ubatch 64): the combination of -ub 64 again.
  assert.equal(ruleOf(llama('-b', '64', '-ub', '512')), 'llama.cpp/ubatch-within-batch');
  // -ub 0 starts (llama-server takes its default).
  assert.equal(ruleOf(llama('-ub', '0')), undefined);
});

test('llama.cpp: a slot too small for the benchmark\'s largest request is refused, with the slot size llama-server gives and the request\'s count', () => {
  const need: WorkloadNeed = { tokens: 342, promptTokens: 294, outputTokens: 48, counted: 'the estimate (4 characters a token)' };
  // -c 1024 -np 8: 128 tokens each, which llama-server 0.7.0 raises to 256: too few for 342.
  const refused = checkConstraints(['llama.cpp'], {}, llama('-c', '1024', '-np', '8'), need);
  assert.equal(refused?.rule, 'llama.cpp/slot-holds-workload');
  assert.match(refused?.message ?? '', /-c 1024 \/ -np 8 gives each slot 256 tokens .*the benchmark's largest request needs 342 tokens \(294 prompt \+ 48 output, counted by the estimate/);
  // 2048 / 4 = 512 a slot: it fits; a unified KV cache (-kvu) lets one slot use the whole context.
  assert.equal(ruleOf(llama('-c', '2048', '-np', '4'), need), undefined);
  assert.equal(ruleOf(llama('-c', '1024', '-np', '8', '-kvu'), need), undefined);
  // Without -c the model decides the context: nothing is refused.
  assert.equal(ruleOf(llama('-np', '8'), need), undefined);
});

test('vllm: max_model_len too short for the benchmark\'s largest request is refused before a launch', async () => {
  const dir = tempDir();
  const config = TuneConfigSchema.parse(
    vllmLikeConfig({
      server: { command: ['llmbench', 'sim', '--preset', 'tiny', '--speedup', '50', '--port', '{port}', '--max-model-len', '{max_model_len}'], startTimeoutSec: 30, stopGraceSec: 5 },
      space: { max_model_len: { type: 'choice', values: [128, 4096] } },
      benchmark: { profile: { kind: 'concurrency', levels: [2] }, limits: { requests: 6, warmup: 0 }, workload: { kind: 'synthetic', inputTokens: 200, outputTokens: 64 } },
      search: { strategy: 'random', seed: 1 },
      budget: { trials: 2 },
      remeasure: false,
    }),
  );
  const file = await runTune({ config, configDir: dir, outPath: join(dir, 'len.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir } });
  const short = file.trials.find((t) => t.params.max_model_len === 128);
  const long = file.trials.find((t) => t.params.max_model_len === 4096);
  assert.equal(short?.status, 'refused', JSON.stringify(short));
  assert.match(short.reason ?? '', /^refused by rule vllm\/model-len-holds-workload: max_model_len \(128\) cannot hold the benchmark's largest request: 264 tokens \(200 prompt \+ 64 output/);
  assert.equal(long?.status, 'complete', long?.reason ?? '');
  assert.deepEqual(liveSimulators(dir), []);
});

test('the SLO boundary: a figure equal to its limit meets it, a hair above does not; a step whose p99 equals the limit is scored', () => {
  assert.equal(sloMet({ 'ttftMs.p99': 2000 }, { 'ttftMs.p99': 2000 }), true);
  assert.equal(sloMet({ 'ttftMs.p99': 2000.000001 }, { 'ttftMs.p99': 2000 }), false);
  assert.equal(sloMet({ 'ttftMs.p99': 1999.999999, 'tpotMs.p50': 50 }, { 'ttftMs.p99': 2000, 'tpotMs.p50': 50 }), true);
  const objective: Extract<Objective, { maximize: unknown }> = { mode: 'maximize', maximize: 'outputTokensPerSecond', slo: { 'ttftMs.p99': 2000 } };
  const step = (name: string, tokens: number, ttftP99: number, concurrency: number) => ({ name, profile: { concurrency }, summary: { requests: { completed: 10 }, outputTokensPerSecond: tokens, ttftMs: { p99: ttftP99 } } });
  const run = { steps: [step('concurrency@8', 900, 1500, 8), step('concurrency@16', 1400, 2000, 16), step('concurrency@32', 1800, 2000.5, 32)] } as unknown as RunOverview;
  const score = scoreRun(run, objective);
  assert.equal(score.objective, 1400, 'the step at exactly 2,000 ms scores; the one 0.5 ms over does not');
  assert.deepEqual(score.load, { kind: 'concurrency', value: 16 });
  assert.equal(score.slo.met, true);
});
