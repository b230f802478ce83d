/**
 * `llmbench run`: one benchmark run from flags and/or a `--config` file (the RunConfig schema
 * the extension's settings use; flags win). The engine runs in a worker thread so that drawing
 * progress never delays a timestamp. Exit 0 complete, 1 ran but failed or was cancelled, 2 bad
 * input (thrown as UsageError, printed by main).
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { z } from 'zod';
import { ApiKindSchema, ArrivalSchema, ConcurrencyUnitSchema, DatasetFormatSchema, EndpointStrategySchema, parseDelayRange, ProfileConfigSchema, RampStrategySchema, ReasoningTagSchema, type RunConfig, WorkloadConfigSchema } from '../../format/config';
import { TraceFormatSchema } from '../../format/trace';
import { SERVER_METRICS_INTERVAL } from '../../format/server-metrics';
import { isPlainObject, parseConfigFileText, prepareRun, RunInputError, shownConfig, unreadableConfigFile, type ConfigFile, type PreparedRun, type RunRequest, type Settings } from '../../run/prepare';
import { BadInputError, messageOf } from '../../format/errors';
import { runBenchmarkInWorker, type RunOverview } from '../../load/worker-host';
import { runShard, shardFilePath } from '../../load/shards';
import type { ShardRole } from '../../load/shard-protocol';
import type { ResultDocument } from '../../format/result';
import { resolveShardIdentity, RUN_TOKEN_ENV, ShardSetupError, type ShardIdentity } from '../../cluster/shard-command';
import { finalizeInterruptedFile, resultFileName } from '../../results/writer';
import { SimConfigError, startSimServer, type SimServer } from '../../sim/index';
import { formatRunDetails, formatTerminalTable, formatVllmBlock } from '../../report/tables';
import {
  parseChoice,
  parseFlags,
  parseKeyValue,
  parseNumber,
  parseNumberList,
  UsageError,
  type FlagSpec,
  type NumberRule,
  type ParsedFlags,
} from '../args';
import { createProgressPrinter } from '../progress';

export const RUN_FLAGS: Readonly<Record<string, FlagSpec>> = {
  '--help': { kind: 'boolean' },
  '--url': { kind: 'string', repeatable: true },
  '--url-strategy': { kind: 'string' },
  '--url-failover': { kind: 'boolean' },
  '--trace': { kind: 'string' },
  '--trace-format': { kind: 'string' },
  '--time-scale': { kind: 'string' },
  '--trace-window': { kind: 'string' },
  '--trace-max-requests': { kind: 'string' },
  '--skip-bad-rows': { kind: 'boolean' },
  '--model': { kind: 'string' },
  '--api': { kind: 'string' },
  '--reasoning-tags': { kind: 'string' },
  '--stream': { kind: 'boolean' },
  '--no-stream': { kind: 'boolean' },
  '--no-usage': { kind: 'boolean' },
  '--profile': { kind: 'string' },
  '--concurrency': { kind: 'string' },
  '--rate': { kind: 'string' },
  '--arrival': { kind: 'string' },
  '--burstiness': { kind: 'string' },
  '--ramp-up': { kind: 'string' },
  '--ramp-start-rate': { kind: 'string' },
  '--ramp-end-rate': { kind: 'string' },
  '--requests': { kind: 'string' },
  '--duration': { kind: 'string' },
  '--warmup': { kind: 'string' },
  '--max-errors': { kind: 'string' },
  '--warmup-sec': { kind: 'string' },
  '--drain-sec': { kind: 'string' },
  '--cooldown-sec': { kind: 'string' },
  '--max-error-rate': { kind: 'string' },
  '--max-error-rate-min': { kind: 'string' },
  '--max-error-rate-scope': { kind: 'string' },
  '--no-saturation-stop': { kind: 'boolean' },
  '--saturation-window-sec': { kind: 'string' },
  '--cancel-rate': { kind: 'string' },
  '--cancel-after': { kind: 'string' },
  '--input-tokens': { kind: 'string' },
  '--output-tokens': { kind: 'string' },
  '--input-tokens-range': { kind: 'string' },
  '--output-tokens-range': { kind: 'string' },
  '--prefix-tokens': { kind: 'string' },
  '--prefix-count': { kind: 'string' },
  '--embedding-batch': { kind: 'string' },
  '--dataset': { kind: 'string' },
  '--dataset-format': { kind: 'string' },
  '--tokenizer': { kind: 'string' },
  '--timeout': { kind: 'string' },
  '--slo': { kind: 'string' },
  '--label': { kind: 'string', repeatable: true },
  '--header': { kind: 'string', repeatable: true },
  '--api-key-env': { kind: 'string' },
  '--extra-body': { kind: 'string' },
  '--seed': { kind: 'string' },
  '--workers': { kind: 'string' },
  '--shards': { kind: 'string' },
  '--shard': { kind: 'string' },
  '--coordinator': { kind: 'string' },
  '--shard-timeout': { kind: 'string' },
  '--server-metrics': { kind: 'string' },
  '--server-metrics-interval': { kind: 'string' },
  '--repeat': { kind: 'string' },
  '--turns': { kind: 'string' },
  '--think-time': { kind: 'string' },
  '--concurrency-unit': { kind: 'string' },
  '--multi-turn': { kind: 'boolean' },
  '--reuse-prompts': { kind: 'boolean' },
  '--reset-cache': { kind: 'boolean' },
  '--repeat-pause-sec': { kind: 'string' },
  '--out': { kind: 'string' },
  '--config': { kind: 'string' },
  '--format': { kind: 'string' },
  '--per-repeat': { kind: 'boolean' },
  '--sim': { kind: 'optional' },
  '--dry-run': { kind: 'boolean' },
};

export const RUN_HELP = `Usage: llmbench run --url URL --model NAME [options]
       llmbench run --sim [PRESET] [options]

Benchmarks an OpenAI-compatible server and writes a result file (NAME.llmbench.json).

Endpoint
  --url URL              base URL up to /v1, e.g. http://127.0.0.1:8000/v1; repeat it for
                         replicas of one model: the load is spread over them and every figure
                         is given per endpoint beside the total
  --url-strategy S       round-robin (default) or least-in-flight: which replica gets a request
  --url-failover         a replica whose last 3 requests failed without an answer (refused,
                         timed out, closed, HTTP 5xx) is out for 10 s and its requests go to the
                         others (config failover: {consecutiveErrors, coolOffSec}); without it,
                         its share of the requests fails
  --model NAME           the served model name (see GET /v1/models)
  --sim [PRESET]         run against the built-in simulator instead of --url
  --api API              chat (/v1/chat/completions, default), completions, responses
                         (/v1/responses, typed events) or embeddings (/v1/embeddings)
  --reasoning-tags TAG   the model writes its reasoning inside <TAG>...</TAG> in the text
                         (no reasoning parser on the server), e.g. --reasoning-tags think
  --stream, --no-stream  streamed responses (default) or whole bodies (no TTFT, no ITL)
  --no-usage             do not ask a stream for the server's token counts
                         (stream_options.include_usage), for servers and gateways that refuse
                         it: counts are then the --tokenizer's or estimated, and marked so
  --header 'Name: value' extra request header (repeatable)
  --api-key-env VAR      send the key held in environment variable VAR as a Bearer token
  --extra-body JSON      fields added to every request body, e.g. '{"ignore_eos": true}'
  --timeout SEC          longest time for one request (default 600)

Load (each value of a list is a step)
  --profile KIND         synchronous | concurrency | rate | throughput | sweep | trace
                         (default: rate with --rate, concurrency with --concurrency, trace with
                         --trace, else synchronous)
  --concurrency 1,8,64   requests in flight per step; with rate/throughput: one value, the cap
  --rate 1,2.5           requests per second per step; with sweep: how many rates between
                         the synchronous and throughput steps (default 8)
  --arrival KIND         constant | poisson | gamma (rate default poisson, sweep default constant)
  --burstiness X         gamma shape: 1 is Poisson, below 1 burstier (implies --arrival gamma)
  --ramp-up linear|exponential  instead of --rate: one step whose target rate moves from
                         --ramp-start-rate X to --ramp-end-rate Y req/s over its --requests
                         (vLLM's --ramp-up-strategy; implies --profile rate)
  --requests N           measured requests per step
  --duration SEC         seconds per step (with --requests, whichever ends first)
  --warmup N             requests per step sent first and left out of the statistics
  --warmup-sec S         requests sent in the first S seconds of each step are warm-up too
  --drain-sec S          a step cut by --duration stops sending and lets its requests in flight
                         finish for up to S seconds before cancelling them (default 30); they
                         count toward latency, not toward the step's rates
  --cooldown-sec S       before each step, wait up to S seconds for the server's running and
                         waiting requests to read 0 on /metrics (default 30; 0: do not wait); a
                         step that starts on a busy server carries a warning
  --max-errors N         end a step after N failed requests
  --max-error-rate R     end a step once more than the share R (0.1 = 10%) of its requests failed,
                         judged from --max-error-rate-min N ended requests on (default 20)
  --max-error-rate-scope step|run   what too many failures end (default step)
  --no-saturation-stop   let open-loop steps (rate, sweep) run their full length past the knee;
                         by default a step whose queue keeps growing for --saturation-window-sec
                         S (default 10) ends early, and a sweep skips its higher rates
  --cancel-rate P        abort this share (0..1) of the measured requests, chosen from the seed,
  --cancel-after MS|MS-MS  this long after each was sent (a range: drawn per request); they
                         count apart, with the tokens they had received (AIPerf's
                         --request-cancellation-rate and -delay)
  --seed N               seed for prompts and arrival times (default 42)
  --workers N|auto       threads that send the requests, each with its own event loop and
                         connections (default auto: more than one only for a load one worker
                         does not keep easily, at most the cores less one); a step whose
                         client was the bottleneck says so and how many to add
  --shards N             one of N shard processes of one run, on any machines (docs/scale-out.md):
                         shard 0 coordinates and writes --out, each other shard also writes its
                         own file beside it; the run token comes from LLMBENCH_RUN_TOKEN
  --shard I              this process's shard (else SLURM_PROCID, JOB_COMPLETION_INDEX, OMPI_COMM_WORLD_RANK)
  --coordinator H:PORT   where shard 0 listens (:PORT: the first host of Slurm's node list)
  --shard-timeout SEC    how long shard 0 waits for every shard to register (default 120)
  --repeat N             run the whole profile N times into one file; views show each figure
                         as a mean with its 95% confidence interval across the repeats
  --repeat-pause-sec S   seconds to wait between repeats (default 0)

Trace replay (docs/workloads.md): each row of a production trace sent at its recorded time
  --trace FILE           Mooncake JSONL, Azure LLM inference CSV (2023, 2024), BurstGPT CSV, or
                         any JSONL/CSV with a column map in --config (profile.columns); its
                         lengths set each prompt (built with --tokenizer) and max_tokens
  --trace-format F       mooncake | azure | burstgpt | columns (default: told from the first line)
  --time-scale X         2 replays twice as fast, 0.5 at half speed (default 1)
  --trace-window S:E     only rows from S to E seconds after the trace's first row (S: or :E)
  --trace-max-requests N at most N rows (after the window)
  --skip-bad-rows        skip rows that cannot be replayed and count them, instead of stopping
                         at the first with its line
  --concurrency N        with a trace: at most N requests in flight (a request due meanwhile waits)

Workload
  --input-tokens N       synthetic prompt length in tokens (default 512)
  --output-tokens N      max_tokens per request (default 128); with --dataset, 'reply' takes
                         each one from the reply recorded after the prompt (sharegpt), and drops
                         pairs as vLLM does: prompt or reply under 4 tokens, prompt over 1024,
                         both over 2048
  --input-tokens-range R draw each prompt length uniformly from [N*(1-R), N*(1+R)] around
                         --input-tokens N, 0 <= R < 1 (vLLM's --random-range-ratio)
  --output-tokens-range R  the same for --output-tokens
  --prefix-tokens N      every synthetic prompt opens with a shared prefix of N tokens
  --prefix-count K       K distinct shared prefixes, used in turn (default 1)
  --embedding-batch N    with --api embeddings: N inputs per request, each --input-tokens long
                         (default 1)
  --dataset FILE         prompts from a file instead of synthetic ones
  --dataset-format F     openqa | sharegpt | lines | jsonl
  --tokenizer FILE       a Hugging Face tokenizer.json to count tokens with
  --reuse-prompts        send the prompts every run of this seed sends: without it, each run's
                         prompts open with a salt of their own (in the result), so that a
                         long-lived server's prefix cache cannot serve one run's prompts to the next
  --reset-cache          empty the server's prefix cache before each step (vLLM with
                         VLLM_SERVER_DEV_MODE=1: /reset_prefix_cache; SGLang: /flush_cache)

Server metrics (docs/server-metrics.md)
  --server-metrics URL|off        the server's Prometheus metrics to scrape during the run
                                 (default: the server root of --url plus /metrics; off: none)
  --server-metrics-interval MS   milliseconds between two scrapes (default 1000, at least 100)
Conversations (multi-turn sessions; each turn resends the history with the replies received)
  --turns N              synthetic sessions of N turns, each turn --input-tokens long; with
                         --dataset, at most N user turns of each conversation
  --multi-turn           sessions from a --dataset's conversations (sharegpt, jsonl messages)
  --think-time MS        the user's pause between a reply and the next turn (default 0)
  --concurrency-unit U   sessions (default: --concurrency counts open sessions) or requests
                         (requests in flight; a thinking session leaves its slot to another)

Output
  --slo ttft=MS,ttfo=MS,tpot=MS,e2e=MS   service-level objectives for goodput (ttfo: time to
                         the first answer token, reasoning left out)
  --label key=value      free label stored in the result (repeatable): engine, gpu, ...
  --out FILE             result file (default benchmarks/<time>-<model>-<profile>.llmbench.json)
  --format table|vllm    vllm also prints vLLM's "Serving Benchmark Result" block per step
  --per-repeat           with --repeat, a row per repeat in the final table instead of one per
                         step with each figure's mean ± half-width of its 95% interval
  --config FILE          JSON run settings (the schema of the extension's settings); flags win;
                         relative paths in the file are read from the file's folder
  --dry-run              print the run configuration as prepared (defaults, paths, endpoint), or
                         what is wrong with it, as JSON, and exit without sending anything

Exit status: 0 complete, 1 ran but failed or was cancelled, 2 bad input.
Ctrl-C cancels: requests in flight are aborted and the partial result is kept.
`;

const RULES = {
  concurrency: { integer: true, min: 1, hint: 'whole numbers of requests in flight like --concurrency 1,8,64' },
  concurrencyCap: { integer: true, min: 1, hint: 'one whole number, the most requests in flight, like --concurrency 64' },
  rate: { min: 0, exclusive: true, hint: 'requests per second like --rate 1,2.5' },
  sweepRateCount: { integer: true, min: 1, hint: 'a whole number of rates to sweep like --rate 8 (with --profile sweep, --rate is a count)' },
  burstiness: { min: 0, exclusive: true, hint: 'a gamma shape like --burstiness 0.5 (1 is Poisson, lower is burstier)' },
  requests: { integer: true, min: 1, hint: 'the number of measured requests per step like --requests 100' },
  duration: { min: 0, exclusive: true, hint: 'seconds per step like --duration 30' },
  warmup: { integer: true, min: 0, hint: 'a number of warm-up requests like --warmup 5' },
  maxErrors: { integer: true, min: 1, hint: 'a number of failed requests like --max-errors 10' },
  seconds: { min: 0, hint: 'seconds like 30' },
  maxErrorRate: { min: 0, exclusive: true, hint: 'a share of failed requests above 0 and at most 1 like --max-error-rate 0.1' },
  maxErrorRateMin: { integer: true, min: 1, hint: 'a number of ended requests like --max-error-rate-min 20' },
  saturationWindow: { min: 2, hint: 'seconds, at least 2, like --saturation-window-sec 10' },
  inputTokens: { integer: true, min: 1, hint: 'prompt tokens like --input-tokens 512' },
  outputTokens: { integer: true, min: 1, hint: 'output tokens like --output-tokens 128' },
  rangeRatio: { min: 0, hint: 'a ratio from 0 up to (not including) 1 like 0.5' },
  prefixTokens: { integer: true, min: 0, hint: 'shared prefix tokens like --prefix-tokens 256' },
  prefixCount: { integer: true, min: 1, hint: 'a number of distinct prefixes like --prefix-count 4' },
  embeddingBatch: { integer: true, min: 1, hint: 'inputs per embeddings request like --embedding-batch 16' },
  cancelRate: { min: 0, exclusive: true, hint: 'a share of the requests above 0 and at most 1 like --cancel-rate 0.1' },
  timeout: { min: 0, exclusive: true, hint: 'seconds like --timeout 120' },
  timeScale: { min: 0, exclusive: true, hint: 'a speed factor like --time-scale 2 (twice as fast) or 0.5' },
  traceMaxRequests: { integer: true, min: 1, hint: 'a number of rows like --trace-max-requests 1000' },
  windowSec: { min: 0, hint: 'seconds after the trace\'s first row like --trace-window 60:120' },
  seed: { integer: true, min: 0, hint: 'a whole number like --seed 7' },
  workers: { integer: true, min: 1, hint: "a number of worker threads like --workers 4, or 'auto'" },
  serverMetricsInterval: { integer: true, min: SERVER_METRICS_INTERVAL.minMs, hint: `milliseconds between scrapes like --server-metrics-interval 500 (at least ${SERVER_METRICS_INTERVAL.minMs})` },
  repeat: { integer: true, min: 1, hint: 'a number of repeats like --repeat 5' },
  turns: { integer: true, min: 1, hint: 'turns per session like --turns 4' },
  thinkTime: { integer: true, min: 0, hint: 'milliseconds like --think-time 500' },
  repeatPause: { min: 0, hint: 'seconds between repeats like --repeat-pause-sec 30' },
  slo: { min: 0, exclusive: true, hint: 'milliseconds like --slo ttft=200,tpot=50' },
} satisfies Record<string, NumberRule>;

type ProfileKind = z.infer<typeof ProfileConfigSchema>['kind'];
const PROFILE_KINDS = ['synchronous', 'concurrency', 'rate', 'throughput', 'sweep', 'trace'] as const;
const TRACE_FLAGS = ['--trace', '--trace-format', '--time-scale', '--trace-window', '--trace-max-requests', '--skip-bad-rows'] as const;
const OUTPUT_FORMATS = ['table', 'vllm'] as const;
const RAMP_FLAGS = ['--ramp-up', '--ramp-start-rate', '--ramp-end-rate'] as const;
/** The load flags each profile kind understands (the rest are refused, not silently ignored). */
const PROFILE_FLAGS: Readonly<Record<ProfileKind, readonly string[]>> = {
  synchronous: [],
  concurrency: ['--concurrency'],
  rate: ['--rate', '--arrival', '--burstiness', '--concurrency', ...RAMP_FLAGS],
  throughput: ['--concurrency'],
  sweep: ['--rate', '--arrival', '--burstiness'],
  schedule: ['--concurrency'],
  trace: ['--concurrency', ...TRACE_FLAGS],
};
const SLO_KEYS = { ttft: 'ttftMs', ttfo: 'ttfoMs', tpot: 'tpotMs', e2e: 'e2eMs' } as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Which flag sets which config field, longest path first wins; used to word schema errors. */
const FIELD_FLAGS: ReadonlyArray<[field: string, flag: string]> = [
  ['endpoint.baseUrl', '--url'],
  ['endpoints', '--url'],
  ['endpointStrategy', '--url-strategy'],
  ['failover', '--url-failover'],
  ['profile.path', '--trace'],
  ['profile.format', '--trace-format'],
  ['profile.timeScale', '--time-scale'],
  ['profile.window', '--trace-window'],
  ['profile.window.startSec', '--trace-window'],
  ['profile.window.endSec', '--trace-window'],
  ['profile.maxRequests', '--trace-max-requests'],
  ['profile.skipBadRows', '--skip-bad-rows'],
  ['endpoint.model', '--model'],
  ['endpoint.api', '--api'],
  ['endpoint.headers', '--header'],
  ['endpoint.apiKeyEnv', '--api-key-env'],
  ['endpoint.reasoningTags', '--reasoning-tags'],
  ['request.stream', '--stream'],
  ['request.usage', '--no-usage'],
  ['request.extraBody', '--extra-body'],
  ['request.totalTimeoutMs', '--timeout'],
  ['workload.inputTokens.rangeRatio', '--input-tokens-range'],
  ['workload.outputTokens.rangeRatio', '--output-tokens-range'],
  ['workload.inputTokens', '--input-tokens'],
  ['workload.outputTokens', '--output-tokens'],
  ['workload.sharedPrefixTokens', '--prefix-tokens'],
  ['workload.prefixCount', '--prefix-count'],
  ['workload.embeddingBatch', '--embedding-batch'],
  ['workload.path', '--dataset'],
  ['workload.format', '--dataset-format'],
  ['tokenizer', '--tokenizer'],
  ['cache.reusePrompts', '--reuse-prompts'],
  ['cache.resetBeforeStep', '--reset-cache'],
  ['profile.kind', '--profile'],
  ['profile.levels', '--concurrency'],
  ['profile.maxConcurrency', '--concurrency'],
  ['profile.rates', '--rate'],
  ['profile.rateCount', '--rate'],
  ['profile.arrival', '--arrival'],
  ['profile.burstiness', '--burstiness'],
  ['profile.ramp.strategy', '--ramp-up'],
  ['profile.ramp.startRate', '--ramp-start-rate'],
  ['profile.ramp.endRate', '--ramp-end-rate'],
  ['profile.ramp', '--ramp-up'],
  ['limits.requests', '--requests'],
  ['limits.durationSec', '--duration'],
  ['limits.warmup', '--warmup'],
  ['limits.maxErrors', '--max-errors'],
  ['limits.warmupSec', '--warmup-sec'],
  ['limits.drainSec', '--drain-sec'],
  ['limits.cooldownSec', '--cooldown-sec'],
  ['limits.maxErrorRate', '--max-error-rate'],
  ['limits.maxErrorRateMin', '--max-error-rate-min'],
  ['limits.maxErrorRateScope', '--max-error-rate-scope'],
  ['limits.saturationStop', '--no-saturation-stop'],
  ['limits.saturationWindowSec', '--saturation-window-sec'],
  ['limits', '--requests or --duration'],
  ['slo', '--slo'],
  ['cancel.rate', '--cancel-rate'],
  ['cancel.afterMs', '--cancel-after'],
  ['cancel', '--cancel-rate and --cancel-after'],
  ['labels', '--label'],
  ['seed', '--seed'],
  ['workers', '--workers'],
  ['serverMetrics.url', '--server-metrics'],
  ['serverMetrics.intervalMs', '--server-metrics-interval'],
  ['repeat.count', '--repeat'],
  ['sessions.turns', '--turns'],
  ['sessions.thinkTimeMs', '--think-time'],
  ['sessions.concurrencyUnit', '--concurrency-unit'],
  ['sessions', '--turns or --multi-turn'],
  ['repeat.pauseSec', '--repeat-pause-sec'],
];

