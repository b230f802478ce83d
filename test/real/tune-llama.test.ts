/**
 * The tuner against a real llama.cpp `llama-server` (scripts/setup.d/llama.sh): its slots (-np),
 * context (-c), batch and micro-batch (-b, -ub) and continuous batching tuned, with the llama.cpp
 * rule set refusing before launch what llama.cpp would cut or split unevenly. Each launched
 * server answers, is benchmarked and is stopped; no llama-server is left and every port is free.
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
    // Random draws meet the refused corners of this space (-np 3 with these contexts, -ub above -b).
    search: { strategy: 'random', seed: 5 },
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
  for (const trial of launched) {
    assert.equal(trial.status, 'complete', `${JSON.stringify(trial.params)}: ${trial.reason}`);
    assert.ok(trial.objective! > 0);
    assert.ok(trial.command.includes('-np') && trial.command.includes(String(trial.params.np)));
    assert.ok(trial.command.includes(trial.params.cont_batching ? '--cont-batching' : '--no-cont-batching'));
    assert.ok((trial.params.ubatch as number) <= (trial.params.batch as number) && (trial.params.ctx as number) % (trial.params.np as number) === 0);
    assert.match(readFileSync(join(dir, trial.logFile!), 'utf8'), /llama|server/i);
  }
  for (const trial of file.trials.filter((t) => t.status === 'refused')) {
    assert.match(trial.reason ?? '', /^refused by rule llama\.cpp\/(ubatch-within-batch|ctx-divisible-by-parallel): /);
  }
  assert.ok(file.trials.some((t) => t.status === 'refused'), `seed 5 drew no refused combination: ${JSON.stringify(file.trials.map((t) => t.params))}`);
  assert.deepEqual(liveLlamaServers(ports), []);
  for (const port of ports) assert.equal(await isPortFree(port), true, `port ${port} still taken`);
});
