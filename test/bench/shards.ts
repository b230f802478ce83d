/**
 * `node dist/bench/shards.js`: what the shard runtime's clocks are worth (docs/performance.md,
 * "Shards"). Each round is a real 4-shard run (`node dist/cli.js run ... --shards 4`) against the
 * token server in a child process (test/bench/lib/server-process.ts), shard 3 with its clock moved
 * by +300 ms (LLMBENCH_TEST_CLOCK_SHIFT_MS). With `--srun`, the 4 shards are the tasks of
 * `srun -n 4 --overcommit` on the one-node Slurm cluster of test/helpers/slurm.ts.
 *
 *   node dist/bench/shards.js [--rounds N] [--srun]
 *
 * Per round, from the result file:
 * - start skew: per step, how much later than the common start instant (each shard's own clock,
 *   corrected by its offset) the last shard began than the first (`client.startSkewMs`), and from
 *   the records: per shard, the send lateness of its first request (sentMs - scheduledMs of the open
 *   loop's schedule), the spread of that over the 4 shards;
 * - offset error: shard 3's measured offset minus the 300 ms injected (all shards share this
 *   machine's clock, so 300 ms is the truth), against the uncertainty the run recorded.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseResultDocument } from '../../src/format/result';
import { quantileOfSorted } from '../../src/results/stats';
import { closedPort, TOKEN_SERVER_MODEL } from '../helpers/cli-server';
import { runBounded as run } from '../helpers/processes';
import { startSlurmCluster, type SlurmCluster } from '../helpers/slurm';
import { serveIfAsked, spawnServer } from './lib/server-process';

const cliPath = join(dirname(__dirname), 'cli.js');
const SHIFT_MS = 300;

const p = (xs: number[], q: number): number => quantileOfSorted([...xs].sort((a, b) => a - b), q);
const fmt = (xs: number[]): string => `p50 ${p(xs, 0.5).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms (n=${xs.length})`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rounds = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 5;
  const useSrun = args.includes('--srun');
  const server = await spawnServer({ firstTokenMs: 1, gapMs: 1 });
  let slurm: SlurmCluster | undefined;
  try {
    if (useSrun) slurm = await startSlurmCluster();
    const stepSkews: number[] = [];
    const recordSkews: number[] = [];
    const offsetErrors: number[] = [];
    const uncertainties: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'llmbench-bench-shards-'));
      const out = join(dir, 'run.llmbench.json');
      const port = await closedPort();
      const flags = ['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--input-tokens', '16', '--output-tokens', '4', '--server-metrics', 'off', '--profile', 'rate', '--rate', '20,40', '--arrival', 'constant', '--requests', '40', '--out', out, '--shards', '4'];
      const env = { ...process.env, LLMBENCH_RUN_TOKEN: `bench-${round}-${performance.now()}` };
      const began = performance.now();
      let outcomes: { code: number | null; output: string }[];
      if (slurm) {
        // srun gives every task the same environment: the shift goes to task 3 through a wrapper.
        const shifted = `if [ "$SLURM_PROCID" = 3 ]; then export LLMBENCH_TEST_CLOCK_SHIFT_MS=${SHIFT_MS}; fi; exec "$@"`;
        outcomes = [await run('srun', ['-n', '4', '--overcommit', 'bash', '-c', shifted, 'bash', process.execPath, cliPath, ...flags, '--coordinator', `:${port}`], { ...slurm.env, ...env }, 180_000)];
      } else {
        outcomes = await Promise.all(
          [0, 1, 2, 3].map((i) => run(process.execPath, [cliPath, ...flags, '--shard', String(i), '--coordinator', `127.0.0.1:${port}`], { ...env, ...(i === 3 ? { LLMBENCH_TEST_CLOCK_SHIFT_MS: String(SHIFT_MS) } : {}) }, 180_000)),
        );
      }
      const failed = outcomes.find((o) => o.code !== 0);
      if (failed) throw new Error(`round ${round}: a shard failed:\n${failed.output}`);
      const parsed = parseResultDocument(readFileSync(out, 'utf8'));
      if (!parsed.ok) throw new Error(parsed.error);
      const doc = parsed.value;
      for (const step of doc.steps) {
        if (step.client?.startSkewMs != null) stepSkews.push(step.client.startSkewMs);
        const firsts = [0, 1, 2, 3].map((shard) => {
          const own = step.requests.filter((r) => r.worker === shard).sort((a, b) => a.scheduledMs - b.scheduledMs)[0];
          return own ? own.sentMs - own.scheduledMs : NaN;
        });
        recordSkews.push(Math.max(...firsts) - Math.min(...firsts));
      }
      const m = doc.shards!.members[3]!;
      offsetErrors.push(Math.abs((m.offsetMs ?? NaN) - SHIFT_MS));
      uncertainties.push(m.uncertaintyMs ?? NaN);
      console.log(`round ${round + 1}/${rounds}: ${Math.round(performance.now() - began)} ms; shard 3 offset ${m.offsetMs} ± ${m.uncertaintyMs} ms; step skews ${doc.steps.map((s) => s.client?.startSkewMs?.toFixed(2)).join(', ')} ms`);
      rmSync(dir, { recursive: true, force: true });
    }
    console.log(`\n4 shards (${slurm ? 'srun -n 4 --overcommit on a one-node Slurm cluster' : '4 local processes'}), ${rounds} rounds x 2 open-loop steps of 40 requests:`);
    console.log(`start skew, the shards' own start lateness (client.startSkewMs): ${fmt(stepSkews)}`);
    console.log(`start skew, first request's send lateness spread over the shards:  ${fmt(recordSkews)}`);
    console.log(`offset error against the injected +${SHIFT_MS} ms: ${fmt(offsetErrors)}; the uncertainty recorded: ${fmt(uncertainties)}`);
  } finally {
    await slurm?.stop();
    server.stop();
  }
}

// The server child serves until its stdin closes; the bench itself exits once its rounds are done.
if (!serveIfAsked()) {
  void main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
