/**
 * The webview's side of the host connection. `acquireVsCodeApi` may be called once per page, so
 * the handle is cached here. Every message is checked against the view's zod schemas in both
 * directions: what arrives may be stale or from a different version, and what leaves must be what
 * the host parses.
 */
import type { z } from 'zod';
import { describeZodError } from '../../src/format/result';

/** What VS Code injects into webviews (and what tests fake). */
export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare global {
  // Provided by VS Code inside webviews; tests define it on the window.
  function acquireVsCodeApi(): VsCodeApi;
}

let cachedApi: VsCodeApi | undefined;

function vscodeApi(): VsCodeApi {
  cachedApi ??= acquireVsCodeApi();
  return cachedApi;
}

export interface HostConnection<In, Out, State> {
  /** Validates and sends; an invalid message is a bug in the view, so it throws. */
  post(message: Out): void;
  /**
   * Calls `onMessage` with each valid message from the host and `onInvalid` with a readable
   * reason for each message that does not fit the schema. Returns an unsubscribe function.
   */
  listen(onMessage: (message: In) => void, onInvalid: (reason: string) => void): () => void;
  /** State saved by an earlier instance of this view, if it still fits the schema. */
  getState(): State | undefined;
  setState(state: State): void;
}

export function connectToHost<In, Out, State = never>(schemas: {
  incoming: z.ZodType<In>;
  outgoing: z.ZodType<Out>;
  state?: z.ZodType<State>;
}): HostConnection<In, Out, State> {
  const api = vscodeApi();
  return {
    post(message) {
      const parsed = schemas.outgoing.safeParse(message);
      if (!parsed.success) throw new Error(`Invalid message to the host: ${describeZodError(parsed.error)}`);
      api.postMessage(parsed.data);
    },
    listen(onMessage, onInvalid) {
      const handler = (event: MessageEvent<unknown>) => {
        const parsed = schemas.incoming.safeParse(event.data);
        if (parsed.success) onMessage(parsed.data);
        else onInvalid(describeZodError(parsed.error));
      };
      window.addEventListener('message', handler);
      return () => window.removeEventListener('message', handler);
    },
    getState() {
      if (!schemas.state) return undefined;
      const parsed = schemas.state.safeParse(api.getState());
      return parsed.success ? parsed.data : undefined;
    },
    setState(state) {
      api.setState(state);
    },
  };
}