/** The flag that sets a config field, for messages about it. */
export const flagOf = (field: string): string | undefined => FIELD_FLAGS.find(([path]) => path === field)?.[1];

export async function run(argv: string[]): Promise<number> {
  return runCommand(argv, 'llmbench run');
}

/** `command` names the caller in messages (`llmbench demo` reuses this with its own defaults). */
export async function runCommand(argv: readonly string[], command: string): Promise<number> {
  const flags = parseFlags(argv, RUN_FLAGS, command);
  if (flags.has('--help')) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  if (flags.positionals.length > 0) {
    throw new UsageError(`unexpected argument '${flags.positionals[0]}'; ${command} takes only --flags (see ${command} --help)`);
  }
  const configPath = flags.get('--config');
  let file: ConfigFile | undefined;
  try {
    file = configPath === undefined ? undefined : readConfigFile(configPath);
  } catch (error) {
    if (!(error instanceof RunInputError)) throw error;
    if (flags.has('--dry-run')) return printProblem(error);
    throw new UsageError(error.message);
  }
  const flagSettings = settingsFromFlags(flags, file?.settings);
  const format = parseChoice('--format', flags.get('--format') ?? 'table', OUTPUT_FORMATS);
  if (flags.has('--sim') && flags.has('--url')) throw new UsageError('--sim and --url both name the endpoint; give one of them (several replicas: start simulators with `llmbench sim` and give each --url)');

  let sim: SimServer | undefined;
  try {
    if (flags.has('--sim')) sim = await startSimulator(flags.get('--sim') || undefined);
    const request: RunRequest = {
      overrides: flagSettings,
      ...(file ? { file } : {}),
      workingDir: process.cwd(),
      ...(sim ? { simulator: { baseUrl: sim.baseUrl, model: sim.model, preset: sim.config.preset } } : {}),
      env: process.env,
      nameOf: flagOf,
      ownInput: 'the flags',
    };
    if (flags.has('--dry-run')) return dryRun(request);
    const prepared = prepareOrExplain(request);
    const shard = shardRoleOf(flags, process.env);
    if (shard !== null && (flags.get('--out') === undefined || flags.get('--out')?.endsWith('/'))) {
      throw new UsageError('--out FILE is needed with --shards: every shard names the same file, which shard 0 writes (the others write theirs beside it)');
    }
    const resultPath = chooseResultPath(flags.get('--out'), prepared.config);
    if (shard !== null && shard.shard > 0) return await executeShard(prepared, shard, shardFilePath(resultPath, shard.shard));
    return await execute(prepared, { resultPath, format, perRepeat: flags.has('--per-repeat'), ...(shard !== null ? { shard } : {}) });
  } finally {
    await sim?.close();
  }
}

