/**
 * `npm run bench:memory` (node dist/bench/memory.js [--requests 10000,100000,1000000] [--shards 4]): the memory a
 * run costs per request. Each size runs `llmbench run` as its own child against a token server on
 * 127.0.0.1 that streams 4 one-token chunks at once (so the run is as fast as the client allows),
 * at concurrency 64 with 4-token prompts. The child's peak resident set (VmHWM from /proc, which
 * takes in its worker thread) is read while it runs. The cost per request is the growth of the
 * peak over the smallest run, and over the size before, divided by the extra requests; the goal
 * (issue 16) is at most 512 bytes per request plus 8 bytes per chunk time. Prints one row per size.
 *
 * With `--shards N`, each size is also run as one run of N shards (`--shards N`, N local processes,
 * shard 0 coordinating on a free loopback port), and the coordinator's peak is set against the one
 * process's (issue 24: within 1.5x). The plan is the same: request k is shard k mod N's.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { closedPort, startTokenServer, TOKEN_SERVER_MODEL } from '../helpers/cli-server';
import { cliPath } from '../helpers/limited-child';
import { residentKiB } from './lib/proc-status';

const CHUNKS_PER_REQUEST = 4;
const GOAL_BYTES_PER_REQUEST = 512 + 8 * CHUNKS_PER_REQUEST;
const BASELINE_REQUESTS = 1_000;
/** Issue 24: a shard run's coordinator may take at most this much the memory of one process running the whole plan. */
const SHARD_GOAL_RATIO = 1.5;
/** Each size may take this long per request at the most (a run at 0.5 ms per request is far slower than expected). */
const LIMIT_MS_PER_REQUEST = 2;

interface Measured {
  requests: number;
  peakKiB: number;
  seconds: number;
  fileMiB: number;
  code: number | null;
}


/** One process per shard (`shards` > 1: 0 coordinates, on a free loopback port); the peak is process 0's. */
async function runOnce(baseUrl: string, requests: number, shards = 1): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-memory-'));
  const out = join(dir, 'r.llmbench.json');
  const args = [cliPath, 'run', '--url', baseUrl, '--model', TOKEN_SERVER_MODEL, '--concurrency', '64', '--requests', String(requests)];
  args.push('--warmup', '0', '--input-tokens', '4', '--output-tokens', String(CHUNKS_PER_REQUEST), '--out', out);
  const coordinator = shards > 1 ? `127.0.0.1:${await closedPort()}` : null;
  const started = performance.now();
  const children = Array.from({ length: shards }, (_, shard) =>
    spawn(process.execPath, coordinator === null ? args : [...args, '--shards', String(shards), '--shard', String(shard), '--coordinator', coordinator], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...(coordinator === null ? {} : { LLMBENCH_RUN_TOKEN: `memory-bench-${process.pid}-${requests}` }) },
    }),
  );
  const child = children[0]!;
  const stderr = children.map(() => '');
  children.forEach((c, i) => c.stderr.on('data', (chunk: Buffer) => (stderr[i] = (stderr[i] + chunk.toString()).slice(-2_000))));
  let peakKiB = 0;
  const poll = setInterval(() => {
    const now = child.pid === undefined ? null : residentKiB(child.pid, 'VmHWM');
    if (now !== null) peakKiB = Math.max(peakKiB, now);
  }, 50);
  const limit = setTimeout(() => children.forEach((c) => c.kill('SIGKILL')), 30_000 + requests * LIMIT_MS_PER_REQUEST);
  const codes = await Promise.all(children.map((c) => new Promise<number | null>((resolve) => c.on('exit', resolve))));
  clearInterval(poll);
  clearTimeout(limit);
  const seconds = (performance.now() - started) / 1000;
  let fileMiB = 0;
  try {
    fileMiB = statSync(out).size / 2 ** 20;
  } catch {
    // No file: reported through the exit code.
  }
  rmSync(dir, { recursive: true, force: true });
  codes.forEach((code, i) => {
    if (code !== 0) console.error(`run of ${requests} requests${shards > 1 ? `, shard ${i} of ${shards}` : ''} ended with exit ${code}: ${stderr[i]!.trim().split('\n').at(-1) ?? ''}`);
  });
  return { requests, peakKiB, seconds, fileMiB, code: codes.find((code) => code !== 0) ?? codes[0] ?? null };
}

