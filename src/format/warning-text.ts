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
