/**
 * `npm run bench:engine`: how much the engine costs next to a bare undici loop, against the same
 * token server (test/helpers/cli-server.ts) running in a child process (so the server never shares the client's event
 * loop). Prints four tables (issue 2, "Performance"):
 *   1. streamed chunks/s, requests/s and CPU time per chunk at concurrency 64, 256, 1024 (zero-delay server);
 *   2. CPU time per chunk of the engine run in this thread, warm, next to the bare loop: the client's own cost;
 *   3. TTFT and inter-chunk gap errors against a server programmed with a 50 ms first token and
 *      10 ms gaps, at concurrency 64 and 256: the engine in its worker while this thread is kept
 *      busy (blocked 20 ms of every 100 ms), next to the bare loop on an idle thread; both time a
 *      request from when undici writes it to its connection;
 *   4. a Poisson 400 req/s run: achieved versus target rate;
 *   5. the end of a big run on the calling thread;
 *   6. reasoning streams (half of each response in `delta.reasoning`, then the answer) beside plain
 *      ones, alternating in the same run: chunks/s and CPU time per chunk (issue 25's goal: at
 *      least 0.9 of plain's chunks/s).
 * Every phase is bounded in requests and seconds; the whole takes a couple of minutes. Naming
 * phases on the command line (`throughput`, `cpu`, `timing`, `rate`, `end`, `reasoning`) runs only those.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { parseResultDocument, type RequestRecord } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { runBenchmarkInWorker } from '../../src/load/worker-host';
import { createWorkload } from '../../src/workload/sources';
import { createTokenCounter } from '../../src/workload/tokenizer';
import { promptKey, TOKEN_SERVER_MODEL, type WriteTrace } from '../helpers/cli-server';
import { serveIfAsked, spawnServer, type ServerProcess } from './lib/server-process';

const WORKER_SCRIPT = join(__dirname, '..', 'engine-worker.js');
const PHASE_LIMIT_SEC = 30;
/** Alternating bare/engine runs per concurrency: the machine is shared, one run alone can be unlucky. */
const ROUNDS = 4;

/**
 * Per request: its prompt, send time, first content chunk, every content chunk, end (ms, one clock).
 * Sent is when the request is written to its connection, for both clients (docs/metrics.md).
 */
interface Timing {
  prompt: string;
  sentMs: number;
  firstTokenMs: number | null;
  chunkMs: number[];
  endMs: number | null;
}

interface Measured {
  timings: Timing[];
  /** First send to last end, seconds. */
  durationSec: number;
  /**
   * CPU time of this process (every thread: the engine's worker, its start and the document's
   * transfer included; not the server's) per content chunk received, warm-up requests included, µs.
   */
  cpuUsPerChunk: number;
}

function cpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

// ---- the two clients ------------------------------------------------------------------------

/** Names a bare-loop request in its headers, so that undici's send event can be matched to it. */
const BARE_REQUEST_HEADER = 'x-bare-request';

/**
 * Stamps each bare-loop request's send time when undici writes it to its connection (the
 * `undici:client:sendHeaders` diagnostics event), the moment the engine stamps its own (its
 * dispatch handler's onRequestStart), until the returned function is called.
 */
function stampSendsOnWrite(timings: Map<string, Timing>): () => void {
  const onSendHeaders = (message: unknown): void => {
    const headers = (message as { request?: { headers?: unknown } }).request?.headers;
    if (!Array.isArray(headers)) return;
    const at = headers.indexOf(BARE_REQUEST_HEADER);
    if (at < 0) return;
    const key = String(headers[at + 1]);
    const timing = timings.get(key);
    if (timing === undefined) return;
    timing.sentMs = performance.now();
    timings.delete(key);
  };
  subscribe('undici:client:sendHeaders', onSendHeaders);
  return () => unsubscribe('undici:client:sendHeaders', onSendHeaders);
}

