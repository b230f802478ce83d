/**
 * `npm run bench:faults` (node dist/bench/faults.js): the fault and limit probes of issue 16, rerun
 * against this build. Each probe is bounded in time and requests and talks only to 127.0.0.1; the
 * command line runs as a child under `ulimit` where a limit is probed. Prints one table row per
 * probe: what was done, what happened (exit code, status, time, size) and whether that is the
 * expected behaviour.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runBenchmarkInWorker } from '../../src/load/worker-host';
import { RunConfigSchema } from '../../src/format/config';
import { parseResultDocument, type ResultDocument } from '../../src/format/result';
import { startSimServer } from '../../src/sim';
import { startTokenServer, TOKEN_SERVER_MODEL, type TokenServer } from '../helpers/cli-server';
import { runCliLimited, type LimitedOutcome } from '../helpers/limited-child';

/** Far above what a well-behaved probe takes: reaching it is the finding. */
const PROBE_LIMIT_MS = 60_000;

interface Row {
  probe: string;
  outcome: string;
  /** null: the probe could not run here (says why in the outcome), neither passed nor failed. */
  ok: boolean | null;
}

const rows: Row[] = [];
const workDir = mkdtempSync(join(tmpdir(), 'llmbench-faults-'));
let probeCount = 0;

function freshDir(): string {
  const dir = join(workDir, String(probeCount++));
  mkdirSync(dir);
  return dir;
}

function readResult(path: string): { doc: ResultDocument | null; text: string } {
  if (!existsSync(path)) return { doc: null, text: '' };
  const text = readFileSync(path, 'utf8');
  const parsed = parseResultDocument(text);
  return { doc: parsed.ok ? parsed.value : null, text };
}

const seconds = (o: LimitedOutcome): string => `${(o.elapsedMs / 1000).toFixed(1)} s`;
const exitOf = (o: LimitedOutcome): string => (o.timedOut ? `killed after ${seconds(o)}` : `exit ${o.code} in ${seconds(o)}`);
const lastLine = (text: string): string => text.trim().split('\n').at(-1)?.slice(0, 90) ?? '';

async function probeNoIoFailures(): Promise<void> {
  // A BigInt in the body cannot be serialized: every request fails before any I/O.
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
    request: { extraBody: { seed: 1n } },
    workload: { kind: 'synthetic', inputTokens: 4, outputTokens: 2 },
    profile: { kind: 'concurrency', levels: [300] },
    limits: { durationSec: 1 },
  });
  for (const cancelAfterMs of [null, 300]) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), cancelAfterMs ?? PROBE_LIMIT_MS);
    const started = performance.now();
    const doc = await runBenchmarkInWorker(cancelAfterMs === null ? config : { ...config, limits: { ...config.limits, durationSec: 100_000 } }, {
      workerScript: join(__dirname, '..', 'engine-worker.js'),
      signal: controller.signal,
    });
    clearTimeout(timer);
    const elapsed = (performance.now() - started) / 1000;
    const records = doc.steps[0]?.summary?.requests.total ?? 0;
    rows.push({
      probe: cancelAfterMs === null ? 'no-I/O failures, c=300, --duration 1' : 'no-I/O failures, c=300, cancel at 0.3 s',
      outcome: `ended in ${elapsed.toFixed(1)} s, ${records} records, status ${doc.status}`,
      ok: elapsed < (cancelAfterMs === null ? 5 : 4.3) && doc.status !== 'complete',
    });
  }
}

async function probeFdLimit(server: TokenServer): Promise<void> {
  const dir = freshDir();
  const o = await runCliLimited(['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--concurrency', '300', '--duration', '5', '--output-tokens', '4', '--out', 'r.llmbench.json'], {
    ulimit: ['-n', '256'],
    cwd: dir,
    timeoutMs: PROBE_LIMIT_MS,
  });
  rows.push({ probe: 'ulimit -n 256, c=300', outcome: `${exitOf(o)}, file written: ${existsSync(join(dir, 'r.llmbench.json'))}`, ok: o.code === 2 && !existsSync(join(dir, 'r.llmbench.json')) });
}