/** Shard runs: the coordinator waits this long for every shard to register unless --shard-timeout says otherwise. */
const DEFAULT_SHARD_TIMEOUT_SEC = 120;

/**
 * This process's place in a shard run, when a shard flag was given (a launcher's environment alone
 * makes no run a shard: an sbatch job may hold ordinary runs too); null otherwise.
 */
function shardRoleOf(flags: ParsedFlags, env: NodeJS.ProcessEnv): ShardRole | null {
  const given = { shards: flags.get('--shards'), shard: flags.get('--shard'), coordinator: flags.get('--coordinator') };
  const timeout = flags.get('--shard-timeout');
  if (given.shards === undefined && given.shard === undefined && given.coordinator === undefined) {
    if (timeout !== undefined) throw new UsageError('--shard-timeout goes with --shards N');
    return null;
  }
  let identity: ShardIdentity;
  try {
    identity = resolveShardIdentity({ ...(given.shards !== undefined ? { shards: given.shards } : {}), ...(given.shard !== undefined ? { shard: given.shard } : {}), ...(given.coordinator !== undefined ? { coordinator: given.coordinator } : {}) }, env);
  } catch (error) {
    if (error instanceof ShardSetupError) throw new UsageError(error.message);
    throw error;
  }
  const token = env[RUN_TOKEN_ENV];
  if (identity.shards > 1 && (token === undefined || token === '')) {
    throw new UsageError(`${RUN_TOKEN_ENV} is not set: every shard of a run needs the same run token in its environment (llmbench cluster slurm|k8s set it; for local shards, export ${RUN_TOKEN_ENV}=$(openssl rand -hex 32) first)`);
  }
  const timeoutSec = timeout === undefined ? DEFAULT_SHARD_TIMEOUT_SEC : parseNumber('--shard-timeout', timeout, { min: 0.1, hint: 'seconds like --shard-timeout 300' });
  return { shards: identity.shards, shard: identity.shard, coordinator: identity.coordinator, token: token ?? '', registerTimeoutMs: Math.round(timeoutSec * 1000) };
}

