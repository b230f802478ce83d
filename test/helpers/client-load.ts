/** A client's load over a step, as the runner records it (src/format/result.ts ClientLoad), for the client-bound rule's tests. */
import type { ClientLoad, ThreadLoad } from '../../src/format/result';

/** One worker's thread on an easy step, with `figures` over it. */
export const clientThread = (figures: Partial<ThreadLoad>, worker = 0): ClientLoad['threads'][number] => ({
  worker,
  loopDelayMs: { p50: 0.2, p99: 2, max: 4 },
  busy: 0.3,
  cpuShare: 0.3,
  coreWaitShare: 0.01,
  sendLatenessMs: { p50: 0.05, p99: 1, max: 2 },
  chunksPerSecond: 50_000,
  bytesPerSecond: 10_000_000,
  ...figures,
});
