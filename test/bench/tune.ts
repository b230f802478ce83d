/**
 * `node dist/bench/tune.js [--seeds N] [--speedup X] [--requests N] [--table FILE] [--target SHARE]`: how many launched trials the
 * tuner's search (tpe) needs to reach 95% of the best objective, against random search, on the
 * simulator with a known optimum.
 *  1. Every combination of a small vLLM-like space (max_num_seqs x max_num_batched_tokens x chunked
 *     prefill) is measured once, through the real pipeline: `runTune` launches `llmbench sim` (the
 *     qwen2-7b-a100-vllm preset with a KV cache of 8,192 tokens, at --speedup) per combination,
 *     benchmarks it at concurrency 96 and scores output tokens/s (within a loose p99 TTFT SLO). The
 *     best of this exhaustive grid is the optimum.
 *  2. Each strategy then searches that space over many seeds, its trials scored from the measured
 *     table (a trial's objective is what that combination measured): launching a server per trial
 *     again would take hours on 2 cores, and the table keeps the comparison free of run-to-run noise.
 *     Refused combinations cost no launch and are not counted.
 * `--target SHARE` (default 0.95) sets the share of the optimum to reach: 0.975 leaves only the peak, a
 * rarer target on the same measured values. Goal: tpe needs at most a third of random's trials. Figures go
 * to docs/performance.md ("## Tuning").
 *  3. Coverage: each strategy's first `--coverage-trials N` (default 10) launched trials per seed, and
 *     for each bool and short choice (the parameters the search's start covers), by which launched
 *     trial every value had been tried, and how many trials the most tried value took.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SEARCH_STRATEGIES, TuneConfigSchema, type Params, type SearchConfig, type TuneConfig, type TuneConfigInput } from '../../src/format/tune';
import { checkConstraints, runTune } from '../../src/tune/index';
import { COVERED_CHOICE_VALUES, createSearch, startupTrials, type Observation } from '../../src/tune/search';
import { commandFor, paramsKey, type Space } from '../../src/tune/space';

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const SEEDS = flag('--seeds', 20);
/**
 * Low on purpose: above a few thousand streamed tokens per second the client on a shared 2-core
 * machine, not the simulated engine, sets the figures (at x20 every TPOT read 4 to 10 ms where the
 * model said 0.5 to 1.4).
 */
const SPEEDUP = flag('--speedup', 2);
const REQUESTS = flag('--requests', 96);
/** `--target SHARE`: a trial reaches the optimum when it scores at least this share of it. */
const TARGET_SHARE = flag('--target', 0.95);
/** The TTFT SLO in model milliseconds (the simulator divides measured times by the speedup): loose, it rules out only queues of seconds. */
const TTFT_SLO_MS = 20_000;
/** `--table FILE`: the measured grid is read from FILE when it exists, else measured and written there. */
/**
 * `--ignored N` (with a measured table only, never launched): N bool parameters that change nothing
 * by construction: a trial's value is the measured value of its combination without them. The space
 * is 2^N times larger with the same share of good combinations, and the search has N parameters
 * that change nothing to see through.
 */
const IGNORED = flag('--ignored', 0);
/** `--coverage-trials N`: the launched trials per seed the coverage report looks at (the issue's tune had 10). */
const COVERAGE_TRIALS = flag('--coverage-trials', 10);
const tableIndex = process.argv.indexOf('--table');
const TABLE_FILE = tableIndex === -1 ? undefined : process.argv[tableIndex + 1];

const distDir = join(__dirname, '..');
const llmbenchCommand = [process.execPath, join(distDir, 'cli.js')];

const SPACE_INPUT = {
  max_num_seqs: { type: 'choice', values: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128, 192, 256] },
  max_num_batched_tokens: { type: 'choice', values: [512, 1024, 2048, 4096, 8192] },
  enable_chunked_prefill: { type: 'bool', true: '--enable-chunked-prefill', false: '--no-enable-chunked-prefill' },
} as const;

function tuneConfig(space: TuneConfigInput['space'], strategy: SearchConfig['strategy'], seed: number): TuneConfig {
  return TuneConfigSchema.parse({
    server: {
      // A KV cache of 8,192 tokens holds 32 whole sequences of this workload: beyond that, admitted
      // sequences are preempted and recomputed, so the optimum of max_num_seqs is inside the range.
      command: ['llmbench', 'sim', '--preset', 'qwen2-7b-a100-vllm', '--speedup', String(SPEEDUP), '--port', '{port}', '--max-model-len', '4096', '--kv-cache-tokens', '8192',
        '--max-num-seqs', '{max_num_seqs}', '--max-num-batched-tokens', '{max_num_batched_tokens}', '{enable_chunked_prefill}'],
      readyPath: '/v1/models',
      startTimeoutSec: 60,
      stopGraceSec: 5,
    },
    space,
    constraints: ['vllm'],
    benchmark: {
      workload: { kind: 'synthetic', inputTokens: 128, outputTokens: 128 },
      request: { extraBody: { ignore_eos: true } },
      profile: { kind: 'concurrency', levels: [96] },
      limits: { requests: REQUESTS },
    },
    objective: { maximize: 'outputTokensPerSecond', slo: { 'ttftMs.p99': TTFT_SLO_MS / SPEEDUP } },
    budget: { trials: 1 },
    search: { strategy, seed },
    // One measurement per combination: the table is the search's view; noise is kept out of the comparison.
    remeasure: false,
  });
}