/** Shard I > 0: registers with shard 0, serves its parts, writes its own file; exit 0 when the run completed. */
async function executeShard({ config, apiKey, apiKeys, warnings }: PreparedRun, role: ShardRole, resultPath: string): Promise<number> {
  const say = (line: string): void => void process.stderr.write(`${line}\n`);
  for (const warning of warnings) say(`note: ${warning}`);
  let doc: ResultDocument;
  try {
    doc = await runShard(config, { role, apiKey, ...(apiKeys !== undefined ? { apiKeys } : {}), resultPath, log: (_level, message) => say(message) });
  } catch (error) {
    if (error instanceof BadInputError) throw new UsageError(error.message);
    say(`The shard could not run: ${messageOf(error)}`);
    return 1;
  }
  const records = doc.steps.reduce((n, step) => n + step.requests.length, 0);
  say(`Shard ${role.shard} of ${role.shards}: ${doc.status}, ${records} requests in ${doc.steps.length} steps. Its file: ${relative(process.cwd(), resultPath) || resultPath}${doc.statusReason ? ` (${doc.statusReason})` : ''}`);
  return doc.status === 'complete' ? 0 : 1;
}

/** Bad input of any kind is a usage error here: exit 2 with the shared wording. */
function prepareOrExplain(request: RunRequest): PreparedRun {
  try {
    return prepareRun(request);
  } catch (error) {
    if (error instanceof RunInputError) throw new UsageError(error.message);
    throw error;
  }
}