/** The least a streaming client must do: POST, split SSE events, parse each, note content chunks. */
async function bareLoop(baseUrl: string, concurrency: number, requests: number, outputTokens: number): Promise<Measured> {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 60_000 });
  const url = `${baseUrl}/chat/completions`;
  const payload = (prompt: string) =>
    JSON.stringify({
      model: TOKEN_SERVER_MODEL,
      messages: [{ role: 'user', content: prompt }],
      max_tokens: outputTokens,
      stream: true,
      stream_options: { include_usage: true },
    });
  const timings: Timing[] = [];
  const unsent = new Map<string, Timing>();
  const stopStamping = stampSendsOnWrite(unsent);
  const cpuAtStart = cpuUs();
  const deadline = performance.now() + PHASE_LIMIT_SEC * 1000;
  let next = 0;
  const one = async (index: number, prompt: string): Promise<Timing> => {
    const body = payload(prompt);
    const key = String(index);
    const timing: Timing = { prompt, sentMs: performance.now(), firstTokenMs: null, chunkMs: [], endMs: null };
    unsent.set(key, timing);
    const headers = { 'content-type': 'application/json', [BARE_REQUEST_HEADER]: key };
    const response = await request(url, { method: 'POST', dispatcher: agent, headers, body });
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
      const index = next++;
      timings.push(await one(index, `bare request ${index}: ${'x '.repeat(16)}`));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  stopStamping();
  await agent.close();
  const chunks = timings.reduce((sum, t) => sum + t.chunkMs.length, 0);
  return { timings, durationSec: spanSec(timings), cpuUsPerChunk: (cpuUs() - cpuAtStart) / chunks };
}

