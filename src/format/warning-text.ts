/**
 * The words of the step warnings LLM Bench writes (STEP_WARNING_KINDS), as templates: English text
 * with `{0}`, `{1}` ... where its figures go, the same form as the views' l10n keys
 * (src/views/l10n.ts). The code that builds a warning fills a template (so a result file, the CLI
 * and the English views read exactly these words), and a view in another language words a stored
 * warning again from the same template, its figures taken back out of the stored message
 * (src/views/step-warnings.ts). One list, so that the two cannot drift apart.
 */

/** Fills `{0}`, `{1}` ... of `text`; a placeholder without its argument stays as it is. */
export function fillPlaceholders(text: string, args: readonly (string | number)[]): string {
  return args.length === 0 ? text : text.replace(/\{(\d+)\}/g, (whole, index: string) => (Number(index) < args.length ? String(args[Number(index)]) : whole));
}

/** The too-short warning (src/results/window.ts), by how the span it measured is worded. */
export const TOO_SHORT_TEXT = {
  sentFor:
    'this step is too short for its latency: its rates are mostly ramp-up; run it longer (it sent for {0} s; its median request took {1} s, and a step needs about {2} times that).',
  sentAtOnce:
    'this step is too short for its latency: its rates are mostly ramp-up; run it longer (it sent all its requests at once; its median request took {0} s, and a step needs about {1} times that).',
  ranFor:
    'this step is too short for its latency: its rates are mostly ramp-up; run it longer (it ran from its first send to its last completion for {0} s; its median request took {1} s, and a step needs about {2} times that).',
} as const;

/** A step that began on a busy server (src/load/cooldown.ts). */
export const BUSY_START_TEXT =
  'Began on a busy server: it still had {0} running and {1} waiting requests after a wait of {2} s (--cooldown-sec {3}), from the step before or another client. Its first requests queued behind them: its latencies are too high and its rates too low. Raise --cooldown-sec, or check what else the server is serving.';

/** The over-saturation guard's stop (src/load/guards.ts), by the signal that rose. */
export const OVER_SATURATED_TEXT = {
  backlog:
    "Ended early at {0} s: over-saturated. Requests due and not yet answered (queued for a slot or in flight) rose from {1} to {2} over {3} s (about {4} a second while {5} requests a second were due), and had risen the half-window before: the server cannot keep up with this load, and its latencies only grow with the step's length.",
  waiting:
    "Ended early at {0} s: over-saturated. The server's waiting requests rose from {1} to {2} over {3} s (about {4} a second while {5} requests a second were due), and had risen the half-window before: the server cannot keep up with this load, and its latencies only grow with the step's length.",
} as const;

/** The error-rate guard's stop (src/load/guards.ts): of the step, or of the run. */
export const ERROR_RATE_TEXT = {
  step: 'Ended early: {0} of {1} requests failed ({2}%), above the maximum error rate of {3}%.',
  run: 'Ended early: {0} of {1} requests failed ({2}%), above the maximum error rate of {3}%; the run stopped.',
} as const;

/** The --max-errors stop (src/load/gather.ts). */
export const MAX_ERRORS_TEXT = 'Ended early: {0} requests failed (maxErrors, --max-errors {1}).';

/** The client-bound warning (src/load/client-bound.ts): `{0}; {1}`, what crossed its threshold, then what to do. */
export const CLIENT_BOUND_TEXT = {
  joined: '{0}; {1}',
  who: { client: 'The client', worker: 'Worker {0} of {1}', shard: 'Shard {0} of {1}' },
  what: {
    busy: '{0} was busy {1} of the step (limit {2}): it had no time to spare, so tokens waited to be read and timed',
    loopDelay: "{0}'s event loop ran {1} ms late at p99 (limit {2} ms): tokens waited as long to be read and timed",
    sendLateness: '{0} sent its requests {1} ms after their send times at p99 (limit {2} ms): it did not keep the schedule',
  },
  advice: {
    coreWaitWorkers:
      'it waited for a core {0} of the step: other threads and processes (the server on this machine?) held the cores, so more workers would not help; run the client where cores are free.',
    coreWaitShards:
      'it waited for a core {0} of the step: other threads and processes (the server on this machine?) held the cores, so more shards would not help; run the client where cores are free.',
    moreShards: 'TTFT and ITL are inflated by the client. Start more shards: --shards {0} (more srun tasks or pods, on machines with free cores).',
    moreWorkers: 'TTFT and ITL are inflated by the client. Add workers: --workers {0}.',
    noCore: 'TTFT and ITL are inflated by the client, and this machine has no free core for another worker: run the client on a machine with more cores.',
    heldUp: 'it was busy only {0} of the step: something else held its thread (garbage collection, a busy host thread), so TTFT and ITL may be inflated.',
  },
} as const;

