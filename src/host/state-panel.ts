/**
 * A panel that shows the state of one long task the host runs (a benchmark run, a tune). The host
 * owns the state; the panel is a view of it that may be hidden, closed, reopened or restored after a
 * reload. Updates are coalesced to UPDATE_INTERVAL_MS and sent only while the panel is visible (a
 * hidden webview receives nothing); becoming visible or saying `ready` sends the current state at
 * once. Closing the panel never stops the task: Cancel is a button of its own.
 */
import * as vscode from 'vscode';
import type { z } from 'zod';
import { describeZodError } from '../format/result';
import { Coalescer } from './coalescer';
import { registerPanelRestorer } from './panel-restore';
import { webviewHtml, webviewOptions } from './webview-html';

const UPDATE_INTERVAL_MS = 250;

/** What every such panel's webview may send besides its own messages. */
type CommonMessage = { type: 'ready' } | { type: 'view-error'; message: string };

export interface StatePanelOptions<State, Message extends { type: string }> {
  viewType: string;
  title: string;
  /** The bundle: webview/<view>/main.ts. */
  view: string;
  loading: string;
  /** What the webview keeps with setState: `{ state }`. */
  viewStateSchema: z.ZodType<{ state: State | null }>;
  messageSchema: z.ZodType<Message | CommonMessage>;
  /** Tells a restored panel's task from the one this host runs. */
  idOf(state: State): string;
  /** A panel restored after a reload shows a task whose host is gone: what it shows now. */
  restored(state: State): State;
  /** The panel's serializer is registered by someone else, who hands restored panels to `restoreSaved`. */
  restoredFromOutside?: boolean;
  onMessage(message: Message): void;
}

export class StatePanel<State, Message extends { type: string }> implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private state: State | null = null;
  private readonly coalescer = new Coalescer(UPDATE_INTERVAL_MS, () => this.deliver());
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly options: StatePanelOptions<State, Message>,
  ) {
    if (!options.restoredFromOutside) {
      this.disposables.push(registerPanelRestorer(options.viewType, options.viewStateSchema, (panel, saved) => this.restore(panel, saved?.state ?? null)));
    }
  }

  /** A panel VS Code recreated, with the state its webview kept (parsed here, never trusted). */
  restoreSaved(panel: vscode.WebviewPanel, saved: unknown): void {
    const parsed = this.options.viewStateSchema.safeParse(saved);
    this.restore(panel, parsed.success ? parsed.data.state : null);
  }

  get visible(): boolean {
    return this.panel?.visible ?? false;
  }

  /** Opens the panel, or brings it forward. */
  show(preserveFocus = false): void {
    if (this.panel) {
      this.panel.reveal(undefined, preserveFocus);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      this.options.viewType,
      this.options.title,
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
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }

  /**
   * A panel VS Code recreated after a reload. The task it showed ended with the old extension host
   * (unless it is this host's), so it is finished either way. VS Code revives a panel in a
   * background tab only when that tab is shown, possibly after a new task opened the window's one
   * panel of this kind: then the revived one closes, and that panel comes forward in its place.
   */
  private restore(panel: vscode.WebviewPanel, shown: State | null): void {
    if (shown && (this.state === null || this.options.idOf(shown) !== this.options.idOf(this.state))) {
      const finished = this.options.restored(shown);
      this.state ??= finished;
    }
    if (this.panel) {
      panel.dispose();
      this.panel.reveal();
      return;
    }
    this.attach(panel);
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
    panel.webview.options = webviewOptions(this.extensionUri);
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, { view: this.options.view, title: this.options.title, loading: this.options.loading });
    const subscriptions = [
      panel.webview.onDidReceiveMessage((message: unknown) => this.receive(message)),
      panel.onDidChangeViewState(() => {
        if (panel.visible) this.coalescer.forceFlush();
      }),
    ];
    panel.onDidDispose(() => {
      for (const s of subscriptions) s.dispose();
      if (this.panel === panel) this.panel = undefined;
    });
  }

  private deliver(): boolean {
    if (!this.panel?.visible) return false;
    void this.panel.webview.postMessage({ type: 'state', state: this.state });
    return true;
  }

  private receive(raw: unknown): void {
    const parsed = this.options.messageSchema.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(`The ${this.options.title} panel sent a message that does not fit its schema, ignored: ${describeZodError(parsed.error)}`);
      return;
    }
    const message = parsed.data;
    if (message.type === 'ready') this.coalescer.forceFlush();
    else if (message.type === 'view-error') this.log.error(`The ${this.options.title} panel could not use an update: ${(message as CommonMessage & { type: 'view-error' }).message}`);
    else this.options.onMessage(message as Message);
  }
}
