/**
 * `npm run bench:memory` (node dist/bench/memory.js [--requests 10000,100000,1000000]): the memory a
 * run costs per request. Each size runs `llmbench run` as its own child against a token server on
 * 127.0.0.1 that streams 4 one-token chunks at once (so the run is as fast as the client allows),
 * at concurrency 64 with 4-token prompts. The child's peak resident set (VmHWM from /proc, which
 * takes in its worker thread) is read while it runs. The cost per request is the growth of the
 * peak over the smallest run, and over the size before, divided by the extra requests; the goal
 * (issue 16) is at most 512 bytes per request plus 8 bytes per chunk time. Prints one row per size.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startTokenServer, TOKEN_SERVER_MODEL } from '../helpers/cli-server';
import { cliPath } from '../helpers/limited-child';
import { residentKiB } from './lib/proc-status';

const CHUNKS_PER_REQUEST = 4;
const GOAL_BYTES_PER_REQUEST = 512 + 8 * CHUNKS_PER_REQUEST;
const BASELINE_REQUESTS = 1_000;
/** Each size may take this long per request at the most (a run at 0.5 ms per request is far slower than expected). */
const LIMIT_MS_PER_REQUEST = 2;

interface Measured {
  requests: number;
  peakKiB: number;
  seconds: number;
  fileMiB: number;
  code: number | null;
}


function runOnce(baseUrl: string, requests: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-memory-'));
  const out = join(dir, 'r.llmbench.json');
  const args = [cliPath, 'run', '--url', baseUrl, '--model', TOKEN_SERVER_MODEL, '--concurrency', '64', '--requests', String(requests)];
  args.push('--warmup', '0', '--input-tokens', '4', '--output-tokens', String(CHUNKS_PER_REQUEST), '--out', out);
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2_000)));
  let peakKiB = 0;
  const poll = setInterval(() => {
    const now = child.pid === undefined ? null : residentKiB(child.pid, 'VmHWM');
    if (now !== null) peakKiB = Math.max(peakKiB, now);
  }, 50);
  const limit = setTimeout(() => child.kill('SIGKILL'), 30_000 + requests * LIMIT_MS_PER_REQUEST);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
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
      if (code !== 0) console.error(`run of ${requests} requests ended with exit ${code}: ${stderr.trim().split('\n').at(-1) ?? ''}`);
      resolve({ requests, peakKiB, seconds, fileMiB, code });
    });
  });
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
    }
  } finally {
    await server.close();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