async function engineRun(config: Omit<RunConfigInput, 'endpoint'>, baseUrl: string): Promise<{ measured: Measured; records: RequestRecord[]; summary: unknown }> {
  const parsed = RunConfigSchema.parse({ endpoint: { baseUrl, model: TOKEN_SERVER_MODEL }, ...config });
  const cpuAtStart = cpuUs();
  const resultPath = join(mkdtempSync(join(tmpdir(), 'llmbench-bench-')), 'engine.llmbench.json');
  const overview = await runBenchmarkInWorker(parsed, { workerScript: WORKER_SCRIPT, resultPath });
  const cpuUsed = cpuUs() - cpuAtStart;
  // The worker answers with an overview; the records are in the result file.
  const read = parseResultDocument(readFileSync(resultPath, 'utf8'));
  rmSync(dirname(resultPath), { recursive: true, force: true });
  if (!read.ok) throw new Error(`the engine's result file: ${read.error}`);
  const doc = read.value;
  if (overview.status !== doc.status) throw new Error(`the worker said ${overview.status}, the file ${doc.status}`);
  const step = doc.steps[0];
  if (!step || doc.status !== 'complete') throw new Error(`engine run ended ${doc.status}: ${doc.statusReason ?? ''}`);
  const records = step.requests.filter((r) => !r.warmup);
  const failed = records.filter((r) => r.error !== null);
  if (failed.length > 0) throw new Error(`${failed.length} engine requests failed, first: ${failed[0]?.error?.message}`);
  // The same seeded workload the engine drew from: a one-step run sends prompt i as request i.
  const workload = await createWorkload(parsed, await createTokenCounter());
  const promptOf = (index: number) => {
    const prompt = workload.request(index).prompt;
    return promptKey(typeof prompt === 'string' ? { prompt } : { messages: prompt });
  };
  const timings = records.map((r) => ({ prompt: promptOf(r.index), sentMs: r.sentMs, firstTokenMs: r.firstTokenMs, chunkMs: r.chunkMs, endMs: r.endMs }));
  const chunks = step.requests.reduce((sum, r) => sum + r.chunkMs.length, 0);
  return { measured: { timings, durationSec: spanSec(timings), cpuUsPerChunk: cpuUsed / chunks }, records, summary: step.summary };
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const chunkCount = (m: Measured) => m.timings.reduce((sum, t) => sum + t.chunkMs.length, 0);

interface TimingErrors {
  /** Measured TTFT minus the programmed one: what a user of the client sees. */
  ttftVsProgram: Quantiles;
  /** Measured TTFT minus the server's own arrival-to-first-write time: the client's share. */
  ttftClient: Quantiles;
  /** |measured gap - the server's gap between the same two writes|: the client's share. */
  gapClient: Quantiles;
  /** How late the server wrote each chunk against its programme. */
  serverLateness: Quantiles;
  matched: number;
}

/**
 * Errors of measured times, matched to the server's own trace of the same request by prompt.
 * Taking the server's actual write times out leaves what the client adds: event-loop delay,
 * parsing and the loopback socket.
 */
function timingErrors(m: Measured, writes: Map<string, WriteTrace>, firstTokenMs: number, gapMs: number): TimingErrors {
  const ttftVsProgram: number[] = [];
  const ttftClient: number[] = [];
  const gapClient: number[] = [];
  const serverLateness: number[] = [];
  let matched = 0;
  for (const t of m.timings) {
    const w = writes.get(t.prompt);
    if (t.firstTokenMs === null || w === undefined || w.writtenMs.length !== t.chunkMs.length) continue;
    matched++;
    const ttft = t.firstTokenMs - t.sentMs;
    ttftVsProgram.push(ttft - firstTokenMs);
    ttftClient.push(ttft - ((w.writtenMs[0] as number) - w.arrivedMs));
    w.writtenMs.forEach((ms, k) => serverLateness.push(ms - (w.arrivedMs + firstTokenMs + gapMs * k)));
    for (let k = 1; k < t.chunkMs.length; k++) {
      const measured = (t.chunkMs[k] as number) - (t.chunkMs[k - 1] as number);
      const served = (w.writtenMs[k] as number) - (w.writtenMs[k - 1] as number);
      gapClient.push(Math.abs(measured - served));
    }
  }
  return { ttftVsProgram: quantiles(ttftVsProgram), ttftClient: quantiles(ttftClient), gapClient: quantiles(gapClient), serverLateness: quantiles(serverLateness), matched };
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
      // Warm the server's JIT and the bare loop's connections; the engine warms up per run.
      await bareLoop(server.baseUrl, concurrency, concurrency, outputTokens);
      // Alternating rounds, each engine run compared with the bare run just before it: load from
      // other jobs drifts, and neighbours in time share most of it.
      const bare: Measured[] = [];
      const engine: Measured[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        bare.push(await bareLoop(server.baseUrl, concurrency, requests, outputTokens));
        const load = { ...engineLoad(concurrency, requests, outputTokens), limits: { requests, durationSec: PHASE_LIMIT_SEC, warmup: concurrency } };
        engine.push((await engineRun(load, server.baseUrl)).measured);
      }
      const chunkRate = (m: Measured) => chunkCount(m) / m.durationSec;
      const requestRate = (m: Measured) => m.timings.length / m.durationSec;
      const ratios = engine.map((m, round) => chunkRate(m) / chunkRate(bare[round] as Measured));
      rows.push([
        String(concurrency),
        f(median(bare.map(chunkRate)), 0),
        f(median(engine.map(chunkRate)), 0),
        `${f(100 * median(ratios), 0)}% (${f(100 * Math.min(...ratios), 0)}-${f(100 * Math.max(...ratios), 0)}%)`,
        f(median(bare.map((m) => m.cpuUsPerChunk)), 2),
        f(median(engine.map((m) => m.cpuUsPerChunk)), 2),
        f(median(bare.map(requestRate)), 0),
        f(median(engine.map(requestRate)), 0),
        `${requests} x ${ROUNDS}`,
      ]);
      console.error(`  throughput at concurrency ${concurrency} done`);
    }
  } finally {
    server.stop();
  }
  printTable(
    `1. Zero-delay server, ${outputTokens} chunks per response (engine in its worker; bare undici loop on the main thread); medians of ${ROUNDS} alternating runs.\n` +
      `   engine/bare: median (range) of each engine run over the bare run before it. CPU: this process's CPU time per chunk received, over the whole run (the engine's: its worker's start too).`,
    ['concurrency', 'bare chunks/s', 'engine chunks/s', 'engine/bare', 'bare CPU µs/chunk', 'engine CPU µs/chunk', 'bare req/s', 'engine req/s', 'requests per run'],
    rows,
  );
}