/** Prints the prepared configuration, or the problem and its kind, as JSON (what the extension's dry run answers). */
function dryRun(request: RunRequest): number {
  try {
    const { config, warnings } = prepareRun(request);
    process.stdout.write(`${JSON.stringify({ config: shownConfig(config), warnings }, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof RunInputError)) throw error;
    return printProblem(error);
  }
}

/** A dry run's answer when the input is wrong: the problem and its kind, as JSON; exit 2. */
function printProblem(error: RunInputError): number {
  process.stdout.write(`${JSON.stringify({ error: { problem: error.problem, message: error.message } }, null, 2)}\n`);
  return 2;
}

async function startSimulator(preset: string | undefined): Promise<SimServer> {
  try {
    return await startSimServer({ ...(preset ? { preset } : {}), inWorker: true });
  } catch (error) {
    if (error instanceof SimConfigError) throw new UsageError(`--sim: ${error.message}`);
    throw error;
  }
}

function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadableConfigFile(`--config ${path}`, resolve(path), error);
  }
  return { path: resolve(path), shownAs: `--config ${path}`, settings: parseConfigFileText(text, `--config ${path}`) };
}

/** The settings the flags ask for, shaped like RunConfig input; only what was given is set. */
function settingsFromFlags(flags: ParsedFlags, fileSettings: Settings | undefined): Settings {
  const settings: Settings = {};
  const put = (section: string, key: string, value: unknown) => {
    if (value === undefined) return;
    const current = (settings[section] ?? {}) as Settings;
    settings[section] = { ...current, [key]: value };
  };
  const number = (flag: string, rule: NumberRule) => {
    const text = flags.get(flag);
    return text === undefined ? undefined : parseNumber(flag, text, rule);
  };

  const urls = flags.all('--url');
  if (urls.length > 1) settings.endpoints = urls.map((baseUrl) => ({ baseUrl }));
  else put('endpoint', 'baseUrl', flags.get('--url'));
  const strategy = flags.get('--url-strategy');
  const manyUrls = urls.length > 1 || Array.isArray(fileSettings?.endpoints);
  for (const flag of ['--url-strategy', '--url-failover']) {
    if (flags.has(flag) && !manyUrls) throw new UsageError(`${flag} spreads a run over several endpoints: give --url more than once (or endpoints in --config)`);
  }
  if (strategy !== undefined) settings.endpointStrategy = parseChoice('--url-strategy', strategy, EndpointStrategySchema.options);
  if (flags.has('--url-failover')) settings.failover = isPlainObject(fileSettings?.failover) ? fileSettings.failover : {};
  put('endpoint', 'model', flags.get('--model'));
  const api = flags.get('--api');
  if (api !== undefined) put('endpoint', 'api', parseChoice('--api', api, ApiKindSchema.options));
  if (flags.has('--header')) put('endpoint', 'headers', Object.fromEntries(flags.all('--header').map(parseHeader)));
  put('endpoint', 'apiKeyEnv', flags.get('--api-key-env'));
  const tag = flags.get('--reasoning-tags');
  if (tag !== undefined) {
    const parsed = ReasoningTagSchema.safeParse(tag.replace(/^<\/?|>$/g, ''));
    if (!parsed.success) throw new UsageError(`--reasoning-tags: '${tag}' ${parsed.error.issues[0]?.message ?? 'is not a tag name'}`);
    put('endpoint', 'reasoningTags', parsed.data);
  }

  if (flags.has('--stream') && flags.has('--no-stream')) throw new UsageError('--stream and --no-stream contradict each other; give one');
  if (flags.has('--stream')) put('request', 'stream', true);
  if (flags.has('--no-stream')) put('request', 'stream', false);
  if (flags.has('--no-usage')) put('request', 'usage', false);
  const extraBody = flags.get('--extra-body');
  if (extraBody !== undefined) put('request', 'extraBody', parseExtraBody(extraBody));
  const timeoutSec = number('--timeout', RULES.timeout);
  if (timeoutSec !== undefined) put('request', 'totalTimeoutMs', Math.max(1, Math.round(timeoutSec * 1000)));

  const workload = workloadFromFlags(flags, fileSettings, number);
  if (workload) settings.workload = workload;
  const tokenizer = flags.get('--tokenizer');
  if (tokenizer !== undefined) settings.tokenizer = tokenizer;
  if (flags.has('--reuse-prompts')) put('cache', 'reusePrompts', true);
  if (flags.has('--reset-cache')) put('cache', 'resetBeforeStep', true);

  const profile = profileFromFlags(flags, fileSettings);
  if (profile) settings.profile = profile;
  if ((profile?.kind ?? (isPlainObject(fileSettings?.profile) ? fileSettings.profile.kind : undefined)) === 'trace') {
    for (const flag of ['--dataset', '--input-tokens', '--output-tokens', '--input-tokens-range', '--output-tokens-range', '--turns', '--multi-turn']) {
      if (flags.has(flag)) throw new UsageError(`${flag} does not apply to a trace: each request's lengths come from its row (prompts are built to its input tokens, max_tokens is its output tokens)`);
    }
  }

  put('limits', 'requests', number('--requests', RULES.requests));
  put('limits', 'durationSec', number('--duration', RULES.duration));
  put('limits', 'warmup', number('--warmup', RULES.warmup));
  put('limits', 'maxErrors', number('--max-errors', RULES.maxErrors));
  put('limits', 'warmupSec', number('--warmup-sec', { ...RULES.seconds, hint: 'seconds like --warmup-sec 10' }));
  put('limits', 'drainSec', number('--drain-sec', { ...RULES.seconds, hint: 'seconds like --drain-sec 30 (0: cancel at once)' }));
  put('limits', 'cooldownSec', number('--cooldown-sec', { ...RULES.seconds, hint: 'seconds like --cooldown-sec 30 (0: do not wait)' }));
  put('limits', 'maxErrorRate', number('--max-error-rate', RULES.maxErrorRate));
  put('limits', 'maxErrorRateMin', number('--max-error-rate-min', RULES.maxErrorRateMin));
  const errorScope = flags.get('--max-error-rate-scope');
  if (errorScope !== undefined) put('limits', 'maxErrorRateScope', parseChoice('--max-error-rate-scope', errorScope, ['step', 'run'] as const));
  if (flags.has('--no-saturation-stop')) put('limits', 'saturationStop', false);
  put('limits', 'saturationWindowSec', number('--saturation-window-sec', RULES.saturationWindow));

  const slo = flags.get('--slo');
  if (slo !== undefined) settings.slo = parseSlo(slo);
  const cancel = cancelFromFlags(flags, fileSettings, number);
  if (cancel !== undefined) settings.cancel = cancel;
  if (flags.has('--label')) {
    settings.labels = Object.fromEntries(flags.all('--label').map((l) => parseKeyValue('--label', l, 'a label', 'engine=vllm')));
  }
  const seed = number('--seed', RULES.seed);
  if (seed !== undefined) settings.seed = seed;
  const workers = flags.get('--workers');
  if (workers !== undefined) settings.workers = workers === 'auto' ? 'auto' : parseNumber('--workers', workers, RULES.workers);
  put('serverMetrics', 'url', flags.get('--server-metrics'));
  put('serverMetrics', 'intervalMs', number('--server-metrics-interval', RULES.serverMetricsInterval));
  const repeatPauseSec = number('--repeat-pause-sec', RULES.repeatPause);
  const fileRepeat = isPlainObject(fileSettings?.repeat) ? fileSettings.repeat : undefined;
  if (repeatPauseSec !== undefined && !flags.has('--repeat') && fileRepeat === undefined) throw new UsageError('--repeat-pause-sec needs --repeat N: the pause is between repeats');
  put('repeat', 'count', number('--repeat', RULES.repeat));
  const sessionFlags = ['--turns', '--think-time', '--concurrency-unit'].filter((flag) => flags.has(flag));
  if (flags.has('--multi-turn') || sessionFlags.length > 0) {
    const fileSessions = isPlainObject(fileSettings?.sessions);
    if (!flags.has('--multi-turn') && !flags.has('--turns') && !fileSessions) throw new UsageError(`${sessionFlags[0]} applies to sessions: add --turns N (synthetic) or --multi-turn (a --dataset's conversations)`);
    settings.sessions = {};
    put('sessions', 'turns', number('--turns', RULES.turns));
    put('sessions', 'thinkTimeMs', number('--think-time', RULES.thinkTime));
    const unit = flags.get('--concurrency-unit');
    if (unit !== undefined) put('sessions', 'concurrencyUnit', parseChoice('--concurrency-unit', unit, ConcurrencyUnitSchema.options));
  }
  put('repeat', 'pauseSec', repeatPauseSec);
  return settings;
}