/**
 * Why a run used the workers it did (src/load/workers.ts), stored in its file (`workers.reason`):
 * worded again in the display language like a step warning.
 */
export const WORKERS_REASON_TEXT = {
  // A longer wording before the one it extends: a reader tries them in order, and a figure may take in anything.
  askedOverCores: "asked for {0} (more than this machine's {1} cores less one: they share cores)",
  asked: 'asked for {0}',
  noStep: 'auto: no step',
  oneWorker: 'auto: the heaviest step ({0}) may stream about {1} chunks/s, which one worker keeps easily (up to {2})',
  severalOverCores: 'auto: the heaviest step ({0}) may stream about {1} chunks/s: {2} workers at {3} each; this machine allows {4} ({5} cores less one)',
  several: 'auto: the heaviest step ({0}) may stream about {1} chunks/s: {2} workers at {3} each',
} as const;

/** A trace step's replay that went other than recorded (src/load/trace-gather.ts), kept in the file's warnings as `step: message`. */
export const TRACE_REPLAY_TEXT = {
  promptsLate:
    '{0} of {1} prompts were built after their send time: the client could not build them fast enough (a slow tokenizer or machine), so those requests went out late and the load was lighter than the trace\'s.',
  fellBehind:
    'the replay fell behind its trace: send lateness p99 {0} ms, max {1} ms (sent minus recorded time, scaled). The load over time was later and lighter than recorded: a concurrency cap held requests back, or this machine could not keep up (check its CPU, or lower --time-scale).',
} as const;

/** Why a run ended as it did (src/load/gather.ts), stored as its `statusReason`. */
export const STATUS_REASON_TEXT = {
  allFailed: 'Every measured request failed ({0}); the first: {1}',
  cancelled: 'Cancelled before the run finished; every request measured until then is kept.',
  nothingMeasured: 'No measured request finished within the step limits (all were warm-up or cut off).',
  clientFailed: 'The client failed, not the server: {0} The run was stopped: its figures would measure this machine.',
  /** The engine itself failed (the file could not be written, ...); after the reason the run had already failed for, when it had one. */
  engineStopped: 'The engine stopped with an error: {0}',
  engineStoppedAfter: '{0} The engine stopped with an error: {1}',
} as const;

/**
 * The thread that ran the benchmark (src/load/worker-host.ts) stopped without a word: the file's
 * `statusReason` (`file`), and the run's end as the live panel says it, with the file it kept or
 * without (the longer wording first: `{0}.` would take it in).
 */
export const RUNNER_THREAD_TEXT = {
  file: 'The benchmark worker stopped: {0}',
  kept: 'The benchmark worker stopped unexpectedly: {0}. The result file {1} keeps the {2} requests recorded before (status partial).',
  plain: 'The benchmark worker stopped unexpectedly: {0}.',
} as const;

/** The server-metrics scraper's warning when /metrics cannot be read (src/observe/metrics-scraper.ts), kept in the file's warnings. */
export const SERVER_METRICS_TEXT = {
  cannotRead: "Server metrics: cannot read {0} ({1}); the run goes on without the server's metrics while it fails.",
} as const;

/**
 * The run's token cross-check when it failed or checked one side only (src/observe/monitor.ts):
 * `{0}; ...`, its head first, which says what the client received in one of `received`'s words.
 */