/** CPU time per chunk of an engine run in this thread (no worker start), all requests counted, µs. */
async function engineInThreadCpu(config: Omit<RunConfigInput, 'endpoint'>, baseUrl: string): Promise<number> {
  const parsed = RunConfigSchema.parse({ endpoint: { baseUrl, model: TOKEN_SERVER_MODEL }, ...config });
  const cpuAtStart = cpuUs();
  const doc = await runBenchmark(parsed, {});
  const cpuUsed = cpuUs() - cpuAtStart;
  const requests = doc.steps[0]?.requests ?? [];
  if (doc.status !== 'complete' || requests.some((r) => r.error !== null)) throw new Error(`engine run ended ${doc.status}: ${doc.statusReason ?? ''}`);
  return cpuUsed / requests.reduce((sum, r) => sum + r.chunkMs.length, 0);
}

/**
 * What the client itself costs per chunk, which the throughput table cannot show once the server
 * (sharing the 2 cores) is the bottleneck: CPU time per chunk of the engine run in this thread
 * (warm, no worker start) next to the bare loop, alternating; the first round only warms up.
 */
async function cpuPhase(): Promise<void> {
  const outputTokens = 64;
  const concurrency = 256;
  const requests = 4000;
  const server = await spawnServer({ defaultTokens: outputTokens });
  const bare: number[] = [];
  const engine: number[] = [];
  try {
    for (let round = 0; round <= ROUNDS; round++) {
      const bareCpu = (await bareLoop(server.baseUrl, concurrency, requests, outputTokens)).cpuUsPerChunk;
      const engineCpu = await engineInThreadCpu(engineLoad(concurrency, requests, outputTokens), server.baseUrl);
      if (round === 0) continue;
      bare.push(bareCpu);
      engine.push(engineCpu);
    }
  } finally {
    server.stop();
  }
  const range = (values: number[]) => `${f(median(values), 2)} (${f(Math.min(...values), 2)}-${f(Math.max(...values), 2)})`;
  printTable(
    `2. CPU time per chunk in one thread, warm: the engine (runBenchmark in this thread) and the bare loop, concurrency ${concurrency},\n` +
      `   ${outputTokens} chunks per response, ${requests} requests per run; median (range) of ${ROUNDS} alternating runs after a warm-up round`,
    ['client', 'CPU µs/chunk'],
    [
      ['bare loop', range(bare)],
      ['engine', range(engine)],
    ],
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
      await server.writes();
      const bareRun = await bareLoop(server.baseUrl, concurrency, requests, outputTokens);
      const bare = timingErrors(bareRun, await server.writes(), firstTokenMs, gapMs);
      const stopBusy = keepThreadBusy();
      let engineRunMeasured: Measured;
      try {
        const load = { ...engineLoad(concurrency, requests, outputTokens), limits: { requests, durationSec: PHASE_LIMIT_SEC, warmup: concurrency } };
        engineRunMeasured = (await engineRun(load, server.baseUrl)).measured;
      } finally {
        stopBusy();
      }
      const engine = timingErrors(engineRunMeasured, await server.writes(), firstTokenMs, gapMs);
      for (const [client, e, total] of [['bare loop, idle thread', bare, bareRun.timings.length], ['engine (worker), busy host thread', engine, engineRunMeasured.timings.length]] as const) {
        rows.push([`${concurrency}`, client, q(e.ttftVsProgram), q(e.ttftClient), q(e.gapClient), q(e.serverLateness), `${e.matched}/${total}`]);
      }
      console.error(`  timing at concurrency ${concurrency} done`);
    }
  } finally {
    server.stop();
  }
  printTable(
    `3. Server programmed with ${firstTokenMs} ms to the first token and ${gapMs} ms gaps, ${outputTokens} chunks; ms as p50 / p99 / max.\n` +
      `   Both clients time from writing the request to its connection. "client" columns take out the server's own times for the same\n` +
      `   request (matched by prompt; arrival when its headers were parsed, each chunk when written): what the client, the loopback and\n` +
      `   the server's reading add.`,
    ['concurrency', 'client', 'TTFT - 50', 'client TTFT error', 'client |gap error|', 'server write lateness', 'matched'],
    rows,
  );
}

