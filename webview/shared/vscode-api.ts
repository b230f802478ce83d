/**
 * The page's side of the one protocol with the host (src/format/messages/protocol.ts), the same in
 * every view: the page says `ready` once it listens, gets the host's events (checked against the
 * view's schemas: what arrives may be stale or from another version), asks the host with requests
 * (its buttons), and answers the host's requests for a chart's PNG. What does not fit is shown in
 * the page and told to the host (`view-error`), which logs it. `acquireVsCodeApi` may be called once
 * per page, so the handle is cached here.
 */
import * as z from 'zod';
import { HostRequestSchema, LanguageEventSchema, MessageChannel, type HostRequest, type LanguageEvent, type ViewEvent } from '../../src/format/messages/protocol';
import { setLanguage, t } from './l10n';
import { byId, errorBanner, replaceChildren } from './dom';

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

/** How long the page waits for a chart the host asks for that is not drawn yet (charts draw on the frame after their view). */
const CHART_WAIT_MS = 5_000;

type KeepState = { type: 'keep-state'; state: unknown };

export interface HostConnection<In, Ask, State> {
  /**
   * Listens, then says `ready`. `onEvent` gets each event from the host that fits, except one that
   * repeats the last (the host posts its view early and again on `ready`: it is drawn once);
   * `onInvalid` gets the reason for each message that does not fit (by default a banner on top of
   * the page). `keep-state` events are kept as the webview's state, for a restore.
   */
  start(onEvent: (event: In) => void, onInvalid?: (reason: string) => void): void;
  /** Asks the host (a button's action); true once done, false when it failed (the host says why to the user). */
  ask(request: Ask): Promise<boolean>;
  /** Where the page's charts come from when the host asks for one as PNG (export, Save PNG). */
  charts(pngOf: (chartId: string) => string | undefined): void;
  /** State kept by an earlier instance of this page, if it still fits the schema. */
  getState(): State | undefined;
  setState(state: State): void;
}

/** The view's events and the host's `language` event: each body parsed by its own schema, so that what does not fit is said precisely. */
function withLanguage<In>(events: z.ZodType<In>): z.ZodType<In | LanguageEvent> {
  return z.unknown().transform((body, ctx) => {
    const isLanguage = typeof body === 'object' && body !== null && (body as { type?: unknown }).type === 'language';
    const parsed = (isLanguage ? LanguageEventSchema : events).safeParse(body);
    if (parsed.success) return parsed.data as In | LanguageEvent;
    ctx.issues.push(...(parsed.error.issues as typeof ctx.issues));
    return z.NEVER;
  }) as unknown as z.ZodType<In | LanguageEvent>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function connectToHost<In extends { type: string }, Ask extends { type: string }, State = never>(schemas: {
  /** The host's events to this view. */
  events: z.ZodType<In>;
  /** What the page keeps for a restore. */
  state?: z.ZodType<State>;
}): HostConnection<Exclude<In, KeepState>, Ask, State> {
  const api = vscodeApi();
  let pngOf: ((chartId: string) => string | undefined) | undefined;
  let onEvent: (event: Exclude<In, KeepState>) => void = () => undefined;
  let onInvalid = (reason: string) => byId('app').prepend(errorBanner(t('A message from LLM Bench could not be read.'), reason));
  let lastShown: string | undefined;
  let lastEvent: Exclude<In, KeepState> | undefined;
  let language: string | undefined;
  const channel: MessageChannel<In | LanguageEvent, HostRequest, ViewEvent, Ask> = new MessageChannel({
    post: (envelope) => api.postMessage(envelope),
    events: withLanguage(schemas.events),
    requests: HostRequestSchema,
    onEvent: (event) => {
      if (event.type === 'language') {
        const { locale, strings } = event as LanguageEvent;
        const key = JSON.stringify([locale, strings]);
        if (key === language) return;
        language = key;
        setLanguage(locale, strings);
        // A view drawn before the language came is drawn again in it.
        if (lastEvent !== undefined) onEvent(lastEvent);
        return;
      }
      if (event.type === 'keep-state') return api.setState((event as unknown as KeepState).state);
      const key = JSON.stringify(event);
      if (key === lastShown) return;
      lastShown = key;
      lastEvent = event as Exclude<In, KeepState>;
      onEvent(lastEvent);
    },
    onRequest: async ({ chartId }) => {
      if (!pngOf) throw new Error('this view has no charts to save');
      for (const deadline = Date.now() + CHART_WAIT_MS; ; await sleep(100)) {
        const dataUrl = pngOf(chartId);
        if (dataUrl) return { dataUrl };
        if (Date.now() > deadline) throw new Error(`this view has no chart "${chartId}"`);
      }
    },
    onProblem: (problem) => {
      // The next good view is drawn even if it repeats the one before the bad message.
      lastShown = undefined;
      onInvalid(problem);
      channel.event({ type: 'view-error', message: problem.slice(0, 2000) });
    },
  });
  return {
    start(handler, invalid) {
      onEvent = handler;
      if (invalid) onInvalid = invalid;
      window.addEventListener('message', (event: MessageEvent<unknown>) => channel.receive(event.data));
      channel.event({ type: 'ready' });
    },
    ask: (request) =>
      channel.request(request, z.unknown()).then(
        () => true,
        () => false,
      ),
    charts(source) {
      pngOf = source;
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

/**
 * A panel showing one task's whole state (a run, a tune): draws the state it kept before a reload
 * at once, then each state the host sends, keeping it for the next reload. `empty` shows while there
 * is no task yet, `shown` once there is. An update it cannot read leaves the last good state, with a
 * banner in `messages` until a good one comes.
 */
export function showStates<State>(
  host: HostConnection<{ type: 'state'; state: State | null }, unknown, { state: State | null }>,
  page: { panel: string; messages: HTMLElement; empty: HTMLElement; shown: HTMLElement; render(state: State | null): void },
): void {
  const show = (state: State | null) => {
    byId('app').setAttribute('aria-busy', 'false');
    page.empty.classList.toggle('hidden', state !== null);
    page.shown.classList.toggle('hidden', state === null);
    page.render(state);
  };
  host.start(
    (message) => {
      replaceChildren(page.messages, []);
      show(message.state);
      host.setState({ state: message.state });
    },
    (reason) => replaceChildren(page.messages, [errorBanner(t('LLM Bench sent the {0} an update it could not read; the panel shows the last good state.', page.panel), reason)]),
  );
  show(host.getState()?.state ?? null);
}
