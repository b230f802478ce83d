/**
 * The tuner against a real llama.cpp `llama-server` (scripts/setup.d/llama.sh): its slots (-np),
 * context (-c), batch and micro-batch (-b, -ub) and continuous batching tuned, with the llama.cpp
 * rule set refusing before launch what llama.cpp would cut; the best candidates re-measured. Each
 * launched server answers, is benchmarked and is stopped; no llama-server is left and every port
 * is free. And the rules against what this llama-server does: a context that does not divide by
 * the slots starts (each slot rounded up), a slot too small for the benchmark's requests fails
 * every one of them, which the rule set refuses before a launch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TuneConfigSchema } from '../../src/format/tune';
import { runTune } from '../../src/tune/index';
import { isPortFree } from '../../src/tune/server';
import { cliPath, repoRoot } from '../helpers/limited-child';
import { LLAMA_MODEL_ID, LLAMA_SERVER_ARGV, llamaServerInstalled } from '../helpers/llama-server';

/** llama-server processes serving on one of these ports. */
function liveLlamaServers(ports: number[]): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const port = argv[argv.indexOf('--port') + 1];
        return argv.some((word) => word.endsWith('llama-server')) && ports.includes(Number(port));
      } catch {
        return false;
      }
    })
    .map(Number);
}

test('tuning llama-server: -np, -c, -b, -ub, --cont-batching; llama.cpp rules refuse before launch; nothing left running', { timeout: 300_000 }, async () => {
  assert.ok(llamaServerInstalled(), 'llama-server is not installed: run bash scripts/setup.d/llama.sh');
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-tune-llama-'));
  const config = TuneConfigSchema.parse({
    server: {
      command: [...LLAMA_SERVER_ARGV, '--host', '127.0.0.1', '--port', '{port}', '-t', '2', '--no-webui', '-a', LLAMA_MODEL_ID, '-np', '{np}', '-c', '{ctx}', '-b', '{batch}', '-ub', '{ubatch}', '{cont_batching}'],
      readyPath: '/health',
      startTimeoutSec: 90,
      stopGraceSec: 5,
    },
    space: {
      np: { type: 'choice', values: [1, 2, 3, 4] },
      ctx: { type: 'choice', values: [1024, 2048] },
      batch: { type: 'choice', values: [64, 256] },
      ubatch: { type: 'choice', values: [32, 128] },
      cont_batching: { type: 'bool', true: '--cont-batching', false: '--no-cont-batching' },
    },
    constraints: ['llama.cpp'],
    benchmark: {
      endpoint: { api: 'completions' },
      workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 16 },
      request: { extraBody: { ignore_eos: true }, totalTimeoutMs: 60_000 },
      profile: { kind: 'concurrency', levels: [4] },
      limits: { requests: 8, warmup: 1 },
    },
    objective: { maximize: 'outputTokensPerSecond', slo: { 'ttftMs.p99': 30_000 } },
    budget: { trials: 3 },
    // Random draws meet the refused corner of this space (-ub above -b).
    search: { strategy: 'random', seed: 5 },
    remeasure: { candidates: 2, rounds: 2 },
  });
  const ports: number[] = [];
  const file = await runTune({
    config,
    configDir: dir,
    outPath: join(dir, 'llama.llmtune.json'),
    resume: false,
    llmbenchCommand: [process.execPath, cliPath],
    engineWorkerScript: join(repoRoot, 'dist', 'engine-worker.js'),
    onEvent: (event) => {
      if (event.type === 'trial-start' && event.port !== null) ports.push(event.port);
    },
  });
  assert.equal(file.status, 'complete', file.statusReason ?? '');
  const launched = file.trials.filter((t) => t.status !== 'refused');
  assert.equal(launched.length, 3);
  // The best two measured twice more each, against the real server, and the winner given with its interval.
  assert.equal(file.remeasure?.runs.length, 4);
  assert.ok(file.remeasure?.runs.every((r) => r.status === 'complete' && r.objective! > 0), JSON.stringify(file.remeasure?.runs.map((r) => [r.trial, r.status, r.reason])));
  assert.ok(file.remeasure?.summaries.every((s) => s.n === 2 && s.halfWidth !== null));
  assert.equal(file.best?.objective, file.remeasure?.summaries.find((s) => s.trial === file.best?.trial)?.mean);
  for (const trial of launched) {
    assert.equal(trial.status, 'complete', `${JSON.stringify(trial.params)}: ${trial.reason}`);
    assert.ok(trial.objective! > 0);
    assert.ok(trial.command.includes('-np') && trial.command.includes(String(trial.params.np)));
    assert.ok(trial.command.includes(trial.params.cont_batching ? '--cont-batching' : '--no-cont-batching'));
    assert.ok((trial.params.ubatch as number) <= (trial.params.batch as number));
    assert.match(readFileSync(join(dir, trial.logFile!), 'utf8'), /llama|server/i);
  }
  for (const trial of file.trials.filter((t) => t.status === 'refused')) {
    assert.match(trial.reason ?? '', /^refused by rule llama\.cpp\/ubatch-within-batch: /);
  }
  assert.ok(file.trials.some((t) => t.status === 'refused'), `seed 5 drew no refused combination: ${JSON.stringify(file.trials.map((t) => t.params))}`);
  assert.deepEqual(liveLlamaServers(ports), []);
  for (const port of ports) assert.equal(await isPortFree(port), true, `port ${port} still taken`);
});