function parseHeader(text: string): [string, string] {
  const colon = text.indexOf(':');
  const name = colon === -1 ? '' : text.slice(0, colon).trim();
  if (!HEADER_NAME.test(name)) {
    throw new UsageError(`--header: '${text}' is not a header; write it like --header 'X-Team: bench'`);
  }
  return [name, text.slice(colon + 1).trim()];
}

function parseExtraBody(text: string): Settings {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--extra-body: not valid JSON (${(error as Error).message}); give an object like '{"ignore_eos": true}'`);
  }
  if (!isPlainObject(value)) throw new UsageError(`--extra-body: must be a JSON object like '{"ignore_eos": true}'`);
  return value;
}

/** `--cancel-rate P --cancel-after MS|MS-MS`: both, or one over a config file's `cancel`. */
function cancelFromFlags(flags: ParsedFlags, fileSettings: Settings | undefined, number: (flag: string, rule: NumberRule) => number | undefined): Settings | undefined {
  const rate = number('--cancel-rate', RULES.cancelRate);
  const afterText = flags.get('--cancel-after');
  if (rate === undefined && afterText === undefined) return undefined;
  if (rate !== undefined && rate > 1) throw new UsageError(`--cancel-rate: '${rate}' must be at most 1; give ${RULES.cancelRate.hint}`);
  let afterMs: number | Settings | undefined;
  if (afterText !== undefined) {
    const range = parseDelayRange(afterText);
    if (range === null) throw new UsageError(`--cancel-after: '${afterText}' is not a delay; give milliseconds after the send like --cancel-after 500, or a range drawn per request like --cancel-after 200-2000`);
    afterMs = range;
  }
  const fromFile = isPlainObject(fileSettings?.cancel) ? fileSettings.cancel : {};
  if (rate === undefined && fromFile.rate === undefined) throw new UsageError('--cancel-after needs --cancel-rate P: the share of requests to cancel');
  if (afterMs === undefined && fromFile.afterMs === undefined) throw new UsageError('--cancel-rate needs --cancel-after MS (or MS-MS): when, after its send, a request is cancelled');
  return { ...(rate !== undefined ? { rate } : {}), ...(afterMs !== undefined ? { afterMs } : {}) };
}

function parseSlo(text: string): Settings {
  const slo: Settings = {};
  for (const item of text.split(',')) {
    const [key, value] = parseKeyValue('--slo', item, 'an objective', 'ttft=200,tpot=50,e2e=5000');
    if (!(key in SLO_KEYS)) {
      throw new UsageError(`--slo: '${key}' is not an objective; use ttft, ttfo, tpot and/or e2e, like --slo ttft=200,tpot=50`);
    }
    slo[SLO_KEYS[key as keyof typeof SLO_KEYS]] = parseNumber(`--slo ${key}`, value, RULES.slo);
  }
  return slo;
}

function workloadFromFlags(
  flags: ParsedFlags,
  fileSettings: Settings | undefined,
  number: (flag: string, rule: NumberRule) => number | undefined,
): Settings | undefined {
  const fileWorkload = isPlainObject(fileSettings?.workload) ? fileSettings.workload : undefined;
  const dataset = flags.get('--dataset');
  const kind = dataset !== undefined ? 'dataset' : (fileWorkload?.kind ?? 'synthetic');
  const inputTokens = withRange(fileWorkload?.inputTokens, number('--input-tokens', RULES.inputTokens), number('--input-tokens-range', RULES.rangeRatio), kind === 'synthetic' ? SYNTHETIC_DEFAULTS.inputTokens : undefined, '--input-tokens');
  const byReply = flags.get('--output-tokens') === REPLY;
  if (byReply && kind !== 'dataset') throw new UsageError(`--output-tokens ${REPLY} takes each request's length from the reply recorded in a --dataset file (sharegpt); synthetic prompts have none`);
  if (byReply && flags.has('--output-tokens-range')) throw new UsageError(`--output-tokens-range does not apply to --output-tokens ${REPLY}: the recorded replies set the lengths`);
  const outputTokens = byReply ? REPLY : withRange(fileWorkload?.outputTokens, number('--output-tokens', RULES.outputTokens), number('--output-tokens-range', RULES.rangeRatio), kind === 'synthetic' ? SYNTHETIC_DEFAULTS.outputTokens : undefined, '--output-tokens');
  const formatText = flags.get('--dataset-format');
  if (kind === 'dataset') {
    for (const flag of ['--input-tokens', '--input-tokens-range', '--prefix-tokens', '--prefix-count']) {
      if (flags.has(flag)) throw new UsageError(`${flag} does not apply with --dataset: prompts come from the file (filter them with minPromptTokens/maxPromptTokens in --config)`);
    }
  }
  if (kind !== 'dataset' && formatText !== undefined) throw new UsageError('--dataset-format needs --dataset FILE');
  const workload: Settings = {};
  if (dataset !== undefined) workload.path = dataset;
  if (formatText !== undefined) workload.format = parseChoice('--dataset-format', formatText, DatasetFormatSchema.options);
  if (inputTokens !== undefined) workload.inputTokens = inputTokens;
  if (outputTokens !== undefined) workload.outputTokens = outputTokens;
  const embeddingBatch = number('--embedding-batch', RULES.embeddingBatch);
  if (embeddingBatch !== undefined) workload.embeddingBatch = embeddingBatch;
  const prefixTokens = number('--prefix-tokens', RULES.prefixTokens);
  const prefixCount = number('--prefix-count', RULES.prefixCount);
  if (prefixCount !== undefined && prefixTokens === undefined && !(Number(fileWorkload?.sharedPrefixTokens) > 0)) {
    throw new UsageError('--prefix-count needs --prefix-tokens N: the length of each shared prefix');
  }
  if (prefixTokens !== undefined) workload.sharedPrefixTokens = prefixTokens;
  if (prefixCount !== undefined) workload.prefixCount = prefixCount;
  if (Object.keys(workload).length === 0) return undefined;
  return { kind, ...workload };
}