export const CROSS_CHECK_TEXT = {
  head: 'Server/client token cross-check: the server counted {0} generated tokens during the run, {1} (tolerance {2})',
  received: {
    // The longer wordings first: 'the client received {0}' would take in the rest.
    between: 'the client received {0} counted and between {1} and {2} more in {3} requests whose counts are estimates',
    atLeast: 'the client received {0} counted and at least {1} more in {2} requests whose counts are estimates',
    counted: 'the client received {0}',
  },
  ending: {
    serverMoreFailed: '{0}; the server generated {1} more: another client on the same server, or streams this client lost ({2} requests failed).',
    serverMore: '{0}; the server generated {1} more: another client on the same server, or streams this client lost.',
    clientMore: "{0}; the client counted more than the server generated: its token counts may not be the server's (check usage), or the server's counter was reset.",
    lowerOnly:
      '{0}; only its lower side was checked: nothing bounds the output of the requests whose counts are estimates (no usage, no max_tokens), so another client on the same server would go unnoticed.',
  },
} as const;

/** The server-metrics scraper's other warnings (src/observe/metrics-scraper.ts), kept in the file's warnings. */
export const SCRAPE_PROBLEM_TEXT = {
  http404:
    "Server metrics: {0} answered HTTP {1} (no /metrics there: vLLM and SGLang serve it on the API port, SGLang needs --enable-metrics, llama.cpp --metrics; or set --server-metrics URL|off). The run goes on without the server's metrics while it does.",
  http: "Server metrics: {0} answered HTTP {1}. The run goes on without the server's metrics while it does.",
  tooLarge: 'Server metrics: {0} sent more than {1} MB; such scrapes are skipped.',
  timeoutLast:
    'Server metrics: {0} did not answer within {1} ms (the last scrape, after the last request); those scrapes are skipped, requests are not delayed. Raise --server-metrics-interval if the server is slow to render its metrics.',
  timeout:
    'Server metrics: {0} did not answer within {1} ms (80% of the {2} ms interval); those scrapes are skipped, requests are not delayed. Raise --server-metrics-interval if the server is slow to render its metrics.',
  empty: 'Server metrics: {0} answered with no metric at all; is it a Prometheus endpoint?',
  malformed: 'Server metrics: {0} sent {1} line(s) that are not Prometheus text (first, line {2}: {3}); the lines that parse are kept.',
  series: 'Server metrics: more than {0} series (maxSeries); the first {0} are kept, {1} and later new ones are not.',
} as const;

/** The GPU reader's warnings (src/observe/hardware.ts), kept in the file's warnings. */
export const GPU_METRICS_TEXT = {
  failed: 'GPU metrics: {0} is on the PATH but failed ({1}); the run goes on without GPU metrics.',
  noDevice: "GPU metrics: {0}'s output listed no device; the run goes on without GPU metrics.",
  failedDuring: 'GPU metrics: {0} failed during the run ({1}); those samples are missing.',
} as const;

/** The run's abort cross-check when the server's and the client's counts differ (src/observe/monitor.ts): `{0}; ...`, its head first. */
export const ABORT_CHECK_TEXT = {
  head: "Server/client abort cross-check: the server's {0} rose by {1} during the run, the client cancelled {2} requests mid-response",
  // The head when the engine's counter has no name LLM Bench knows.
  headUnnamed: "Server/client abort cross-check: the server's its abort counter rose by {0} during the run, the client cancelled {1} requests mid-response",
  agree: '{0}: they agree.',
  ending: {
    notCounted: "{0}; some vLLM versions do not count aborts there (vllm#31503), so the server's view cannot confirm them.",
    serverMore: '{0}; the server aborted more: another client on the same server, or requests it dropped itself.',
    serverFewer: '{0}; the server saw fewer: cancels that came before the server read the request, or a counter that misses some.',
  },
} as const;

/** A sweep's notes when it places its rates (src/load/plan.ts): the warnings are kept in the file's warnings. */
export const SWEEP_PLAN_TEXT = {
  cannotPlace: 'The sweep cannot place its rates: the synchronous or throughput step measured no request rate.',
  noGain: 'Throughput ({0} req/s) is not above synchronous ({1} req/s): the server does not gain from concurrency.',
  rates: 'Sweep rates: {0} req/s',
} as const;

/**
 * A run stopped because its endpoints failed from the start (src/load/gather.ts), stored as its
 * `statusReason`: `stopped`'s `{0}` counts the requests in `requests`' words, its verdicts are
 * `verdict`s joined by `; `, each saying why in one of `why`'s words.
 */
