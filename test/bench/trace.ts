/**
 * `npm run bench:trace` (node dist/bench/trace.js [--rows 1000000] [--tokenizer PATH]): reading a
 * long trace and building its prompts, in rows per second and peak memory. It writes a Mooncake-style
 * trace of --rows rows to a temporary folder (each row opens with one of 1,000 shared conversation
 * prefixes of 1 to 8 blocks, then 1 to 4 blocks of its own, the last of them partial: 513 to 6,144
 * tokens, about 3,300 on average), then runs, each in a child process of its own so that each peak is its own:
 *   read     the reader alone (src/workload/trace.ts);
 *   prompts  the reader and the prompt builder (src/workload/trace-prompts.ts), every prompt built and
 *            dropped, with the estimate or --tokenizer's counts.
 * The child's peak resident set is VmHWM from /proc, read when it ends; its resident set when it
 * starts (modules loaded, nothing read) is printed beside it, and the JS heap still in use after a
 * full collection at the end (what the reading keeps; the peak also holds garbage not yet
 * collected, which V8 lets grow with the allocation rate). The goal (issue 22): the trace streams,
 * so what is kept does not grow with the number of rows. Prints one row per phase.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TraceSourceSchema } from '../../src/format/trace';
import { createTokenCounter } from '../../src/workload/tokenizer';
import { openTrace } from '../../src/workload/trace';
import { createTracePromptBuilder } from '../../src/workload/trace-prompts';
import { createRandom } from '../../src/workload/random';
import { residentKiB } from './lib/proc-status';

const SHARED_PREFIXES = 1000;

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


/** Writes the trace in chunks: the generator holds no more than a chunk either. */
async function writeTrace(path: string, rows: number): Promise<void> {
  const random = createRandom(20261126);
  // Conversation prefixes: ids 0..; each a chain of 1 to 8 blocks.
  let nextId = 0;
  const prefixes = Array.from({ length: SHARED_PREFIXES }, () => Array.from({ length: random.int(1, 8) }, () => nextId++));
  const out = createWriteStream(path);
  let chunk = '';
  let time = 0;
  for (let i = 0; i < rows; i++) {
    time += Math.round(random.exponential(3.6));
    const prefix = prefixes[random.int(0, SHARED_PREFIXES - 1)] as number[];
    const own = random.int(1, 4);
    const ids = [...prefix];
    for (let b = 0; b < own; b++) ids.push(nextId++);
    // The last id covers a partial block, as in Mooncake's traces: (n - 1) x 512 + 1..512 tokens.
    const input = (ids.length - 1) * 512 + random.int(1, 512);
    chunk += `{"timestamp": ${time}, "input_length": ${input}, "output_length": ${random.int(1, 800)}, "hash_ids": [${ids.join(', ')}]}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = '';
    }
  }
  out.end(chunk);
  await new Promise<void>((resolve, reject) => out.on('finish', () => resolve()).on('error', reject));
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

async function main(): Promise<void> {
  const phase = argument('--phase');
  const tokenizer = argument('--tokenizer');
  if (phase !== undefined) {
    console.log(JSON.stringify(await runPhase(phase, argument('--file') as string, tokenizer)));
    return;
  }
  const rows = Number(argument('--rows') ?? 1_000_000);
  if (!Number.isInteger(rows) || rows < 1) throw new Error(`--rows takes a whole number above 0 (got ${argument('--rows')})`);
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-trace-bench-'));
  try {
    const path = join(dir, 'mooncake-style.jsonl');
    let started = performance.now();
    await writeTrace(path, rows);
    console.log(`trace: ${rows.toLocaleString('en-US')} rows, ${(statSync(path).size / 2 ** 20).toFixed(0)} MiB, written in ${((performance.now() - started) / 1000).toFixed(1)} s; counts: ${tokenizer ?? 'the estimate'}`);
    console.log('| phase | rows | time | rows/s | RSS at start | peak RSS | heap kept at the end (after a GC) | prompt text built | blocks cached |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const name of ['read', 'prompts']) {
      started = performance.now();
      const r = await runChild(name, path, tokenizer);
      console.log(
        `| ${r.phase} | ${r.rows.toLocaleString('en-US')} | ${r.seconds.toFixed(1)} s | ${Math.round(r.rows / r.seconds).toLocaleString('en-US')} | ${(r.startKiB / 1024).toFixed(0)} MiB | ${(r.peakKiB / 1024).toFixed(0)} MiB | ${(r.heapAfterGcKiB / 1024).toFixed(1)} MiB | ${r.promptChars === 0 ? '-' : `${(r.promptChars / 2 ** 30).toFixed(1)} GiB`} | ${r.cachedBlocks || '-'} |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