/** `--output-tokens reply`: each request's max_tokens is its recorded reply's length (ShareGPT, vLLM's way). */
const REPLY = 'reply';

/** The synthetic workload's defaults, the mean a range flag draws around when no length is given. */
const SYNTHETIC_DEFAULTS = WorkloadConfigSchema.parse({ kind: 'synthetic' }) as { inputTokens: number; outputTokens: number };

/**
 * A token count from a length flag and its range flag: `{mean, rangeRatio}` around the flag's
 * length, else the config file's fixed length, else `fallback`. A range needs a fixed mean to draw around.
 */
function withRange(fromFile: unknown, count: number | undefined, ratio: number | undefined, fallback: number | undefined, flag: string): Settings | number | undefined {
  if (ratio === undefined) return count;
  if (ratio >= 1) throw new UsageError(`${flag}-range: '${ratio}' must be below 1; give ${RULES.rangeRatio.hint}`);
  const fileMean = typeof fromFile === 'number' ? fromFile : isPlainObject(fromFile) && typeof fromFile.mean === 'number' && Number.isInteger(fromFile.mean) ? fromFile.mean : undefined;
  const mean = count ?? fileMean ?? fallback;
  if (mean === undefined) throw new UsageError(`${flag}-range needs ${flag} N: the mean length to draw around`);
  return { mean, rangeRatio: ratio };
}

/**
 * The profile the flags ask for. Its kind is --profile, else the config file's, else implied by
 * --rate (rate) or --concurrency (concurrency).
 */
function profileFromFlags(flags: ParsedFlags, fileSettings: Settings | undefined): Settings | undefined {
  const given = flags.get('--profile');
  const fileProfile = isPlainObject(fileSettings?.profile) ? fileSettings.profile : undefined;
  const fileKind = Object.keys(PROFILE_FLAGS).find((k) => k === fileProfile?.kind);
  const kind: ProfileKind | undefined =
    given !== undefined
      ? parseChoice('--profile', given, PROFILE_KINDS)
      : flags.has('--trace')
        ? 'trace'
        : (fileKind as ProfileKind | undefined) ??
          (flags.has('--rate') || flags.has('--ramp-up') ? 'rate' : flags.has('--concurrency') ? 'concurrency' : undefined);
  if (kind === undefined) {
    for (const flag of ['--arrival', '--burstiness', ...RAMP_FLAGS]) {
      if (flags.has(flag)) throw new UsageError(`${flag} applies to --profile rate or sweep; add --profile rate --rate R`);
    }
    for (const flag of TRACE_FLAGS) if (flags.has(flag)) throw new UsageError(`${flag} applies to a trace replay: add --trace FILE`);
    return undefined;
  }

  for (const flag of ['--concurrency', '--rate', '--arrival', '--burstiness', ...RAMP_FLAGS, ...TRACE_FLAGS]) {
    if (flags.has(flag) && !PROFILE_FLAGS[kind].includes(flag)) {
      const hint = (TRACE_FLAGS as readonly string[]).includes(flag) ? ': it applies to a trace replay (--trace FILE)' : kind === 'synchronous' ? ' (one request at a time)' : '';
      throw new UsageError(`${flag} does not apply to --profile ${kind}${hint}`);
    }
  }

  if (kind === 'trace') return traceProfileFromFlags(flags, fileProfile);
  const profile: Settings = { kind };
  const concurrency = flags.get('--concurrency');
  if (concurrency !== undefined) {
    if (kind === 'concurrency') profile.levels = parseNumberList('--concurrency', concurrency, RULES.concurrency);
    else profile.maxConcurrency = parseNumber('--concurrency', concurrency, RULES.concurrencyCap);
  }
  const rate = flags.get('--rate');
  if (rate !== undefined) {
    if (kind === 'sweep') profile.rateCount = parseNumber('--rate', rate, RULES.sweepRateCount);
    else profile.rates = parseNumberList('--rate', rate, RULES.rate);
  }
  const ramp = rampFromFlags(flags);
  if (ramp !== undefined) {
    if (rate !== undefined) throw new UsageError('--rate and --ramp-up both set the rate: give --rate for steps at fixed rates, or --ramp-up with --ramp-start-rate and --ramp-end-rate for one ramp');
    profile.ramp = ramp;
  }
  const arrival = flags.get('--arrival');
  if (arrival !== undefined) profile.arrival = parseChoice('--arrival', arrival, ArrivalSchema.options);
  const burstiness = flags.get('--burstiness');
  if (burstiness !== undefined) {
    if (arrival !== undefined && arrival !== 'gamma') {
      throw new UsageError(`--burstiness is the gamma shape: it needs --arrival gamma, not --arrival ${arrival}`);
    }
    profile.burstiness = parseNumber('--burstiness', burstiness, RULES.burstiness);
    profile.arrival = 'gamma';
  }
  return profile;
}