export const HOPELESS_TEXT = {
  stopped: {
    // The longer wordings first: the last one's {1} would take in the others.
    afterWarmUp: '{0} failed (after {1}, not counted in the table) {2}. The run was stopped rather than send more.',
    warmUpOnly: '{0} failed before any was measured {1}. The run was stopped rather than send more.',
    measured: '{0} failed {1}. The run was stopped rather than send more.',
  },
  requests: { measuredOne: '{0} measured request', measured: '{0} measured requests', warmUpOne: '{0} warm-up request', warmUp: '{0} warm-up requests' },
  verdict: 'at {0}: {1}',
  joined: '{0}; {1}',
  why: {
    connect: 'could not connect ({0})',
    apiKey: 'HTTP {0}: check the API key ({1})',
    notFound: 'HTTP 404: check that the base URL ends in /v1 and the model name ({0})',
  },
  /** One endpoint of several failing from the start, kept in the file's warnings. */
  goesOn: {
    failover: 'Requests to {0} fail from the start: {1}. The run goes on with the other endpoints; failover sends its requests to them while it fails.',
    share: 'Requests to {0} fail from the start: {1}. The run goes on with the other endpoints; its share of the requests fails (add --url-failover to move it to the others).',
  },
} as const;

/**
 * What a trace replay left out of its file (src/workload/trace.ts), kept in the file's warnings:
 * `file`'s `{1}` is one or two sentences (`sentences`), the bad rows' reasons joined by `; `.
 */
export const TRACE_LEFT_OUT_TEXT = {
  file: 'Trace file {0}: {1}.',
  sentences: '{0}. {1}',
  skippedOne: '{0} bad row was skipped: {1}',
  skipped: '{0} bad rows were skipped: {1}',
  reasons: '{0}; {1}',
  reasonOne: '{0} {1} (line {2})',
  reason: '{0} {1} (first at line {2})',
  failedOne: '{0} row records a request that failed (0 response tokens) and was left out (line {1})',
  failed: '{0} rows record requests that failed (0 response tokens) and were left out (first at line {1})',
  why: {
    unparsable: 'unreadable as a row',
    'missing-field': 'with a field missing',
    'bad-time': 'with a time that is not one',
    'time-backwards': 'with times going backwards',
    'bad-length': 'with a token count that is not a whole number of at least 1',
    'bad-hash-ids': 'with hash ids that are not a list of whole numbers',
  },
} as const;

/**
 * Why a tune ended as it did, and why a trial was refused (src/tune/index.ts), stored in the tune
 * file (`statusReason`, a trial's `reason`). A finished search's reason is one of `searched`, or
 * one of `remeasured` with the search's sentence as its `{0}` when re-measurement ran.
 */
export const TUNE_END_TEXT = {
  searched: {
    trials: 'The budget of {0} launched trials is spent.',
    wallTime: 'The budget of {0} s is spent.',
    allTried: 'Every combination the constraints allow has been tried.',
  },
  remeasured: {
    none: '{0} No trial scored: nothing was re-measured.',
    one: '{0} The best trial was re-measured {1} times each.',
    several: '{0} The best {1} trials were re-measured {2} times each.',
  },
  cancelled: 'Cancelled: the running server was stopped. Continue with --resume.',
  declined: 'The first launch was not confirmed: nothing was started.',
  refusedInARow: 'The constraints refused {0} combinations in a row: they leave (almost) nothing to try. Widen the space or loosen the rules.',
  stopped: 'The tune stopped: {0}',
  /** A trial's reason: the rule's name and its own message (kept as the rule set wrote it). */
  refused: 'refused by rule {0}: {1}',
} as const;

/**
 * A worker thread or shard lost during a run (src/load/executors.ts), stored as its `statusReason`
 * and among its warnings: `{0}` is who (CLIENT_BOUND_TEXT.who, a shard's with `shardAt`), the
 * reason in parentheses is the thread's or the connection's own words.
 */
