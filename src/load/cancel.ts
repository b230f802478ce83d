/**
 * Cancellation by design (`cancel` in the config): which requests the run aborts, and when. The
 * choice is the seed's, per step and request, so that a run and its repeat cancel the same
 * requests at the same delays; warm-up requests are never cancelled (they only warm the server).
 */
import type { CancelConfig } from '../format/config';
import { createRandom } from '../workload/random';
import { mixSeed } from '../workload/sources';

/** How long after its send request `index` of step `stepIndex` is cancelled, or undefined when it is not. */
export function cancelDelayMs(cancel: CancelConfig | undefined, seed: number, stepIndex: number, index: number, warmup: boolean): number | undefined {
  if (cancel === undefined || warmup) return undefined;
  const random = createRandom(mixSeed(mixSeed(seed ^ 0x63616e63, stepIndex), index));
  // Both draws happen whatever the first says, so that the rate does not move the delays.
  const chosen = random.next() < cancel.rate;
  const within = random.next();
  if (!chosen) return undefined;
  const after = cancel.afterMs;
  return typeof after === 'number' ? after : Math.round(after.min + within * (after.max - after.min));
}
