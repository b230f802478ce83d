/**
 * Cancellation by design (`cancel` in the config): which requests the run aborts, and when. The
 * choice is the seed's, for each request by its step's place in the run (the step's first prompt
 * and session) and its index in the step, so that a run started again with the same seed cancels
 * the same requests at the same delays, whichever executor sends them. Warm-up requests are never
 * cancelled: they only warm the server.
 */
import type { CancelConfig } from '../format/config';
import { createRandom } from '../workload/random';
import { mixSeed } from '../workload/sources';
import type { RunCursor } from './plan';

/** How long after its send request `index` of the step starting at `step` is cancelled, or undefined when it is not. */
export function cancelDelayMs(cancel: CancelConfig | undefined, seed: number, step: RunCursor, index: number, warmup: boolean): number | undefined {
  if (cancel === undefined || warmup) return undefined;
  const random = createRandom(mixSeed(mixSeed(mixSeed(seed ^ 0x63616e63, step.prompt), step.session), index));
  // Both draws happen whatever the first says, so that the rate does not move the delays.
  const chosen = random.next() < cancel.rate;
  const within = random.next();
  if (!chosen) return undefined;
  const after = cancel.afterMs;
  return typeof after === 'number' ? after : Math.round(after.min + within * (after.max - after.min));
}
