/**
 * `npm run bench:trace` (node dist/bench/trace.js [--rows 1000000] [--tokenizer PATH]
 * [--replay-rates 100,1000] [--replay-seconds 10] [--no-read]): reading a long trace and building
 * its prompts, in rows per second and peak memory; then replaying traces of those recorded loads.
 * It writes a Mooncake-style trace of --rows rows to a temporary folder (test/bench/lib/mooncake-trace.ts:
 * each row opens with one of 1,000 shared conversation prefixes of 1 to 8 blocks, then 1 to 4 blocks
 * of its own, the last of them partial: 513 to 6,144 tokens, about 3,300 on average), then runs,
 * each in a child process of its own so that each peak is its own (--no-read: none of these):
 *   read     the reader alone (src/workload/trace.ts);
 *   prompts  the reader and the prompt builder (src/workload/trace-prompts.ts), every prompt built and
 *            dropped, with the estimate or --tokenizer's counts.
 * The child's peak resident set is VmHWM from /proc, read when it ends; its resident set when it
 * starts (modules loaded, nothing read) is printed beside it, and the JS heap still in use after a
 * full collection at the end (what the reading keeps; the peak also holds garbage not yet
 * collected, which V8 lets grow with the allocation rate). The goal (issue 22): the trace streams,
 * so what is kept does not grow with the number of rows. Prints one row per phase.
 *
 * Replay: for each recorded load (requests per second), a Mooncake-style trace of rate x seconds rows
 * with Poisson arrivals at that rate (prompts of about 3,300 tokens with shared blocks, 1 to 4 output
 * tokens) is replayed by `llmbench run --trace` (its engine in a worker thread, prompts counted with
 * the estimate or --tokenizer) against a token server on 127.0.0.1 that answers at once. Send
 * lateness is each request's sent time minus its recorded time (scaled 1x), from the result file:
 * p50, p99, max, the share within 2 ms, and the prompts built after their send time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseResultDocument } from '../../src/format/result';
import { TraceSourceSchema } from '../../src/format/trace';
import { createTokenCounter } from '../../src/workload/tokenizer';
import { openTrace } from '../../src/workload/trace';
import { createTracePromptBuilder } from '../../src/workload/trace-prompts';
import { startTokenServer, TOKEN_SERVER_MODEL } from '../helpers/cli-server';
import { cliPath } from '../helpers/limited-child';
import { writeMooncakeTrace } from './lib/mooncake-trace';
import { residentKiB } from './lib/proc-status';


interface PhaseResult {
  phase: string;
  rows: number;
  seconds: number;
  startKiB: number;
  peakKiB: number;
  promptChars: number;
  cachedBlocks: number;
  /** The JS heap after a full collection at the end, with the reader and builder still held. */
  heapAfterGcKiB: number;
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}


/** One phase, in this process (the child). */
async function runPhase(phase: string, path: string, tokenizer: string | undefined): Promise<PhaseResult> {
  const startKiB = residentKiB('self', 'VmRSS') ?? NaN;
  const reader = await openTrace(TraceSourceSchema.parse({ path }));
  const builder = phase === 'prompts' ? createTracePromptBuilder({ seed: 1, counter: await createTokenCounter(tokenizer) }) : undefined;
  const started = performance.now();
  let rows = 0;
  let promptChars = 0;
  let inexact = 0;
  for await (const entry of reader.entries()) {
    rows++;
    if (builder !== undefined) {
      const prompt = builder.prompt(entry);
      promptChars += prompt.text.length;
      if (prompt.tokens !== entry.inputTokens) inexact++;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  if (inexact > 0) console.error(`${phase}: ${inexact} prompts missed their length`);
  const peakKiB = residentKiB('self', 'VmHWM') ?? NaN;
  (globalThis as { gc?: () => void }).gc?.();
  const heapAfterGcKiB = process.memoryUsage().heapUsed / 1024;
  // The reader and the builder are read after the collection: what they hold is counted.
  return { phase, rows: reader.stats.entries, seconds, startKiB, peakKiB, promptChars, cachedBlocks: builder?.cachedBlocks ?? 0, heapAfterGcKiB };
}

function runChild(phase: string, path: string, tokenizer: string | undefined): Promise<PhaseResult> {
  const args = ['--expose-gc', __filename, '--phase', phase, '--file', path, ...(tokenizer ? ['--tokenizer', tokenizer] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`phase ${phase} ended with exit ${code}: ${out.trim()}`));
      else resolve(JSON.parse(line) as PhaseResult);
    });
  });
}

