/**
 * `npm run bench:engine`: how much the engine costs next to a bare undici loop, against the same
 * token server (test/helpers/cli-server.ts) running in a child process (so the server never shares the client's event
 * loop). Prints three tables (issue 2, "Performance"):
 *   1. streamed chunks/s and requests/s at concurrency 64, 256, 1024 (zero-delay server);
 *   2. TTFT and inter-chunk gap errors against a server programmed with a 50 ms first token and
 *      10 ms gaps, at concurrency 64 and 256: the engine in its worker while this thread is kept
 *      busy (blocked 20 ms of every 100 ms), next to the bare loop on an idle thread;
 *   3. a Poisson 400 req/s run: achieved versus target rate.
 * Every phase is bounded in requests and seconds; the whole takes a couple of minutes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import type { RequestRecord } from '../../src/format/result';
import { runBenchmarkInWorker } from '../../src/engine/index';
import { TOKEN_SERVER_MODEL, startTokenServer, type TokenServerOptions } from '../helpers/cli-server';

const WORKER_SCRIPT = join(__dirname, '..', 'engine-worker.js');
const PHASE_LIMIT_SEC = 30;

/** Per request: send time, first content chunk, every content chunk, end (ms, one clock). */
interface Timing {
  sentMs: number;
  firstTokenMs: number | null;
  chunkMs: number[];
  endMs: number | null;
}

interface Measured {
  timings: Timing[];
  /** First send to last end, seconds. */
  durationSec: number;
}

// ---- the server, in a child process --------------------------------------------------------

