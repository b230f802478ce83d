import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { resolveSimConfig, SimConfigError, startSimServer, PRESETS } from '../../src/sim';

const root = process.env.LLMBENCH_ROOT ?? process.cwd();
const cli = join(root, 'dist', 'cli.js');

const rejects = (engine: Parameters<typeof resolveSimConfig>[0], pattern: RegExp) =>
  assert.throws(
    () => resolveSimConfig(engine),
    (e: unknown) => e instanceof SimConfigError && pattern.test(e.message),
  );

test('configurations vLLM refuses are refused at start with its kind of message', () => {
  rejects(
    { engine: { enableChunkedPrefill: false, maxNumBatchedTokens: 2048, maxModelLen: 4096 }, preset: 'tiny' },
    /^max_num_batched_tokens \(2048\) is smaller than max_model_len \(4096\)\..*Increase max_num_batched_tokens, decrease max_model_len/,
  );
  rejects({ preset: 'tiny', engine: { maxNumSeqs: 0 } }, /^max_num_seqs \(0\) must be at least 1/);
  rejects({ preset: 'tiny', engine: { kvCacheTokens: 1000, maxModelLen: 4096 } }, /max_model_len \(4096\).*more than the 992 available/);
  rejects({ preset: 'tiny', engine: { kvCacheTokens: 8 } }, /No KV-cache blocks available/);
  rejects({ preset: 'tiny', engine: { blockSize: 12 } }, /block_size \(12\) is not supported/);
  rejects({ preset: 'tiny', engine: { maxModelLen: 100_000 } }, /max_model_len \(100000\) is greater than the model's maximum context length \(8192\)/);
  rejects({ preset: 'tiny', engine: { maxNumSeqs: 4096 } }, /max_num_batched_tokens \(2048\) must be greater than or equal to max_num_seqs \(4096\)/);
  rejects({ preset: 'no-such-gpu' }, /'no-such-gpu' is not a simulator preset; choose qwen2-7b-a100-vllm/);
  rejects({ faults: { errorRate: 2 } }, /faults\.errorRate/);
});

test('valid configurations pass, and chunked prefill lifts the batched-tokens limit', () => {
  const config = resolveSimConfig({ preset: 'tiny', engine: { enableChunkedPrefill: true, maxNumBatchedTokens: 512 } });
  assert.equal(config.engine.maxNumBatchedTokens, 512);
  const defaults = resolveSimConfig();
  assert.equal(defaults.preset, 'qwen2-7b-a100-vllm');
  assert.deepEqual(defaults.engine, PRESETS['qwen2-7b-a100-vllm'].engine);
});

test('startSimServer refuses a bad configuration before listening', async () => {
  await assert.rejects(startSimServer({ preset: 'tiny', engine: { maxNumSeqs: -1 } }), SimConfigError);
});

/** Runs `node dist/cli.js sim ARGS`; resolves once it exits or prints its URL (then stops it with SIGINT). */
function runSim(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; url: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'sim', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let url: string | null = null;
    const deadline = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const match = /serving (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stdout);
      if (match && url === null) {
        url = match[1] as string;
        void fetch(`${url}/models`)
          .then((r) => r.json())
          .then((models) => {
            stdout += `\nMODELS ${JSON.stringify(models)}\n`;
            child.kill('SIGINT');
          }, reject);
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, stdout, stderr, url });
    });
  });
}

test('`llmbench sim` exits 2 with the engine-like message for a refused configuration', async () => {
  const refused = await runSim(['--preset', 'tiny', '--no-enable-chunked-prefill', '--max-num-batched-tokens', '1024', '--max-model-len', '4096']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /max_num_batched_tokens \(1024\) is smaller than max_model_len \(4096\)/);
  assert.equal(refused.url, null);

  const badFlag = await runSim(['--max-num-seqs', 'many']);
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.stderr, /--max-num-seqs: 'many' is not a number/);

  const contradiction = await runSim(['--enable-prefix-caching', '--no-enable-prefix-caching']);
  assert.equal(contradiction.code, 2);
  assert.match(contradiction.stderr, /contradict/);
});

test('`llmbench sim` serves until SIGINT, then exits 0', async () => {
  const served = await runSim(['--preset', 'tiny', '--port', '0', '--max-num-seqs', '8', '--model', 'my-sim']);
  assert.ok(served.url, `no URL printed: ${served.stdout} ${served.stderr}`);
  assert.match(served.stdout, /max-num-seqs 8/);
  assert.match(served.stdout, /MODELS .*"id":"my-sim"/);
  assert.equal(served.code, 0, served.stderr);
});

test('`llmbench sim --reasoning-tokens` says where the thoughts go, and its flags refuse what they cannot mean', async () => {
  const served = await runSim(['--preset', 'tiny', '--port', '0', '--reasoning-tokens', '64,16', '--reasoning-field', 'reasoning_content', '--embedding-dim', '32']);
  assert.ok(served.url, `no URL printed: ${served.stdout} ${served.stderr}`);
  assert.match(served.stdout, /reasoning: 64 ± 16 tokens first, in the `reasoning_content` field/);
  assert.equal(served.code, 0, served.stderr);
  const fieldAlone = await runSim(['--reasoning-field', 'tags']);
  assert.equal(fieldAlone.code, 2);
  assert.match(fieldAlone.stderr, /--reasoning-field needs --reasoning-tokens N/);
  const badField = await runSim(['--reasoning-tokens', '8', '--reasoning-field', 'thoughts']);
  assert.equal(badField.code, 2);
  assert.match(badField.stderr, /--reasoning-field/);
  const badCount = await runSim(['--reasoning-tokens', '8,2,1']);
  assert.equal(badCount.code, 2);
  assert.match(badCount.stderr, /--reasoning-tokens: '8,2,1' is not N or MEAN,STDEV/);
});