/** Writes a trace of `rows` rows and reads it in each phase, each in a child process of its own. */
async function readPhases(dir: string, rows: number, tokenizer: string | undefined): Promise<void> {
  const path = join(dir, 'mooncake-style.jsonl');
  const started = performance.now();
  await writeMooncakeTrace(path, rows);
  console.log(`trace: ${rows.toLocaleString('en-US')} rows, ${(statSync(path).size / 2 ** 20).toFixed(0)} MiB, written in ${((performance.now() - started) / 1000).toFixed(1)} s; counts: ${tokenizer ?? 'the estimate'}`);
  console.log('| phase | rows | time | rows/s | RSS at start | peak RSS | heap kept at the end (after a GC) | prompt text built | blocks cached |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const name of ['read', 'prompts']) {
    const r = await runChild(name, path, tokenizer);
    console.log(
      `| ${r.phase} | ${r.rows.toLocaleString('en-US')} | ${r.seconds.toFixed(1)} s | ${Math.round(r.rows / r.seconds).toLocaleString('en-US')} | ${(r.startKiB / 1024).toFixed(0)} MiB | ${(r.peakKiB / 1024).toFixed(0)} MiB | ${(r.heapAfterGcKiB / 1024).toFixed(1)} MiB | ${r.promptChars === 0 ? '-' : `${(r.promptChars / 2 ** 30).toFixed(1)} GiB`} | ${r.cachedBlocks || '-'} |`,
    );
  }
}

interface Replayed {
  rate: number;
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  max: number;
  within2ms: number;
  promptsLate: number;
  achievedRate: number;
}

/** Replays a trace of `rate` requests per second for `seconds` with `llmbench run --trace`, and reads its lateness from the result file. */
async function replayOnce(dir: string, baseUrl: string, rate: number, seconds: number, tokenizer: string | undefined): Promise<Replayed> {
  const path = join(dir, `replay-${rate}.jsonl`);
  const requests = Math.round(rate * seconds);
  await writeMooncakeTrace(path, requests, { rate, maxOutputTokens: 4, seed: rate });
  const out = join(dir, `replay-${rate}.llmbench.json`);
  const args = [cliPath, 'run', '--url', baseUrl, '--model', TOKEN_SERVER_MODEL, '--trace', path, '--server-metrics', 'off', '--out', out, ...(tokenizer ? ['--tokenizer', tokenizer] : [])];
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`the replay at ${rate} req/s ended with exit ${code}: ${stderr}`);
  const parsed = parseResultDocument(readFileSync(out, 'utf8'));
  if (!parsed.ok) throw new Error(parsed.error);
  const records = parsed.value.steps[0]?.requests ?? [];
  const lateness = records.map((r) => r.sentMs - r.scheduledMs).sort((a, b) => a - b);
  const at = (q: number): number => lateness[Math.min(lateness.length - 1, Math.floor(q * lateness.length))] ?? NaN;
  const sends = records.map((r) => r.sentMs);
  const span = (Math.max(...sends) - Math.min(...sends)) / 1000;
  return {
    rate,
    requests: records.length,
    seconds: (performance.now() - started) / 1000,
    p50: at(0.5),
    p99: at(0.99),
    max: lateness.at(-1) ?? NaN,
    within2ms: lateness.filter((l) => l <= 2).length / lateness.length,
    promptsLate: records.filter((r) => r.trace?.promptLate).length,
    achievedRate: span > 0 ? (records.length - 1) / span : NaN,
  };
}

async function replayPhases(dir: string, rates: number[], seconds: number, tokenizer: string | undefined): Promise<void> {
  const server = await startTokenServer({ keepRequests: false, defaultTokens: 4 });
  try {
    console.log(`\nreplay: ${seconds} s of recorded load per rate, Poisson arrivals, Mooncake-style prompts (counts: ${tokenizer ?? 'the estimate'}), token server answering at once`);
    console.log('| recorded load | requests | sent at (mean) | lateness p50 | p99 | max | within 2 ms | prompts late | wall time |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const rate of rates) {
      const r = await replayOnce(dir, server.baseUrl, rate, seconds, tokenizer);
      console.log(
        `| ${rate} req/s | ${r.requests.toLocaleString('en-US')} | ${r.achievedRate.toFixed(1)} req/s | ${r.p50.toFixed(3)} ms | ${r.p99.toFixed(3)} ms | ${r.max.toFixed(1)} ms | ${(r.within2ms * 100).toFixed(1)}% | ${r.promptsLate} | ${r.seconds.toFixed(1)} s |`,
      );
    }
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  const phase = argument('--phase');
  const tokenizer = argument('--tokenizer');
  if (phase !== undefined) {
    console.log(JSON.stringify(await runPhase(phase, argument('--file') as string, tokenizer)));
    return;
  }
  const rows = Number(argument('--rows') ?? 1_000_000);
  const replayRates = (argument('--replay-rates') ?? '100,1000').split(',').filter(Boolean).map(Number);
  const replaySeconds = Number(argument('--replay-seconds') ?? 10);
  if (replayRates.some((r) => !(r > 0)) || !(replaySeconds > 0)) throw new Error('--replay-rates takes rates above 0, comma-separated; --replay-seconds a number above 0');
  if (!Number.isInteger(rows) || rows < 1) throw new Error(`--rows takes a whole number above 0 (got ${argument('--rows')})`);
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-trace-bench-'));
  try {
    if (!process.argv.includes('--no-read')) await readPhases(dir, rows, tokenizer);
    if (replayRates.length > 0) await replayPhases(dir, replayRates, replaySeconds, tokenizer);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
