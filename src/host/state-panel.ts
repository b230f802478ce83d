/**
 * A panel that shows the state of one long task the host runs (a benchmark run, a tune). The host
 * owns the state; the panel is a view of it that may be hidden, closed, reopened or restored after a
 * reload. Updates are coalesced to UPDATE_INTERVAL_MS; the panel's session (webview-session.ts)
 * posts them only while the panel is visible and the current state again when it becomes visible or
 * says `ready`. Closing the panel never stops the task: Cancel is a button of its own.
 */
import * as vscode from 'vscode';
import type { z } from 'zod';
import { Coalescer } from './coalescer';
import { registerPanelRestorer } from './panel-restore';
import { hostWebview, webviewOptions, type WebviewPage } from './webview-html';
import type { WebviewSession } from './webview-session';

const UPDATE_INTERVAL_MS = 250;

/** What kind of panel: its view type, page and state. */
export interface StatePanelKind<State> {
  viewType: string;
  page: WebviewPage & { loading: string };
  /** What its page keeps with setState (src/format/messages/protocol.ts statePanelSchemas). */
  viewState: z.ZodType<{ state: State | null }>;
  /** Tells a restored panel's task from the one this host runs. */
  idOf(state: State): string;
}

export interface StatePanelOptions<State, Request extends { type: string }> {
  /** What the panel's buttons may ask. */
  requests: z.ZodType<Request>;
  onRequest(request: Request): unknown;
  /** A panel restored after a reload shows a task whose host is gone: what it shows now. */
  restored(state: State): State;
  /** The panel's serializer is registered by someone else, who hands restored panels to `restoreSaved`. */
  restoredFromOutside?: boolean;
}

type StateMessage<State> = { type: 'state'; state: State | null };

export class StatePanel<State, Request extends { type: string }> implements vscode.Disposable {
  private session: WebviewSession<StateMessage<State>, Request, vscode.WebviewPanel> | undefined;
  private state: State | null = null;
  private readonly coalescer = new Coalescer(UPDATE_INTERVAL_MS, () => this.session?.show({ type: 'state', state: this.state }) ?? false);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly kind: StatePanelKind<State>,
    private readonly options: StatePanelOptions<State, Request>,
  ) {
    if (!options.restoredFromOutside) {
      this.disposables.push(registerPanelRestorer(kind.viewType, kind.viewState, (panel, saved) => this.restore(panel, saved?.state ?? null)));
    }
  }

  /** A panel VS Code recreated, with the state its webview kept (parsed here, never trusted). */
  restoreSaved(panel: vscode.WebviewPanel, saved: unknown): void {
    const parsed = this.kind.viewState.safeParse(saved);
    this.restore(panel, parsed.success ? parsed.data.state : null);
  }

  get visible(): boolean {
    return this.session?.visible ?? false;
  }

  /** Opens the panel, or brings it forward. */
  show(preserveFocus = false): void {
    if (this.session) {
      this.session.panel.reveal(undefined, preserveFocus);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      this.kind.viewType,
      this.kind.page.title,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus },
      { ...webviewOptions(this.extensionUri), retainContextWhenHidden: false },
    );
    this.attach(panel);
  }

  /** A new task: its state replaces the old one and is shown at once. */
  start(state: State): void {
    this.state = state;
    this.coalescer.forceFlush();
  }

  /** The current task's state changed (it is the same object, updated in place). */
  changed(): void {
    this.coalescer.request();
  }

  /** Delivers a pending change now (the task ended: the last state must not wait). */
  flush(): void {
    this.coalescer.flush();
  }

  dispose(): void {
    this.coalescer.dispose();
    this.session?.panel.dispose();
    for (const d of this.disposables) d.dispose();
  }

  /**
   * A panel VS Code recreated after a reload. The task it showed ended with the old extension host
   * (unless it is this host's), so it is finished either way. VS Code revives a panel in a
   * background tab only when that tab is shown, possibly after a new task opened the window's one
   * panel of this kind: then the revived one closes, and that panel comes forward in its place.
   */
  private restore(panel: vscode.WebviewPanel, shown: State | null): void {
    if (shown && (this.state === null || this.kind.idOf(shown) !== this.kind.idOf(this.state))) {
      const finished = this.options.restored(shown);
      this.state ??= finished;
    }
    if (this.session) {
      panel.dispose();
      this.session.panel.reveal();
      return;
    }
    this.attach(panel);
  }

  private attach(panel: vscode.WebviewPanel): void {
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
    const session = hostWebview<StateMessage<State>, Request>(panel, this.extensionUri, this.kind.page, {
      name: `${this.kind.page.title} panel`,
      log: this.log,
      requests: this.options.requests,
      onRequest: (request) => this.options.onRequest(request as Request),
    });
    this.session = session;
    // The state as it is now; the session posts it again whenever the page is shown or reloads.
    session.show({ type: 'state', state: this.state });
    panel.onDidDispose(() => {
      if (this.session === session) this.session = undefined;
    });
  }
}