export const EXECUTOR_LOST_TEXT = {
  // The longest wording first: the shorter ones' figures would take it in.
  inFlight:
    '{0} stopped during step {1} ({2}): its last report, {3} ms before, had {4} in flight, lost with any that ended after that report. The run was stopped; every request recorded before is kept.',
  during: '{0} stopped during step {1} ({2}). The run was stopped; every request recorded before is kept.',
  stopped: '{0} stopped ({1}). The run was stopped; every request recorded before is kept.',
  requests: { one: '{0} request', many: '{0} requests' },
  shardAt: '{0} (host {1}, pid {2})',
  /** Why the thread or shard was lost, in the parentheses above (an error's own message is kept as it came). */
  why: {
    notReady: 'it did not get ready within {0} s',
    notEnded: "it did not end its part within {0} s of the step's stop",
    silent: 'it said nothing for {0} s: its event loop is blocked',
    closedBeforeStart: 'its connection closed before the run started',
    closed: 'its connection closed',
    tooLong: 'it sent a message longer than the protocol allows',
    notJson: 'it sent a line that is not JSON',
    offProtocolWhy: 'it sent a message that does not fit the protocol ({0})',
    offProtocol: 'it sent a message that does not fit the protocol',
    threadExited: 'the worker thread exited with code {0}',
  },
} as const;

/**
 * Why a tune's trial did not score (src/tune/index.ts, src/tune/server.ts), stored as its `reason`.
 * `failed`'s `{0}` is the benchmark's own status reason, worded by its own template. A server's
 * last line is its own words. The longer wordings first: `{0} (exit code {1})` would take in the
 * silent server's.
 */
export const TRIAL_REASON_TEXT = {
  noSlo: 'No step met the SLOs.',
  couldNotRun: 'The benchmark could not run: {0}',
  failed: 'The benchmark failed: {0}',
  noReason: 'no reason given',
  silentExitCode: 'the server exited without a word (exit code {0})',
  silentKilled: 'the server exited without a word (killed by {0})',
  silent: 'the server exited without a word',
  exitCode: '{0} (exit code {1})',
  killed: '{0} (killed by {1})',
  notReadyLast: 'not ready after {0} s (startTimeoutSec); its last line: {1}',
  notReady: 'not ready after {0} s (startTimeoutSec)',
} as const;

/**
 * A tune's port that another process held (src/tune/index.ts, src/tune/server.ts): after a trial's
 * server stopped (the tune's end reason) or before it answered (a trial's reason). `{holder}` is
 * one of `holder`'s wordings; a process is named by its pid and command line, as written.
 */
export const PORT_TEXT = {
  stillTaken:
    "Port {0} was still taken {1} s after trial {2}'s server stopped, by {3}: a server left running would share the machine with the next trial and skew its figures. Stop it, then continue with --resume.",
  stillTakenRemeasure:
    "Port {0} was still taken {1} s after the server of trial {2}'s re-measurement {3} stopped, by {4}: a server left running would share the machine with the next trial and skew its figures. Stop it, then continue with --resume.",
  foreign: 'port {0} answers, but not from the launched server: its listening socket belongs to {1}. Another server took the port between its choice and the launch; the trial did not benchmark it',
  holder: { process: 'process {0}', unseen: 'a process this user cannot see', unnamed: 'a process this system does not name' },
} as const;

/** What the coordinator of a sharded run notes on shards that did not join it (src/load/shards.ts), kept in the file's warnings. */
export const SHARD_NOTE_TEXT = {
  who: 'Shard {0} (host {1}, pid {2})',
  notShardProtocol: 'A connection from {0} did not speak the shard protocol ({1}); it was closed.',
  wrongToken: 'A connection from {0} gave a wrong run token; it was closed.',
  otherCount: '{0} was refused: it was started with {1} shards, this run has {2}.',
  noSuchShard: '{0} was refused: no such shard besides the coordinator.',
  registeredAlready: '{0} was refused: shard {1} had registered already.',
  flagsDiffer: "{0} was refused: its run flags differ from the coordinator's (another plan, seed or endpoint).",
  lateRegistered: '{0} registered after the run had started without it; it was closed.',
  lateFinished: '{0} finished registering after the run had started without it; it was closed.',
  closedBefore: '{0}: {1} before the run started.',
  couldNotRegister: '{0} could not register: {1}',
} as const;

/** A warning of one endpoint's /metrics scraper when a run scrapes several (src/observe/replica-metrics.ts): the scraper's own warning after the endpoint's index. */
export const REPLICA_WARNING_TEXT = 'Endpoint {0}: {1}';
/** Why failover took an endpoint out or back (src/load/endpoints.ts), stored as `step.failovers[].reason`. */
export const FAILOVER_TEXT = {
  out: '{0} requests in a row failed (the last: {1}); its requests go to the other endpoints for {2} s',
  back: 'a request succeeded after its cool-off',
} as const;
