/**
 * Turns many "something changed" signals into at most one delivery per interval. Delivery may be
 * refused (the panel is hidden): the change stays pending, with no timer running, until `flush`
 * is called again (when the panel becomes visible).
 */
export class Coalescer {
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private lastDeliveryMs = -Infinity;

  /** `deliver` returns false when it could not deliver now. */
  constructor(
    private readonly intervalMs: number,
    private readonly deliver: () => boolean,
  ) {}

  /** Notes a change; it is delivered at the next free slot. */
  request(): void {
    this.pending = true;
    if (this.timer) return;
    const wait = Math.max(0, this.lastDeliveryMs + this.intervalMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Delivers a pending change now, if the receiver takes it. */
  flush(): void {
    if (!this.pending) return;
    if (this.deliver()) {
      this.pending = false;
      this.lastDeliveryMs = performance.now();
    }
  }

  /** Delivers now whether or not anything is pending (a receiver asking for the state). */
  forceFlush(): void {
    this.pending = true;
    this.flush();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = false;
  }
}
