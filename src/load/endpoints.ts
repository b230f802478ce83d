/**
 * Spreading one executor's requests over the run's endpoints (replicas of one model, `endpoints` in
 * the config): which endpoint each request goes to (round-robin, or the one with the fewest
 * requests in flight), and failover, which takes an endpoint that keeps failing out of the turn for
 * a cool-off. Each executor routes its own requests with its own view of the endpoints; a run with
 * one endpoint routes every request to it, as before there were several.
 */
import { endpointsOf, type EndpointStrategy, type FailoverConfig, type RunConfig } from '../format/config';
import type { FailoverEvent, RequestRecord } from '../format/result';
import { fillPlaceholders, FAILOVER_TEXT } from '../format/warning-text';
import type { ClientContext } from './types';

/**
 * Failures that say the endpoint itself is unwell, not the request: no connection, a connection
 * closed before any answer, a 5xx. A 4xx or a stream that broke after it began says nothing of the kind.
 */
export function endpointDown(record: Pick<RequestRecord, 'error' | 'httpStatus'>): boolean {
  const error = record.error;
  if (error === null) return false;
  if (error.kind === 'connect' || error.kind === 'timeout-connect') return true;
  if (error.kind === 'reset' && record.httpStatus === null) return true;
  return error.kind === 'http' && record.httpStatus !== null && record.httpStatus >= 500;
}

interface EndpointState {
  inFlight: number;
  /** Failures in a row that endpointDown counts; reset by a success. */
  failures: number;
  /** performance.now()-based time (the clock `now` gives) until which it is out; 0: in. */
  outUntil: number;
  /** It was out and has not answered since. */
  wasOut: boolean;
  lastError: string;
}

export class EndpointRouter {
  private readonly states: EndpointState[];
  private next = 0;

  constructor(
    /** One client context per endpoint, in the config's order. */
    readonly contexts: readonly ClientContext[],
    private readonly strategy: EndpointStrategy,
    private readonly failover: FailoverConfig | undefined,
    /** Milliseconds from the step start. */
    private readonly now: () => number,
    private readonly onEvent: (event: FailoverEvent) => void,
  ) {
    this.states = contexts.map(() => ({ inFlight: 0, failures: 0, outUntil: -Infinity, wasOut: false, lastError: '' }));
  }

  /**
   * The endpoint for the next request: by the strategy, over the endpoints that are in (all of
   * them without failover). When failover has every endpoint out, the one whose cool-off ends first.
   */
  pick(): number {
    const count = this.states.length;
    if (count === 1) return 0;
    const at = this.now();
    const usable = (i: number): boolean => this.failover === undefined || (this.states[i] as EndpointState).outUntil <= at;
    let chosen = -1;
    for (let step = 0; step < count; step++) {
      const i = (this.next + step) % count;
      if (!usable(i)) continue;
      if (this.strategy === 'round-robin') {
        chosen = i;
        break;
      }
      if (chosen === -1 || (this.states[i] as EndpointState).inFlight < (this.states[chosen] as EndpointState).inFlight) chosen = i;
    }
    if (chosen === -1) {
      chosen = 0;
      for (let i = 1; i < count; i++) if ((this.states[i] as EndpointState).outUntil < (this.states[chosen] as EndpointState).outUntil) chosen = i;
    }
    this.next = (chosen + 1) % count;
    return chosen;
  }

  started(endpoint: number): void {
    (this.states[endpoint] as EndpointState).inFlight++;
  }

  /** A request to `endpoint` ended: its count in flight, and what failover makes of its outcome. */
  ended(endpoint: number, record: Pick<RequestRecord, 'error' | 'httpStatus'>): void {
    const state = this.states[endpoint] as EndpointState;
    state.inFlight--;
    if (record.error?.kind === 'cancelled' || this.failover === undefined) return;
    if (!endpointDown(record)) {
      state.failures = 0;
      if (record.error === null && state.wasOut) {
        state.wasOut = false;
        this.onEvent({ atMs: this.now(), endpoint, event: 'back', reason: FAILOVER_TEXT.back });
      }
      return;
    }
    state.failures++;
    state.lastError = record.error?.message ?? '';
    const at = this.now();
    // One more failure after a cool-off puts it out again; within its cool-off, requests sent
    // before it went out are still ending and do not extend it.
    if (state.outUntil > at) return;
    if (state.failures >= this.failover.consecutiveErrors || state.wasOut) {
      state.outUntil = at + this.failover.coolOffSec * 1000;
      state.wasOut = true;
      this.onEvent({
        atMs: at,
        endpoint,
        event: 'out',
        reason: fillPlaceholders(FAILOVER_TEXT.out, [state.failures, state.lastError, this.failover.coolOffSec]),
      });
    }
  }
}

/** One client context per endpoint of the run: its config (the endpoint in place of the first), its key, the step's pool and signal. */
export function endpointContexts(base: ClientContext, apiKeys: readonly (string | undefined)[] | undefined): ClientContext[] {
  const config = base.config;
  if (config.endpoints === undefined) return [base];
  return endpointsOf(config).map((endpoint, i): ClientContext => ({
    ...base,
    // The client works out the wire once per config object: one per endpoint, made once per step.
    config: i === 0 ? base.config : ({ ...config, endpoint } satisfies RunConfig),
    apiKey: apiKeys?.[i] ?? (i === 0 ? base.apiKey : undefined),
  }));
}