async function probeEmfile(): Promise<void> {
  const dir = freshDir();
  const o = await runCliLimited(['run', '--sim', 'tiny', '--concurrency', '150', '--duration', '3', '--output-tokens', '4', '--out', 'r.llmbench.json'], {
    ulimit: ['-n', '256'],
    cwd: dir,
    timeoutMs: PROBE_LIMIT_MS,
  });
  const { doc } = readResult(join(dir, 'r.llmbench.json'));
  rows.push({ probe: 'EMFILE mid-run (ulimit -n 256, --sim, c=150)', outcome: `${exitOf(o)}, status ${doc?.status ?? 'unreadable'}`, ok: o.code === 1 && doc?.status === 'failed' });
}

async function probeFullDisk(server: TokenServer): Promise<void> {
  const args = ['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--concurrency', '32', '--requests', '2000', '--output-tokens', '64', '--input-tokens', '64'];
  const judge = (probe: string, dir: string, o: LimitedOutcome) => {
    const { doc, text } = readResult(join(dir, 'a.llmbench.json'));
    const leftovers = readdirSync(dir).filter((f) => f.endsWith('.tmp'));
    rows.push({
      probe,
      outcome: `${exitOf(o)}, file ${doc ? `valid (${doc.steps[0]?.requests.length ?? 0} requests, ${text.length} B)` : 'INVALID'}, .tmp left: ${leftovers.length}`,
      ok: o.code === 1 && doc !== null && leftovers.length === 0 && /Cannot write the result file .*a\.llmbench\.json/.test(o.stderr),
    });
  };
  const limited = freshDir();
  judge('full disk: ulimit -f 64', limited, await runCliLimited([...args, '--out', 'a.llmbench.json'], { ulimit: ['-f', '64'], cwd: limited, timeoutMs: PROBE_LIMIT_MS }));

  const mountPoint = freshDir();
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mountPoint], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rows.push({ probe: 'full disk: tmpfs of 64 KB', outcome: `not run: mount refused (${lastLine(mounted.stderr)})`, ok: null });
    return;
  }
  try {
    judge('full disk: tmpfs of 64 KB', mountPoint, await runCliLimited([...args, '--out', 'a.llmbench.json'], { cwd: mountPoint, timeoutMs: PROBE_LIMIT_MS }));
  } finally {
    spawnSync('umount', [mountPoint]);
  }
}