/**
 * How long the end of a big run holds the calling thread (the extension host's, in VS Code): from
 * the worker's run-end event to runBenchmarkInWorker resolving, and the longest stall a 1 ms timer
 * saw on that thread meanwhile. The worker's answer used to be the whole document, re-validated
 * here; it is now an overview without the request records.
 */
async function endPhase(): Promise<void> {
  const server = await spawnServer({ defaultTokens: 4 });
  const requests = 10_000;
  const rows: string[][] = [];
  try {
    for (let round = 0; round < 3; round++) {
      const config = RunConfigSchema.parse({
        endpoint: { baseUrl: server.baseUrl, model: TOKEN_SERVER_MODEL },
        workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 4 },
        profile: { kind: 'concurrency', levels: [64] },
        limits: { requests, durationSec: PHASE_LIMIT_SEC },
        request: { extraBody: { ignore_eos: true } },
      });
      let runEndAt = 0;
      let tick = performance.now();
      let longestStall = 0;
      const sampler = setInterval(() => {
        const now = performance.now();
        if (runEndAt > 0) longestStall = Math.max(longestStall, now - tick - 1);
        tick = now;
      }, 1);
      const dir = mkdtempSync(join(tmpdir(), 'llmbench-bench-end-'));
      try {
        await runBenchmarkInWorker(config, {
          workerScript: WORKER_SCRIPT,
          resultPath: join(dir, 'end.llmbench.json'),
          onEvent: (event) => {
            if (event.type === 'run-end') runEndAt = performance.now();
          },
        });
        const resolvedAt = performance.now();
        // One more timer turn, so a stall that ended with the resolve is seen.
        await new Promise((r) => setTimeout(r, 5));
        rows.push([String(round + 1), String(requests), f(resolvedAt - runEndAt, 1), f(longestStall, 1)]);
      } finally {
        clearInterval(sampler);
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    server.stop();
  }
  printTable(
    `5. The end of a ${requests}-request run on the calling thread (zero-delay server, 4 chunks each, concurrency 64)`,
    ['round', 'requests', 'run-end event to resolve (ms)', 'longest stall of a 1 ms timer meanwhile (ms)'],
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
      `4. Poisson arrivals at ${rate} req/s, ${requests} requests (zero-delay server, 4 chunks each)`,
      ['target req/s', 'achieved (summary)', 'sends/s (first to last send)', 'deviation', 'send lateness ms p50 / p99 / max'],
      [[String(rate), f(summary.achievedRate ?? NaN, 2), f(sendRate, 2), `${f((100 * (sendRate - rate)) / rate, 2)}%`, q(lateSends)]],
    );
  } finally {
    server.stop();
  }
}

/**
 * What reading reasoning costs: the engine (in its worker) against a zero-delay server whose
 * responses stream their first half as `delta.reasoning` (then as `reasoning_content`), beside the
 * same server streaming plain content, alternating run by run. Both shapes are read through chunk
 * templates, one per part of a response; the records of reasoning runs are checked to hold the split.
 */