/** `--shards N`: each size is also run as N shards of one run (N processes, each sending a 1/N of the requests), against the one process. */
function shardsFromArgs(): number {
  const at = process.argv.indexOf('--shards');
  if (at < 0) return 1;
  const n = Number(process.argv[at + 1]);
  if (!Number.isInteger(n) || n < 2) throw new Error(`--shards takes a whole number of 2 or more (got "${process.argv[at + 1] ?? ''}")`);
  return n;
}

function sizesFromArgs(): number[] {
  const at = process.argv.indexOf('--requests');
  const list = at >= 0 ? (process.argv[at + 1] ?? '') : '10000,100000';
  const sizes = list.split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n <= BASELINE_REQUESTS)) {
    throw new Error(`--requests takes whole numbers above ${BASELINE_REQUESTS}, comma-separated (got "${list}")`);
  }
  return sizes;
}

async function main(): Promise<void> {
  const sizes = sizesFromArgs();
  const shards = shardsFromArgs();
  const sharded: { one: Measured; many: Measured }[] = [];
  const server = await startTokenServer({ keepRequests: false, defaultTokens: CHUNKS_PER_REQUEST });
  try {
    const baseline = await runOnce(server.baseUrl, BASELINE_REQUESTS);
    console.log(`goal: at most ${GOAL_BYTES_PER_REQUEST} bytes per request (512 + 8 per chunk time, ${CHUNKS_PER_REQUEST} chunks each)`);
    console.log('| requests | peak RSS | growth per request over 1,000 | per request over the size before | run time | result file | exit |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    const perRequest = (m: Measured, from: Measured): string => {
      const bytes = ((m.peakKiB - from.peakKiB) * 1024) / (m.requests - from.requests);
      return `${bytes.toFixed(0)} B${bytes > GOAL_BYTES_PER_REQUEST ? ' (over the goal)' : ''}`;
    };
    const row = (m: Measured, overBaseline: string, overBefore: string) =>
      console.log(
        `| ${m.requests.toLocaleString('en-US')} | ${(m.peakKiB / 1024).toFixed(0)} MiB | ${overBaseline} | ${overBefore} | ${m.seconds.toFixed(1)} s | ${m.fileMiB.toFixed(1)} MiB | ${m.code} |`,
      );
    row(baseline, '-', '-');
    let before = baseline;
    for (const requests of sizes) {
      const m = await runOnce(server.baseUrl, requests);
      row(m, perRequest(m, baseline), perRequest(m, before));
      before = m;
      if (shards > 1) sharded.push({ one: m, many: await runOnce(server.baseUrl, requests, shards) });
    }
    if (sharded.length > 0) {
      console.log(`\n${shards} shards of one run (each its share of the requests; the coordinator, shard 0, writes every record into the one file) against one process; goal (issue 24): the coordinator's peak within ${SHARD_GOAL_RATIO}x the one process's`);
      console.log(`| requests | one process: peak RSS | ${shards} shards: coordinator's peak RSS | ratio | ${shards} shards: run time | result file | exit |`);
      console.log('|---:|---:|---:|---:|---:|---:|---:|');
      for (const { one, many } of sharded) {
        const ratio = many.peakKiB / one.peakKiB;
        console.log(
          `| ${one.requests.toLocaleString('en-US')} (${shards} x ${(one.requests / shards).toLocaleString('en-US')}) | ${(one.peakKiB / 1024).toFixed(0)} MiB | ${(many.peakKiB / 1024).toFixed(0)} MiB | ${ratio.toFixed(2)}x${ratio > SHARD_GOAL_RATIO ? ' (over the goal)' : ''} | ${many.seconds.toFixed(1)} s | ${many.fileMiB.toFixed(1)} MiB | ${many.code} |`,
        );
      }
    }
  } finally {
    await server.close();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
