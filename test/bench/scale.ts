/**
 * `npm run bench:scale`: how the client scales with workers (`--workers N`), what the workers'
 * common start instant is worth, and at what load one worker flags itself client-bound
 * (docs/performance.md, "Workers"). Every run is the real command line (`node dist/cli.js run`) in a
 * child process against the zero-delay token server (test/helpers/cli-server.ts) in another; its
 * figures are read back from the result file. Runs unchanged on any number of cores: it measures the
 * worker counts the machine allows and sizes the server by them.
 *
 *   node dist/bench/scale.js [scale] [skew] [threshold]
 *     --workers 1,2,4,8     worker counts to measure (default: 1, 2, 4, 8, ... up to the cores)
 *     --rounds N            alternating rounds of every count (default 3); medians are reported
 *     --duration S          seconds per measured step (default 4)
 *     --server-cpus LIST    pin the server (taskset -c), e.g. 1 or 8-15
 *     --client-cpus LIST    pin the client (taskset -c), e.g. 0 or 0-7
 *     --server-processes N  server processes sharing its port (default: a quarter of the cores, at least 1)
 *
 * 1. scale: streamed chunks/s and requests/s for each worker count, closed loop at 128 requests in
 *    flight per worker, 64 one-token chunks per response, each round's figure as a ratio to one
 *    worker in the same round (neighbours in time share the load of other jobs);
 * 2. skew: 20 short steps with the most workers measured; per step, how much later than the common
 *    start instant the last worker began than the first (p50 / max);
 * 3. threshold: one worker, open-loop steps of rising rate against a server that spreads each
 *    response's 64 chunks 5 ms apart; per step the chunks/s received, the worker's busy share, loop
 *    delay and send lateness, and whether the step was flagged client-bound.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseResultDocument, type ResultDocument } from '../../src/format/result';
import { crossedFigure } from '../../src/load/client-bound';
import { quantileOfSorted } from '../../src/results/stats';
import { TOKEN_SERVER_MODEL } from '../helpers/cli-server';
import { serveIfAsked, spawnServer, type ServerProcess } from './lib/server-process';

const cliPath = join(dirname(__dirname), 'cli.js');
const CHUNKS = 64;
const PER_WORKER_CONCURRENCY = 128;

interface Options {
  workers: number[];
  rounds: number;
  durationSec: number;
  serverCpus: string | undefined;
  clientCpus: string | undefined;
  serverProcesses: number;
  phases: string[];
}

function parseOptions(argv: string[]): Options {
  const cores = availableParallelism();
  const value = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at === -1 ? undefined : argv[at + 1];
  };
  const flagged = new Set(['--workers', '--rounds', '--duration', '--server-cpus', '--client-cpus', '--server-processes']);
  const phases = argv.filter((arg, i) => !arg.startsWith('--') && !flagged.has(argv[i - 1] ?? ''));
  const powers = [1, 2, 4, 8, 16, 32, 64, 128].filter((n) => n <= Math.max(cores, 2));
  return {
    workers: value('--workers')?.split(',').map(Number) ?? powers,
    rounds: Number(value('--rounds') ?? 3),
    durationSec: Number(value('--duration') ?? 4),
    serverCpus: value('--server-cpus'),
    clientCpus: value('--client-cpus'),
    serverProcesses: Number(value('--server-processes') ?? Math.max(1, Math.floor(cores / 4))),
    phases: phases.length > 0 ? phases : ['scale', 'skew', 'threshold'],
  };
}

const median = (values: number[]): number => quantileOfSorted(Float64Array.from(values).sort(), 0.5);
const f = (n: number, digits = 0): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** One `llmbench run` in a child process (pinned when asked); its result document. */
function runCli(options: Options, args: string[]): ResultDocument {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-scale-'));
  const out = join(dir, 'r.llmbench.json');
  const command = [process.execPath, cliPath, 'run', '--model', TOKEN_SERVER_MODEL, '--server-metrics', 'off', '--input-tokens', '16', '--out', out, ...args];
  const [program, ...rest] = options.clientCpus === undefined ? command : ['taskset', '-c', options.clientCpus, ...command];
  try {
    const child = spawnSync(program as string, rest, { encoding: 'utf8', timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
    const parsed = parseResultDocument(readFileSync(out, 'utf8'));
    if (!parsed.ok) throw new Error(`${parsed.error}\n${child.stderr}`);
    if (parsed.value.status !== 'complete') throw new Error(`the run ended ${parsed.value.status}: ${parsed.value.statusReason ?? ''}\n${child.stderr}`);
    return parsed.value;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function printTable(title: string, head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(head));
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  for (const row of rows) console.log(line(row));
}

async function withServer<T>(options: Options, serverOptions: Record<string, unknown>, use: (server: ServerProcess) => Promise<T> | T): Promise<T> {
  const server = await spawnServer({ traceWrites: false, ...serverOptions }, options.serverCpus);
  try {
    return await use(server);
  } finally {
    server.stop();
  }
}

/** Chunks and requests per second of a closed-loop step, from its records: first measured send to last end. */
function throughputOf(doc: ResultDocument): { chunks: number; requests: number; busy: number[] } {
  const step = doc.steps[0]!;
  const seconds = step.summary?.durationSec ?? NaN;
  const chunks = step.requests.reduce((n, r) => n + (r.warmup ? 0 : r.chunkMs.length), 0);
  return { chunks: chunks / seconds, requests: step.summary?.requestsPerSecond ?? NaN, busy: (step.client?.threads ?? []).map((t) => t.busy ?? NaN) };
}

async function scalePhase(options: Options): Promise<void> {
  const byWorkers = new Map<number, { chunks: number[]; requests: number[]; ratio: number[]; busy: number[] }>();
  await withServer(options, { defaultTokens: CHUNKS, processes: options.serverProcesses }, (server) => {
    for (let round = 0; round < options.rounds; round++) {
      let one = NaN;
      for (const workers of options.workers) {
        const doc = runCli(options, ['--url', server.baseUrl, '--profile', 'concurrency', '--concurrency', String(PER_WORKER_CONCURRENCY * workers), '--duration', String(options.durationSec), '--requests', '10000000', '--warmup', String(PER_WORKER_CONCURRENCY * workers), '--output-tokens', String(CHUNKS), '--workers', String(workers)]);
        const measured = throughputOf(doc);
        if (workers === 1) one = measured.chunks;
        const entry = byWorkers.get(workers) ?? { chunks: [], requests: [], ratio: [], busy: [] };
        entry.chunks.push(measured.chunks);
        entry.requests.push(measured.requests);
        entry.ratio.push(measured.chunks / one);
        entry.busy.push(...measured.busy);
        byWorkers.set(workers, entry);
        console.error(`  round ${round + 1}, ${workers} worker(s): ${f(measured.chunks)} chunks/s (load average ${loadavg()[0]?.toFixed(2)})`);
      }
    }
  });
  printTable(
    `1. Closed loop, ${PER_WORKER_CONCURRENCY} requests in flight per worker, ${CHUNKS} chunks per response, zero-delay server (${options.serverProcesses} process${options.serverProcesses === 1 ? '' : 'es'}${options.serverCpus ? `, cpus ${options.serverCpus}` : ''}), client${options.clientCpus ? ` on cpus ${options.clientCpus}` : ' unpinned'}; medians of ${options.rounds} alternating rounds`,
    ['workers', 'chunks/s', 'requests/s', 'ratio to 1 worker (range)', 'goal 0.85 x N', 'workers busy (median)'],
    [...byWorkers].map(([workers, e]) => [
      String(workers),
      f(median(e.chunks)),
      f(median(e.requests), 1),
      `${f(median(e.ratio), 2)} (${f(Math.min(...e.ratio), 2)}-${f(Math.max(...e.ratio), 2)})`,
      f(0.85 * workers, 2),
      f(median(e.busy), 2),
    ]),
  );
}

async function skewPhase(options: Options): Promise<void> {
  const rows: string[][] = [];
  await withServer(options, { defaultTokens: 4, processes: options.serverProcesses }, (server) => {
    for (const workers of options.workers.filter((n) => n > 1)) {
      const levels = Array.from({ length: 20 }, () => String(16 * workers)).join(',');
      const doc = runCli(options, ['--url', server.baseUrl, '--profile', 'concurrency', '--concurrency', levels, '--requests', String(32 * workers), '--output-tokens', '4', '--workers', String(workers)]);
      const skews = doc.steps.map((s) => s.client?.startSkewMs ?? NaN);
      rows.push([String(workers), String(skews.length), f(median(skews), 3), f(Math.max(...skews), 3)]);
    }
  });
  printTable('2. Step-start skew across workers: the last worker to begin against the first, per step (20 steps)', ['workers', 'steps', 'skew p50 (ms)', 'skew max (ms)'], rows);
}

async function thresholdPhase(options: Options): Promise<void> {
  const gapMs = 5;
  const rates = [250, 500, 1000, 1500, 2000, 3000, 4000, 5000];
  const doc = await withServer(options, { defaultTokens: CHUNKS, gapMs, processes: options.serverProcesses }, (server) =>
    runCli(options, ['--url', server.baseUrl, '--profile', 'rate', '--rate', rates.join(','), '--arrival', 'constant', '--duration', '3', '--output-tokens', String(CHUNKS), '--workers', '1']),
  );
  printTable(
    `3. One worker, open loop, ${CHUNKS} chunks per response ${gapMs} ms apart: where it flags itself client-bound`,
    ['target req/s', 'target chunks/s', 'received chunks/s', 'busy', 'CPU', 'core wait', 'loop delay p99 (ms)', 'send lateness p99 (ms)', 'flagged'],
    doc.steps.map((step) => {
      const t = step.client?.threads[0];
      const bound = step.summary?.warnings?.find((w) => w.kind === 'client-bound');
      const warning = bound ? crossedFigure(bound) : null;
      return [
        f(step.profile.rate ?? NaN),
        f((step.profile.rate ?? NaN) * CHUNKS),
        f(t?.chunksPerSecond ?? NaN),
        f(t?.busy ?? NaN, 2),
        f(t?.cpuShare ?? NaN, 2),
        f(t?.coreWaitShare ?? NaN, 2),
        f(t?.loopDelayMs?.p99 ?? NaN, 1),
        f(t?.sendLatenessMs?.p99 ?? NaN, 1),
        warning ? `${warning.figure} ${f(warning.value, 2)}` : 'no',
      ];
    }),
  );
}

async function main(): Promise<void> {
  if (serveIfAsked()) return;
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`Scale benchmark (node ${process.version}, ${availableParallelism()} cores, load average ${load()}); workers ${options.workers.join(', ')}`);
  const phases: Record<string, (o: Options) => Promise<void>> = { scale: scalePhase, skew: skewPhase, threshold: thresholdPhase };
  for (const name of options.phases) {
    const phase = phases[name];
    if (phase === undefined) throw new Error(`Unknown phase ${name}: choose from ${Object.keys(phases).join(', ')}.`);
    await phase(options);
  }
  console.log(`\nTotal ${f((performance.now() - started) / 1000)} s, load average at the end ${load()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