async function reasoningPhase(): Promise<void> {
  const outputTokens = 64;
  const concurrency = 256;
  const requests = 4000;
  const servers = {
    plain: await spawnServer({ defaultTokens: outputTokens }),
    reasoning: await spawnServer({ defaultTokens: outputTokens, reasoningTokens: outputTokens / 2 }),
    reasoning_content: await spawnServer({ defaultTokens: outputTokens, reasoningTokens: outputTokens / 2, reasoningField: 'reasoning_content' }),
  };
  const measured: Record<keyof typeof servers, Measured[]> = { plain: [], reasoning: [], reasoning_content: [] };
  try {
    for (const server of Object.values(servers)) await bareLoop(server.baseUrl, concurrency, concurrency, outputTokens);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, server] of Object.entries(servers) as [keyof typeof servers, ServerProcess][]) {
        const load = { ...engineLoad(concurrency, requests, outputTokens), limits: { requests, durationSec: PHASE_LIMIT_SEC, warmup: concurrency } };
        const run = await engineRun(load, server.baseUrl);
        if (kind !== 'plain') {
          const split = run.records.every((r) => r.reasoning?.chunks === outputTokens / 2 && r.reasoning.answerChunk === outputTokens / 2);
          if (!split) throw new Error(`a ${kind} run's records do not hold the ${outputTokens / 2} / ${outputTokens / 2} split`);
        }
        measured[kind].push(run.measured);
      }
      console.error(`  reasoning round ${round + 1} done`);
    }
  } finally {
    for (const server of Object.values(servers)) server.stop();
  }
  const chunkRate = (m: Measured) => chunkCount(m) / m.durationSec;
  const rows = (Object.keys(measured) as (keyof typeof servers)[]).map((kind) => {
    const ratios = measured[kind].map((m, round) => chunkRate(m) / chunkRate(measured.plain[round] as Measured));
    return [
      kind === 'plain' ? 'plain content' : `half in delta.${kind}`,
      f(median(measured[kind].map(chunkRate)), 0),
      kind === 'plain' ? '1.00' : `${f(median(ratios), 2)} (${f(Math.min(...ratios), 2)}-${f(Math.max(...ratios), 2)})`,
      f(median(measured[kind].map((m) => m.cpuUsPerChunk)), 2),
    ];
  });
  printTable(
    `6. Reasoning streams beside plain ones: zero-delay servers, ${outputTokens} chunks per response (the first ${outputTokens / 2} reasoning), concurrency ${concurrency},\n` +
      `   ${requests} requests per run, engine in its worker; medians of ${ROUNDS} rounds, each round running the three one after the other. Ratio: over the plain run of the same round (goal >= 0.9).`,
    ['stream', 'engine chunks/s', 'over plain', 'CPU µs/chunk'],
    rows,
  );
}

async function main(): Promise<void> {
  if (serveIfAsked()) return;
  const started = performance.now();
  const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
  // Naming phases (throughput, timing, rate) runs only those: e.g. to profile one.
  const chosen = process.argv.slice(2);
  const phases = { throughput: throughputPhase, cpu: cpuPhase, timing: timingPhase, rate: ratePhase, end: endPhase, reasoning: reasoningPhase };
  const unknown = chosen.filter((name) => !(name in phases));
  if (unknown.length > 0) throw new Error(`Unknown phase ${unknown.join(', ')}: choose from ${Object.keys(phases).join(', ')}.`);
  console.log(`Engine benchmark (node ${process.version}, ${cpus().length} cores, load average ${load()})`);
  for (const [name, phase] of Object.entries(phases)) if (chosen.length === 0 || chosen.includes(name)) await phase();
  console.log(`\nTotal ${f((performance.now() - started) / 1000, 0)} s, load average at the end ${load()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