async function probeHugeValues(server: TokenServer): Promise<void> {
  for (const flags of [['--timeout', '1e12'], ['--duration', '1e12'], ['--input-tokens', '1e12'], ['--concurrency', '1e12'], ['--concurrency', '10000000', '--duration', '3']]) {
    const dir = freshDir();
    const before = server.requests.length;
    const o = await runCliLimited(['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, ...(flags.includes('--duration') ? [] : ['--requests', '3']), ...flags, '--out', 'r.llmbench.json'], { cwd: dir, timeoutMs: PROBE_LIMIT_MS });
    const sent = server.requests.length - before;
    rows.push({
      probe: flags.join(' '),
      outcome: `${exitOf(o)}, ${sent} sent: ${lastLine(o.stderr).replace(/^llmbench: /, '')}`,
      ok: o.code === 2 && sent === 0 && /allowed/.test(o.stderr) && !existsSync(join(dir, 'r.llmbench.json')),
    });
  }
}

async function probeDatasets(server: TokenServer): Promise<void> {
  const dir = freshDir();
  writeFileSync(join(dir, 'empty.txt'), '');
  writeFileSync(join(dir, 'binary.jsonl'), Buffer.from([0x1b, 0x5b, 0x32, 0x4a, 0x07, 0x00, 0xff, 0x0a]));
  writeFileSync(join(dir, 'prompts.json'), '[]');
  for (const [file, format] of [['empty.txt', undefined], ['binary.jsonl', undefined], ['.', 'jsonl'], ['prompts.json', undefined]] as const) {
    const o = await runCliLimited(['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--requests', '1', '--dataset', file, ...(format ? ['--dataset-format', format] : []), '--out', 'r.llmbench.json'], {
      cwd: dir,
      timeoutMs: PROBE_LIMIT_MS,
    });
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f]/.test(o.stderr);
    rows.push({ probe: `--dataset ${file}${format ? ` --dataset-format ${format}` : ''}`, outcome: `${exitOf(o)}, raw control bytes: ${raw}`, ok: o.code === 2 && !raw });
  }
}

async function probeCredentials(server: TokenServer): Promise<void> {
  const dir = freshDir();
  const url = new URL(server.baseUrl);
  url.username = 'alice';
  url.password = 'hunter22';
  url.search = '?key=qk-secret-1';
  const o = await runCliLimited(['run', '--url', url.href, '--model', TOKEN_SERVER_MODEL, '--requests', '2', '--out', 'r.llmbench.json'], { cwd: dir, timeoutMs: PROBE_LIMIT_MS });
  const { text } = readResult(join(dir, 'r.llmbench.json'));
  const leaked = ['hunter22', 'qk-secret-1'].filter((s) => text.includes(s) || o.stdout.includes(s));
  rows.push({ probe: 'credentials in --url (user:pass@, ?key=)', outcome: `${exitOf(o)}, stored: ${leaked.join(', ') || 'none'}`, ok: o.code === 0 && leaked.length === 0 });
}

async function probeShortSweep(): Promise<void> {
  // Each request takes longer than the duration, at one in flight and at 256.
  const sim = await startSimServer({ preset: 'tiny', engine: { maxNumSeqs: 256, kvCacheTokens: 200_000, maxNumBatchedTokens: 8192 }, inWorker: true, workerScript: join(__dirname, '..', 'sim-worker.js') });
  try {
    const started = performance.now();
    const doc = await runBenchmarkInWorker(
      RunConfigSchema.parse({
        endpoint: { baseUrl: sim.baseUrl, model: sim.model },
        request: { extraBody: { ignore_eos: true } },
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 300 },
        profile: { kind: 'sweep', rateCount: 2 },
        limits: { durationSec: 0.2 },
      }),
      { workerScript: join(__dirname, '..', 'engine-worker.js') },
    );
    const throughput = doc.steps[1]?.summary?.requestsPerSecond ?? null;
    rows.push({
      probe: 'sweep, --duration 0.2, requests of ~2 s',
      outcome: `${doc.steps.length} steps in ${((performance.now() - started) / 1000).toFixed(1)} s, throughput ${throughput?.toFixed(1) ?? 'none'} req/s`,
      ok: doc.steps.length === 4 && throughput !== null,
    });
  } finally {
    await sim.close();
  }
}

function printTable(): void {
  const width = Math.max(...rows.map((r) => r.probe.length), 5);
  console.log(`\n${'probe'.padEnd(width)} | ok  | outcome`);
  console.log(`${'-'.repeat(width)}-|-----|${'-'.repeat(60)}`);
  for (const r of rows) console.log(`${r.probe.padEnd(width)} | ${r.ok === null ? '-  ' : r.ok ? 'yes' : 'NO '} | ${r.outcome}`);
  const failed = rows.filter((r) => r.ok === false).length;
  const notRun = rows.filter((r) => r.ok === null).length;
  console.log(`\n${rows.length - failed - notRun} of ${rows.length} probes behaved as expected, ${failed} did not, ${notRun} could not run here (working files in ${workDir}).`);
  process.exitCode = failed > 0 ? 1 : 0;
}

async function main(): Promise<void> {
  const server = await startTokenServer({ keepRequests: true });
  try {
    await probeNoIoFailures();
    await probeFdLimit(server);
    await probeEmfile();
    await probeFullDisk(server);
    await probeHugeValues(server);
    await probeDatasets(server);
    await probeCredentials(server);
    await probeShortSweep();
  } finally {
    await server.close();
  }
  printTable();
}

main().then(
  () => process.exit(),
  (error: unknown) => {
    printTable();
    console.error(error);
    process.exit(1);
  },
);