/** A tune of one llama-server combination, `-np NP -c CTX`, and a workload of `inputTokens` in, 16 out. */
function oneLlamaCombination(np: number, ctx: number, inputTokens: number, constraints: string[]) {
  return TuneConfigSchema.parse({
    server: {
      command: [...LLAMA_SERVER_ARGV, '--host', '127.0.0.1', '--port', '{port}', '-t', '2', '--no-webui', '-a', LLAMA_MODEL_ID, '-np', '{np}', '-c', '{ctx}'],
      readyPath: '/health',
      startTimeoutSec: 90,
      stopGraceSec: 5,
    },
    space: { np: { type: 'choice', values: [np] }, ctx: { type: 'choice', values: [ctx] } },
    constraints,
    benchmark: {
      endpoint: { api: 'completions' },
      workload: { kind: 'synthetic', inputTokens, outputTokens: 16 },
      request: { extraBody: { ignore_eos: true }, totalTimeoutMs: 60_000 },
      profile: { kind: 'concurrency', levels: [2] },
      limits: { requests: 4, warmup: 0 },
    },
    objective: { maximize: 'outputTokensPerSecond' },
    budget: { trials: 1 },
    // Random search records a refusal (the model-based search never proposes one).
    search: { strategy: 'random', seed: 1 },
    remeasure: false,
  });
}

test('llama-server takes a context that does not divide by its slots: -c 2047 -np 4 starts with 512 tokens a slot, and the llama.cpp rules let it launch', { timeout: 180_000 }, async () => {
  assert.ok(llamaServerInstalled(), 'llama-server is not installed: run bash scripts/setup.d/llama.sh');
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-tune-llama-'));
  let slotContext: unknown;
  const file = await runTune({
    config: oneLlamaCombination(4, 2047, 32, ['llama.cpp']),
    configDir: dir,
    outPath: join(dir, 'split.llmtune.json'),
    resume: false,
    llmbenchCommand: [process.execPath, cliPath],
    engineWorkerScript: join(repoRoot, 'dist', 'engine-worker.js'),
    onEvent: (event) => {
      if (event.type === 'trial-start') {
        const port = event.port;
        // What the server says each slot holds, asked once it answers.
        const ask = async (): Promise<void> => {
          for (let i = 0; i < 400 && slotContext === undefined; i++) {
            const props = await fetch(`http://127.0.0.1:${port}/props`).then((r) => (r.ok ? (r.json() as Promise<{ default_generation_settings?: { n_ctx?: number }; total_slots?: number }>) : null), () => null);
            if (props) slotContext = [props.default_generation_settings?.n_ctx, props.total_slots];
            else await new Promise((resolve) => setTimeout(resolve, 250));
          }
        };
        void ask();
      }
    },
  });
  const [trial] = file.trials;
  assert.equal(trial?.status, 'complete', `${trial?.status}: ${trial?.reason}`);
  assert.deepEqual(slotContext, [512, 4], 'llama-server 0.7.0 gives each of the 4 slots 2047 / 4 rounded up to 512 tokens');
  assert.deepEqual(liveLlamaServers(trial.port === null ? [] : [trial.port]), []);
});

test('a slot too small for the benchmark\'s requests fails every request on llama-server; the llama.cpp rules refuse it before a launch', { timeout: 180_000 }, async () => {
  assert.ok(llamaServerInstalled(), 'llama-server is not installed: run bash scripts/setup.d/llama.sh');
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-tune-llama-'));
  const options = { configDir: dir, resume: false, llmbenchCommand: [process.execPath, cliPath], engineWorkerScript: join(repoRoot, 'dist', 'engine-worker.js') };
  // -c 1024 -np 8: 256 tokens a slot, less than a 300-token prompt (by the estimate; more by the model's tokenizer) and its 16 out.
  const unchecked = await runTune({ ...options, config: oneLlamaCombination(8, 1024, 300, []), outPath: join(dir, 'unchecked.llmtune.json') });
  assert.equal(unchecked.trials[0]?.status, 'failed', JSON.stringify(unchecked.trials[0]));
  assert.match(unchecked.trials[0]?.reason ?? '', /HTTP 400.*(exceed|context)/i);
  const checked = await runTune({ ...options, config: oneLlamaCombination(8, 1024, 300, ['llama.cpp']), outPath: join(dir, 'checked.llmtune.json') });
  assert.equal(checked.trials[0]?.status, 'refused');
  assert.match(checked.trials[0]?.reason ?? '', /^refused by rule llama\.cpp\/slot-holds-workload: -c 1024 \/ -np 8 gives each slot 256 tokens .* needs 316 tokens \(300 prompt \+ 16 output, counted by the estimate/);
  assert.equal(checked.trials.filter((t) => t.status !== 'refused').length, 0);
});
