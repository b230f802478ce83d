/**
 * Webview pages in tests. `openPage` loads a built bundle (dist/webview/<view>.js, built by the test
 * command) into jsdom with a fake acquireVsCodeApi that speaks the one protocol
 * (src/format/messages/protocol.ts) as VS Code carries it: messages cross as JSON copies. `send`
 * posts the host's event, `ask` a host request; `posted` lists the bodies of what the page sent
 * (events and requests, in order), `envelopes` the envelopes themselves. `FakePanel` is the
 * extension host's side of a webview panel (what src/host/webview-session.ts uses): a page attached
 * to it gets only what is posted while the panel is visible, one task later, as in VS Code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSDOM, VirtualConsole } from 'jsdom';
import type { Envelope } from '../../src/format/messages/protocol';
import type { SessionPanel } from '../../src/host/webview-session';

const root = process.env['LLMBENCH_ROOT'] ?? join(__dirname, '..', '..', '..');
const bundles = new Map<string, string>();

/** VS Code passes messages and state as JSON; so does the fake (which also leaves jsdom's realm). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export interface Page {
  window: JSDOM['window'];
  document: Document;
  envelopes: Envelope[];
  /** The bodies of the page's events and requests, in order (replies left out). */
  posted: unknown[];
  /** Everything the page kept with setState, in order. */
  kept: unknown[];
  saved(): unknown;
  /** jsdom errors other than the missing canvas (the pages say so in place of each chart), and console errors. */
  scriptErrors: string[];
  /** A host event. */
  send(body: unknown): void;
  /** Any message, as VS Code would hand it to the page. */
  deliver(message: unknown): void;
  /** A host request; answers the page's reply envelope. */
  ask(body: unknown): Promise<Extract<Envelope, { kind: 'reply' }>>;
  /** Closes the page as a panel closes: its timers stop (a live page's clock would keep the test process alive). */
  close(): void;
  /** Where the page's messages go besides `envelopes` (a FakePanel). */
  onPost?: (message: unknown) => void;
}

let hostIds = 1000;

/** `language`: the display language the host writes into the page (src/host/webview-html.ts), as its JSON data block. */
export function openPage(view: string, options: { saved?: unknown; onPost?: (message: unknown) => void; language?: unknown } = {}): Page {
  const bundle = bundles.get(view) ?? readFileSync(join(root, 'dist', 'webview', `${view}.js`), 'utf8');
  bundles.set(view, bundle);
  const scriptErrors: string[] = [];
  const virtualConsole = new VirtualConsole();
  virtualConsole.on('jsdomError', (e) => {
    if (!/Not implemented: HTMLCanvasElement/.test(e.message)) scriptErrors.push(e.message);
  });
  virtualConsole.on('error', (...args: unknown[]) => scriptErrors.push(args.map(String).join(' ')));
  const language = options.language === undefined ? '' : `<script type="application/json" id="llmbench-language">${JSON.stringify(options.language).replace(/</g, '\\u003c')}</script>`;
  const dom = new JSDOM(`<!DOCTYPE html><html><body class="vscode-dark"><main id="app" aria-busy="true"></main>${language}</body></html>`, {
    runScripts: 'outside-only',
    pretendToBeVisual: true,
    virtualConsole,
  });
  let state = options.saved;
  const replies = new Map<number, (reply: Extract<Envelope, { kind: 'reply' }>) => void>();
  const page: Page = {
    window: dom.window,
    document: dom.window.document,
    envelopes: [],
    posted: [],
    kept: [],
    saved: () => state,
    scriptErrors,
    send: (body) => page.deliver({ kind: 'event', id: ++hostIds, body }),
    deliver: (message) => dom.window.dispatchEvent(new dom.window.MessageEvent('message', { data: copy(message) })),
    ask: (body) =>
      new Promise((resolve) => {
        const id = ++hostIds;
        replies.set(id, resolve);
        page.deliver({ kind: 'request', id, body });
      }),
    close: () => dom.window.close(),
    ...(options.onPost ? { onPost: options.onPost } : {}),
  };
  Object.assign(dom.window, {
    acquireVsCodeApi: () => ({
      postMessage: (message: unknown) => {
        const envelope = copy(message) as Envelope;
        page.envelopes.push(envelope);
        if (envelope.kind === 'reply') replies.get(envelope.replyTo)?.(envelope);
        else page.posted.push(envelope.body);
        page.onPost?.(envelope);
      },
      getState: () => state,
      setState: (s: unknown) => {
        state = copy(s);
        page.kept.push(state);
      },
    }),
  });
  dom.window.eval(bundle);
  return page;
}

type Listener<T> = (value: T) => unknown;

function emitter<T>(): { event: (listener: Listener<T>) => { dispose(): void }; fire(value: T): void } {
  const listeners = new Set<Listener<T>>();
  return {
    event: (listener) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    fire: (value) => [...listeners].forEach((l) => l(value)),
  };
}

/** The next task: what VS Code posts either way arrives no sooner. */
export const nextTask = () => new Promise((resolve) => setImmediate(resolve));

/** A webview panel as the host sees it: a page attached to it receives what is posted while it is visible. */
export class FakePanel implements SessionPanel {
  visible = true;
  /** Everything the host posted while visible. */
  readonly delivered: unknown[] = [];
  private deliverTo: ((message: unknown) => void) | undefined;
  private readonly received = emitter<unknown>();
  private readonly viewState = emitter<unknown>();
  private readonly disposed = emitter<void>();
  readonly onDidChangeViewState = this.viewState.event;
  readonly onDidDispose = this.disposed.event;
  readonly webview = {
    postMessage: async (message: unknown): Promise<boolean> => {
      // A hidden webview drops what it is sent (retainContextWhenHidden is off).
      if (!this.visible) return false;
      this.delivered.push(copy(message));
      const deliver = this.deliverTo;
      setImmediate(() => deliver?.(copy(message)));
      return true;
    },
    onDidReceiveMessage: this.received.event,
  };

  /** Loads `view` into this panel (again: a reload), its messages going to the host one task later. */
  load(view: string, options: { saved?: unknown } = {}): Page {
    const page = openPage(view, { ...options, onPost: (message) => setImmediate(() => this.received.fire(message)) });
    this.deliverTo = page.deliver;
    return page;
  }

  /** Hands what the host posts (while visible, one task later) to `receive` instead of a page. */
  connect(receive: (message: unknown) => void): void {
    this.deliverTo = receive;
  }

  /** A message from the page, as the host receives it. */
  fromPage(message: unknown): void {
    this.received.fire(copy(message));
  }

  setVisible(visible: boolean): void {
    this.visible = visible;
    this.viewState.fire(undefined);
  }

  dispose(): void {
    this.disposed.fire();
  }
}
