/**
 * How many worker threads send a run's requests: the number asked for, or `auto`'s rule
 * (docs/architecture.md, "Workers"): as many as the run's heaviest step needs at EASY_CHUNKS_PER_WORKER
 * streamed chunks a second each, one when one keeps it easily, never more than the cores less one
 * (the thread that gathers the records, and the rest of the machine, keep a core).
 */
import { availableParallelism } from 'node:os';
import type { RunConfig, TokenCount } from '../format/config';
import type { WorkersInfo } from '../format/result';
import type { RunPlan, StepPlan } from './plan';

/**
 * Streamed chunks a second one worker keeps easily: about a fifth of what one thread reads when it
 * is busy all the time (docs/performance.md, bench:engine's table 1), a margin chosen to keep a
 * worker well under the client-bound limits; `bench:scale threshold` measures where they are crossed.
 */
export const EASY_CHUNKS_PER_WORKER = 100_000;
/**
 * A closed loop's chunks a second per request in flight, when nothing says how fast the server
 * streams: a fast server's per-stream rate at high concurrency (a small model on a current GPU).
 */
export const ASSUMED_STREAM_CHUNKS_PER_SEC = 150;
/** Output tokens assumed of a request whose length the workload leaves to the server or a dataset's replies. */
export const ASSUMED_OUTPUT_TOKENS = 256;

/** The most workers this machine allows: its cores less one, at least one. */
export function maxWorkers(cores = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

const meanOf = (count: TokenCount): number => (typeof count === 'number' ? count : count.mean);

/** Content chunks one request streams, as planned (one for a whole body). */
function chunksPerRequest(config: RunConfig): number {
  if (!config.request.stream) return 1;
  const output = config.workload.outputTokens;
  return output === undefined || output === 'reply' ? ASSUMED_OUTPUT_TOKENS : meanOf(output);
}

/** The most requests an open-loop schedule starts within any one second. */
function peakPerSecond(schedule: Float64Array): number {
  let peak = 0;
  let first = 0;
  for (let last = 0; last < schedule.length; last++) {
    while ((schedule[last] as number) - (schedule[first] as number) >= 1) first++;
    peak = Math.max(peak, last - first + 1);
  }
  return peak;
}

/** The chunks a second a step may stream at its peak, as planned. */
export function plannedChunkRate(step: StepPlan, config: RunConfig): number {
  const pacing = step.pacing;
  if (pacing.kind === 'closed') return pacing.lanes * ASSUMED_STREAM_CHUNKS_PER_SEC;
  // A trace's send times are read from its file as it runs: its busiest bucket of recorded load stands for its peak.
  const peak = pacing.kind === 'trace' ? Math.max(0, ...(step.profile.trace?.recordedRates ?? []).map((r) => r.rate)) : peakPerSecond(pacing.schedule);
  const byRate = peak * chunksPerRequest(config);
  return pacing.maxConcurrency === null ? byRate : Math.min(byRate, pacing.maxConcurrency * ASSUMED_STREAM_CHUNKS_PER_SEC);
}

const thousands = (n: number): string => Math.round(n).toLocaleString('en-US');

/**
 * The workers of a run: the configured number, or `auto`'s, with why in words (the result file and
 * the log keep it). A sweep's rate steps are never heavier than its throughput step, which the plan holds.
 */
export function resolveWorkers(config: RunConfig, plan: RunPlan, cores = availableParallelism()): WorkersInfo {
  const most = maxWorkers(cores);
  const asked = config.workers ?? 'auto';
  if (asked !== 'auto') {
    const over = asked > most ? ` (more than this machine's ${cores} cores less one: they share cores)` : '';
    return { count: asked, reason: `asked for ${asked}${over}` };
  }
  let heaviest: { step: StepPlan; rate: number } | null = null;
  for (const step of plan.steps) {
    const rate = plannedChunkRate(step, config);
    if (heaviest === null || rate > heaviest.rate) heaviest = { step, rate };
  }
  if (heaviest === null) return { count: 1, reason: 'auto: no step' };
  const needed = Math.max(1, Math.ceil(heaviest.rate / EASY_CHUNKS_PER_WORKER));
  const count = Math.min(needed, most);
  const load = `auto: the heaviest step (${heaviest.step.name}) may stream about ${thousands(heaviest.rate)} chunks/s`;
  if (needed === 1) return { count, reason: `${load}, which one worker keeps easily (up to ${thousands(EASY_CHUNKS_PER_WORKER)})` };
  const limit = count < needed ? `; this machine allows ${most} (${cores} cores less one)` : '';
  return { count, reason: `${load}: ${needed} workers at ${thousands(EASY_CHUNKS_PER_WORKER)} each${limit}` };
}