/** `--trace FILE` and the trace flags: a trace profile, over the config file's when it has one. */
function traceProfileFromFlags(flags: ParsedFlags, fileProfile: Settings | undefined): Settings {
  const profile: Settings = { kind: 'trace' };
  const path = flags.get('--trace');
  if (path === undefined && !(fileProfile?.kind === 'trace' && typeof fileProfile.path === 'string')) {
    throw new UsageError('--profile trace needs --trace FILE: the trace to replay (Mooncake JSONL, Azure or BurstGPT CSV)');
  }
  if (path !== undefined) profile.path = path;
  const format = flags.get('--trace-format');
  if (format !== undefined) profile.format = parseChoice('--trace-format', format, TraceFormatSchema.options);
  const scale = flags.get('--time-scale');
  if (scale !== undefined) profile.timeScale = parseNumber('--time-scale', scale, RULES.timeScale);
  const window = flags.get('--trace-window');
  if (window !== undefined) profile.window = parseTraceWindow(window);
  const max = flags.get('--trace-max-requests');
  if (max !== undefined) profile.maxRequests = parseNumber('--trace-max-requests', max, RULES.traceMaxRequests);
  if (flags.has('--skip-bad-rows')) profile.skipBadRows = true;
  const concurrency = flags.get('--concurrency');
  if (concurrency !== undefined) profile.maxConcurrency = parseNumber('--concurrency', concurrency, RULES.concurrencyCap);
  return profile;
}

/** `START:END` seconds after the trace's first row; either side may be left out (`60:`, `:120`). */
function parseTraceWindow(text: string): Settings {
  const parts = text.split(':');
  if (parts.length !== 2 || (parts[0]?.trim() === '' && parts[1]?.trim() === '')) {
    throw new UsageError(`--trace-window: '${text}' is not START:END; give seconds after the trace's first row like --trace-window 60:120 (or 60: to the end)`);
  }
  const [start, end] = parts.map((part) => (part.trim() === '' ? undefined : parseNumber('--trace-window', part, RULES.windowSec)));
  if (start !== undefined && end !== undefined && end <= start) throw new UsageError(`--trace-window: '${text}' ends before it starts; give START:END with END after START`);
  return { ...(start !== undefined ? { startSec: start } : {}), ...(end !== undefined ? { endSec: end } : {}) };
}

/** `--ramp-up S --ramp-start-rate X --ramp-end-rate Y`, all three or none. */
function rampFromFlags(flags: ParsedFlags): Settings | undefined {
  const strategy = flags.get('--ramp-up');
  if (strategy === undefined) {
    for (const flag of ['--ramp-start-rate', '--ramp-end-rate']) if (flags.has(flag)) throw new UsageError(`${flag} needs --ramp-up linear|exponential`);
    return undefined;
  }
  const rates = ['--ramp-start-rate', '--ramp-end-rate'].map((flag) => {
    const text = flags.get(flag);
    if (text === undefined) throw new UsageError(`--ramp-up needs --ramp-start-rate X and --ramp-end-rate Y (requests per second)`);
    return parseNumber(flag, text, RULES.rate);
  });
  return { strategy: parseChoice('--ramp-up', strategy, RampStrategySchema.options), startRate: rates[0], endRate: rates[1] };
}

/** --out FILE, or a file named for the run inside --out DIR or ./benchmarks; its folder is created. */
function chooseResultPath(out: string | undefined, config: RunConfig): string {
  const name = () => resultFileName(new Date(), config.endpoint.model, config.profile.kind);
  const isDirectory = out !== undefined && (out.endsWith('/') || isExistingDirectory(out));
  const path = out === undefined ? resolve('benchmarks', name()) : resolve(isDirectory ? join(out, name()) : out);
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new UsageError(`--out: cannot create the folder '${dirname(path)}' (${(error as NodeJS.ErrnoException).code ?? String(error)}); choose another with --out FILE`);
  }
  return path;
}

function isExistingDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // missing or unreadable: treated as a file name, and creating it reports why not
  }
}

async function execute(
  { config, apiKey, apiKeys, warnings }: PreparedRun,
  options: { resultPath: string; format: (typeof OUTPUT_FORMATS)[number]; perRepeat: boolean; shard?: ShardRole },
): Promise<number> {
  const shownPath = relative(process.cwd(), options.resultPath) || options.resultPath;
  const progress = createProgressPrinter(process.stderr);
  for (const warning of warnings) progress.note(`note: ${warning}`);

  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) {
      // Quitting at once leaves no time for the worker to finish the file: finish it here.
      finalizeInterruptedFile(options.resultPath, 'Cancelled with a second Ctrl-C: the run was stopped at once. Every request measured until then is kept.');
      process.exit(130);
    }
    progress.note('Cancelling: aborting requests in flight and keeping the partial result (Ctrl-C again quits at once)');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let doc: RunOverview;
  try {
    doc = await runBenchmarkInWorker(config, {
      workerScript: join(__dirname, 'engine-worker.js'),
      signal: controller.signal,
      resultPath: options.resultPath,
      onEvent: progress.onEvent,
      ...(apiKey !== undefined ? { apiKey } : {}),
      ...(apiKeys !== undefined ? { apiKeys } : {}),
      ...(options.shard ? { shard: options.shard } : {}),
    });
  } catch (error) {
    progress.finish();
    if (error instanceof BadInputError) throw new UsageError(error.message);
    process.stderr.write(`The run could not complete: ${messageOf(error)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  progress.finish();

  process.stdout.write(`\n${formatTerminalTable(doc, { perRepeat: options.perRepeat })}${formatRunDetails(doc)}`);
  if (options.format === 'vllm') {
    doc.steps.forEach((_, index) => process.stdout.write(`\n${formatVllmBlock(doc, index)}`));
  }
  process.stdout.write(`\nResult: ${shownPath}\n`);
  if (doc.status === 'complete') return 0;
  const why = doc.statusReason ? `: ${doc.statusReason}` : '';
  if (controller.signal.aborted) process.stderr.write(`Cancelled${doc.status === 'failed' ? why.replace(/\.$/, '') : ''}. The partial result is kept in ${shownPath}\n`);
  else process.stderr.write(`The run ${doc.status === 'failed' ? 'failed' : 'did not complete'}${why}\n`);
  return 1;
}