function combinations(space: Space): Params[] {
  return Object.entries(space).reduce<Params[]>(
    (partial, [name, spec]) => partial.flatMap((params) => (spec.type === 'bool' ? [false, true] : spec.type === 'choice' ? spec.values : []).map((value) => ({ ...params, [name]: value }))),
    [{}],
  );
}

/** Each allowed combination's objective (null: missed the SLO or failed), measured by a one-trial tune of that combination alone. */
async function measureGrid(config: TuneConfig): Promise<Map<string, number | null>> {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-bench-tune-'));
  const table = new Map<string, number | null>();
  const all = combinations(config.space);
  const allowed = all.filter((p) => !checkConstraints(config.constraints, p, commandFor(config.server, config.space, p, null, llmbenchCommand)));
  process.stderr.write(`Measuring ${allowed.length} allowed of ${all.length} combinations (speedup ${SPEEDUP}, ${REQUESTS} requests each)...\n`);
  const started = performance.now();
  for (const [i, params] of allowed.entries()) {
    // The combination alone: each parameter a one-value choice (the bool as the argument it stands for).
    const single = Object.fromEntries(
      Object.entries(params).map(([name, value]) => [name, { type: 'choice', values: [typeof value === 'boolean' ? (value ? '--enable-chunked-prefill' : '--no-enable-chunked-prefill') : value] }]),
    );
    const file = await runTune({
      config: tuneConfig(single as TuneConfigInput['space'], 'tpe', 1),
      configDir: dir,
      outPath: join(dir, `grid-${i}.llmtune.json`),
      resume: false,
      llmbenchCommand,
      engineWorkerScript: join(distDir, 'engine-worker.js'),
    });
    const trial = file.trials.find((t) => t.status !== 'refused');
    if (!trial) throw new Error(`combination ${JSON.stringify(params)} was not launched: ${file.statusReason}`);
    if (trial.status !== 'complete') process.stderr.write(`  ${JSON.stringify(params)}: ${trial.status}: ${trial.reason}\n`);
    table.set(paramsKey(params), trial.objective);
    process.stderr.write(`  [${i + 1}/${allowed.length}] ${JSON.stringify(params)}: ${trial.objective === null ? `missed (${JSON.stringify(trial.slo?.figures)})` : trial.objective.toFixed(0)}\n`);
  }
  process.stderr.write(`Grid measured in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  return table;
}

/** Launched trials until the best objective reaches the target (refusals free); every allowed combination at most. */
const ignoredNames = Array.from({ length: IGNORED }, (_, i) => `ignored_${i + 1}`);
const measuredParams = (params: Params): Params => Object.fromEntries(Object.entries(params).filter(([name]) => !ignoredNames.includes(name)));

function trialsToTarget(config: TuneConfig, table: Map<string, number | null>, target: number): number {
  const allowed = (p: Params) => checkConstraints(config.constraints, p, commandFor(config.server, config.space, p, null, llmbenchCommand)) === undefined;
  const search = createSearch(config.space, config.search, allowed);
  const history: Observation[] = [];
  let launched = 0;
  for (;;) {
    const params = search.propose(history);
    if (params === undefined) return launched;
    if (!allowed(params)) {
      history.push({ params, score: null });
      continue;
    }
    launched++;
    const score = table.get(paramsKey(measuredParams(params))) ?? null;
    history.push({ params, score });
    if (score !== null && score >= target) return launched;
  }
}

/** The parameters whose every value the search's start covers (bools, choices of at most COVERED_CHOICE_VALUES values), with their values. */
function coveredParameters(space: Space): [string, readonly Params[string][]][] {
  return Object.entries(space).flatMap(([name, spec]): [string, readonly Params[string][]][] =>
    spec.type === 'bool' ? [[name, [false, true]]] : spec.type === 'choice' && spec.values.length <= COVERED_CHOICE_VALUES ? [[name, spec.values]] : [],
  );
}

/** Per covered parameter, over one seed's first `trials` launched trials: when every value had been tried (null: not within them), and the most trials one value took. */
function coverage(config: TuneConfig, table: Map<string, number | null>, trials: number): Map<string, { allBy: number | null; most: number }> {
  const allowed = (p: Params) => checkConstraints(config.constraints, p, commandFor(config.server, config.space, p, null, llmbenchCommand)) === undefined;
  const search = createSearch(config.space, config.search, allowed);
  const history: Observation[] = [];
  const launched: Params[] = [];
  while (launched.length < trials) {
    const params = search.propose(history);
    if (params === undefined) break;
    if (!allowed(params)) {
      history.push({ params, score: null });
      continue;
    }
    launched.push(params);
    history.push({ params, score: table.get(paramsKey(measuredParams(params))) ?? null });
  }
  return new Map(
    coveredParameters(config.space).map(([name, values]) => {
      const counts = values.map((v) => launched.filter((p) => p[name] === v).length);
      const allBy = launched.findIndex((_, i) => values.every((v) => launched.slice(0, i + 1).some((p) => p[name] === v)));
      return [name, { allBy: allBy === -1 ? null : allBy + 1, most: Math.max(...counts) }];
    }),
  );
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, median: at(0.5), p90: at(0.9), max: sorted.at(-1)! };
};

async function main(): Promise<void> {
  if (IGNORED > 0 && !(TABLE_FILE && existsSync(TABLE_FILE))) throw new Error('--ignored needs --table FILE with a measured grid');
  const measuredSpace = tuneConfig(SPACE_INPUT as unknown as TuneConfigInput['space'], 'tpe', 1);
  const searchSpace = { ...SPACE_INPUT, ...Object.fromEntries(ignoredNames.map((name) => [name, { type: 'bool', true: `--${name}` }])) };
  const base = IGNORED > 0 ? tuneConfig(searchSpace as unknown as TuneConfigInput['space'], 'tpe', 1) : measuredSpace;
  const table = TABLE_FILE && existsSync(TABLE_FILE) ? new Map<string, number | null>(JSON.parse(readFileSync(TABLE_FILE, 'utf8'))) : await measureGrid(measuredSpace);
  if (TABLE_FILE && !existsSync(TABLE_FILE)) writeFileSync(TABLE_FILE, JSON.stringify([...table.entries()]));
  const scores = [...table.values()].filter((v): v is number => v !== null);
  const optimum = Math.max(...scores);
  const target = TARGET_SHARE * optimum;
  const best = [...table.entries()].find(([, v]) => v === optimum)![0];
  const withinTarget = scores.filter((v) => v >= target).length;
  process.stdout.write(`\nGrid: ${table.size} allowed combinations measured, ${scores.length} within the SLO; optimum ${optimum.toFixed(0)} output tok/s at ${best}; ${withinTarget} combinations reach ${TARGET_SHARE * 100}% of it\n`);

  if (IGNORED > 0) process.stdout.write(`Searched with ${IGNORED} parameters that change nothing: ${table.size * 2 ** IGNORED} allowed combinations, ${withinTarget * 2 ** IGNORED} reach the target\n`);
  const results: Record<string, ReturnType<typeof summary> & { runs: number[] }> = {};
  for (const strategy of SEARCH_STRATEGIES) {
    const runs = Array.from({ length: SEEDS }, (_, seed) => trialsToTarget({ ...base, search: { strategy, seed: seed + 1 } }, table, target));
    results[strategy] = { ...summary(runs), runs };
    const r = results[strategy]!;
    process.stdout.write(`${strategy.padEnd(6)} trials to ${TARGET_SHARE * 100}% over ${SEEDS} seeds: mean ${r.mean.toFixed(1)}, median ${r.median}, p90 ${r.p90}, max ${r.max}   [${runs.join(' ')}]\n`);
  }
  const ratio = results.tpe!.mean / results.random!.mean;
  process.stdout.write(`tpe / random (mean trials): ${ratio.toFixed(2)}   goal <= 0.33: ${ratio <= 1 / 3 ? 'met' : 'NOT met'}\n`);

  process.stdout.write(`\nCoverage over each seed's first ${COVERAGE_TRIALS} launched trials (the bools and the choices of at most ${COVERED_CHOICE_VALUES} values; the tpe start is ${startupTrials(base.space)} trials):\n`);
  for (const strategy of SEARCH_STRATEGIES) {
    const perSeed = Array.from({ length: SEEDS }, (_, seed) => coverage({ ...base, search: { strategy, seed: seed + 1 } }, table, COVERAGE_TRIALS));
    for (const [name, values] of coveredParameters(base.space)) {
      const allBy = perSeed.map((c) => c.get(name)!.allBy);
      const within = allBy.filter((n): n is number => n !== null);
      const most = perSeed.map((c) => c.get(name)!.most);
      process.stdout.write(
        `${strategy.padEnd(6)} ${name} (${values.length} values): all tried within ${COVERAGE_TRIALS} trials in ${within.length} of ${SEEDS} seeds` +
          `${within.length > 0 ? `, by trial ${summary(within).median} (median), ${Math.max(...within)} at worst` : ''}; most trials on one value: mean ${summary(most).mean.toFixed(1)}, max ${Math.max(...most)}\n`,
      );
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