/** Child mode: serve, print `port N`, answer `lateness` on stdin with the timer lateness so far. */
async function serve(options: TokenServerOptions): Promise<void> {
  const server = await startTokenServer({ ...options, keepRequests: false });
  process.stdout.write(`port ${server.port}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line === 'lateness') {
      process.stdout.write(`lateness ${JSON.stringify(quantiles(server.lateness))}\n`);
      server.lateness.length = 0;
    }
  });
  lines.on('close', () => void server.close().then(() => process.exit(0)));
}

interface ServerProcess {
  baseUrl: string;
  lateness(): Promise<Quantiles>;
  stop(): void;
}

async function spawnServer(options: TokenServerOptions): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [__filename, '--serve', JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const waiters: Array<(line: string) => void> = [];
  lines.on('line', (line) => waiters.shift()?.(line));
  const nextLine = () => new Promise<string>((resolve) => waiters.push(resolve));
  const port = Number((await nextLine()).split(' ')[1]);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    async lateness() {
      child.stdin!.write('lateness\n');
      return JSON.parse((await nextLine()).slice('lateness '.length)) as Quantiles;
    },
    stop: () => child.stdin!.end(),
  };
}

// ---- the two clients ------------------------------------------------------------------------

/** The least a streaming client must do: POST, split SSE events, parse each, note content chunks. */
async function bareLoop(baseUrl: string, concurrency: number, requests: number, outputTokens: number): Promise<Measured> {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 60_000 });
  const url = `${baseUrl}/chat/completions`;
  const payload = JSON.stringify({
    model: TOKEN_SERVER_MODEL,
    messages: [{ role: 'user', content: 'x '.repeat(16) }],
    max_tokens: outputTokens,
    stream: true,
    stream_options: { include_usage: true },
  });
  const timings: Timing[] = [];
  const deadline = performance.now() + PHASE_LIMIT_SEC * 1000;
  let next = 0;
  const one = async (): Promise<Timing> => {
    const timing: Timing = { sentMs: performance.now(), firstTokenMs: null, chunkMs: [], endMs: null };
    const response = await request(url, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: payload });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const part of response.body) {
      const now = performance.now();
      buffer += decoder.decode(part as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
        const chunk = JSON.parse(event.slice(6)) as { choices: Array<{ delta?: { content?: string | null } }> };
        if (chunk.choices[0]?.delta?.content) {
          timing.firstTokenMs ??= now;
          timing.chunkMs.push(now);
          timing.endMs = now;
        }
      }
    }
    return timing;
  };
  const loop = async () => {
    while (next < requests && performance.now() < deadline) {
      next++;
      timings.push(await one());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  await agent.close();
  return { timings, durationSec: spanSec(timings) };
}

async function engineRun(config: Omit<RunConfigInput, 'endpoint'>, baseUrl: string): Promise<{ measured: Measured; records: RequestRecord[]; summary: unknown }> {
  const parsed = RunConfigSchema.parse({ endpoint: { baseUrl, model: TOKEN_SERVER_MODEL }, ...config });
  const doc = await runBenchmarkInWorker(parsed, { workerScript: WORKER_SCRIPT });
  const step = doc.steps[0];
  if (!step || doc.status !== 'complete') throw new Error(`engine run ended ${doc.status}: ${doc.statusReason ?? ''}`);
  const records = step.requests.filter((r) => !r.warmup);
  const failed = records.filter((r) => r.error !== null);
  if (failed.length > 0) throw new Error(`${failed.length} engine requests failed, first: ${failed[0]?.error?.message}`);
  const timings = records.map((r) => ({ sentMs: r.sentMs, firstTokenMs: r.firstTokenMs, chunkMs: r.chunkMs, endMs: r.endMs }));
  return { measured: { timings, durationSec: spanSec(timings) }, records, summary: step.summary };
}

const engineLoad = (concurrency: number, requests: number, outputTokens: number): Omit<RunConfigInput, 'endpoint'> => ({
  workload: { kind: 'synthetic', inputTokens: 16, outputTokens },
  profile: { kind: 'concurrency', levels: [concurrency] },
  limits: { requests, durationSec: PHASE_LIMIT_SEC },
  request: { extraBody: { ignore_eos: true } },
});

// ---- figures ----------------------------------------------------------------------------------

function spanSec(timings: Timing[]): number {
  const start = Math.min(...timings.map((t) => t.sentMs));
  const end = Math.max(...timings.map((t) => t.endMs ?? t.sentMs));
  return (end - start) / 1000;
}

interface Quantiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

function quantiles(values: number[]): Quantiles {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN };
}

const chunkCount = (m: Measured) => m.timings.reduce((sum, t) => sum + t.chunkMs.length, 0);

/** Error of each measured TTFT against the programmed one, and of each gap between chunks. */
function timingErrors(m: Measured, firstTokenMs: number, gapMs: number): { ttft: Quantiles; gap: Quantiles } {
  const ttft = m.timings.flatMap((t) => (t.firstTokenMs === null ? [] : [t.firstTokenMs - t.sentMs - firstTokenMs]));
  const gaps = m.timings.flatMap((t) => t.chunkMs.slice(1).map((ms, i) => Math.abs(ms - (t.chunkMs[i] as number) - gapMs)));
  return { ttft: quantiles(ttft), gap: quantiles(gaps) };
}

const f = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const q = (x: Quantiles) => `${f(x.p50, 2)} / ${f(x.p99, 2)} / ${f(x.max, 1)}`;

function printTable(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(`\n${title}\n${line(header)}\n| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |\n${rows.map(line).join('\n')}`);
}

/** Blocks this thread 20 ms of every 100 ms, as a busy extension host does. */
function keepThreadBusy(): () => void {
  const timer = setInterval(() => {
    const until = performance.now() + 20;
    while (performance.now() < until);
  }, 100);
  return () => clearInterval(timer);
}

// ---- phases -------------------------------------------------------------------------------------

async function throughputPhase(): Promise<void> {
  const outputTokens = 64;
  const server = await spawnServer({ defaultTokens: outputTokens });
  const rows: string[][] = [];
  try {
    for (const [concurrency, requests] of [[64, 3000], [256, 4000], [1024, 6000]] as const) {
      // Warm both clients' connections and the server's JIT before measuring.
      await bareLoop(server.baseUrl, concurrency, concurrency, outputTokens);
      const bare = await bareLoop(server.baseUrl, concurrency, requests, outputTokens);
      const engine = (await engineRun({ ...engineLoad(concurrency, requests, outputTokens), limits: { requests, durationSec: PHASE_LIMIT_SEC, warmup: concurrency } }, server.baseUrl)).measured;
      const bareChunks = chunkCount(bare) / bare.durationSec;
      const engineChunks = chunkCount(engine) / engine.durationSec;
      rows.push([
        String(concurrency),
        f(bareChunks, 0),
        f(engineChunks, 0),
        `${f((100 * engineChunks) / bareChunks, 0)}%`,
        f(bare.timings.length / bare.durationSec, 0),
        f(engine.timings.length / engine.durationSec, 0),
        `${bare.timings.length} / ${engine.timings.length}`,
      ]);
      console.error(`  throughput at concurrency ${concurrency} done`);
    }
  } finally {
    server.stop();
  }
  printTable(
    `1. Zero-delay server, ${outputTokens} chunks per response (engine in its worker; bare undici loop on the main thread)`,
    ['concurrency', 'bare chunks/s', 'engine chunks/s', 'engine/bare', 'bare req/s', 'engine req/s', 'requests bare / engine'],
    rows,
  );
}

async function timingPhase(): Promise<void> {
  const firstTokenMs = 50;
  const gapMs = 10;
  const outputTokens = 16;
  const server = await spawnServer({ firstTokenMs, gapMs, defaultTokens: outputTokens });
  const rows: string[][] = [];
  try {
    for (const [concurrency, requests] of [[64, 1600], [256, 3200]] as const) {
      await bareLoop(server.baseUrl, concurrency, concurrency, outputTokens);
      await server.lateness();
      const bare = timingErrors(await bareLoop(server.baseUrl, concurrency, requests, outputTokens), firstTokenMs, gapMs);
      const bareServer = await server.lateness();
      const stopBusy = keepThreadBusy();
      let engine: ReturnType<typeof timingErrors>;
      try {
        const run = await engineRun({ ...engineLoad(concurrency, requests, outputTokens), limits: { requests, durationSec: PHASE_LIMIT_SEC, warmup: concurrency } }, server.baseUrl);
        engine = timingErrors(run.measured, firstTokenMs, gapMs);
      } finally {
        stopBusy();
      }
      const engineServer = await server.lateness();
      rows.push([`${concurrency}`, 'bare loop, idle thread', q(bare.ttft), q(bare.gap), q(bareServer)]);
      rows.push([`${concurrency}`, 'engine (worker), busy host thread', q(engine.ttft), q(engine.gap), q(engineServer)]);
      console.error(`  timing at concurrency ${concurrency} done`);
    }
  } finally {
    server.stop();
  }
  printTable(
    `2. Server programmed with ${firstTokenMs} ms to the first token and ${gapMs} ms gaps, ${outputTokens} chunks; errors in ms as p50 / p99 / max`,
    ['concurrency', 'client', 'TTFT error (measured - 50)', '|gap error|', "server's own timer lateness"],
    rows,
  );
}

async function ratePhase(): Promise<void> {
  const server = await spawnServer({ defaultTokens: 4 });
  const rate = 400;
  const requests = 2400;
  try {
    const run = await engineRun(
      {
        workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 4 },
        profile: { kind: 'rate', rates: [rate], arrival: 'poisson' },
        limits: { requests, durationSec: PHASE_LIMIT_SEC },
        request: { extraBody: { ignore_eos: true } },
      },
      server.baseUrl,
    );
    const summary = run.summary as { achievedRate?: number | null; targetRate?: number | null; requestsPerSecond: number | null };
    const sent = run.records.map((r) => r.sentMs).sort((a, b) => a - b);
    const sendSpanSec = ((sent.at(-1) ?? 0) - (sent[0] ?? 0)) / 1000;
    const sendRate = (sent.length - 1) / sendSpanSec;
    const lateSends = quantiles(run.records.map((r) => r.sentMs - r.scheduledMs));
    printTable(
      `3. Poisson arrivals at ${rate} req/s, ${requests} requests (zero-delay server, 4 chunks each)`,
      ['target req/s', 'achieved (summary)', 'sends/s (first to last send)', 'deviation', 'send lateness ms p50 / p99 / max'],
      [[String(rate), f(summary.achievedRate ?? NaN, 2), f(sendRate, 2), `${f((100 * (sendRate - rate)) / rate, 2)}%`, q(lateSends)]],
    );
  } finally {
    server.stop();
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === '--serve') return serve(JSON.parse(process.argv[3] ?? '{}') as TokenServerOptions);
  const started = performance.now();
  console.log(`Engine benchmark (node ${process.version}, ${(await import('node:os')).cpus().length} cores)`);
  await throughputPhase();
  await timingPhase();
  await ratePhase();
  console.log(`\nTotal ${f((performance.now() - started) / 1000, 0)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
