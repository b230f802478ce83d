/**
 * The live run panel on the host side. The host owns the run's state; the panel is a view of it
 * that may be hidden, closed, reopened or restored after a reload. Updates are coalesced to
 * UPDATE_INTERVAL_MS and sent only while the panel is visible (a hidden webview receives
 * nothing); becoming visible or saying `ready` sends the current state at once. Closing the panel
 * never stops a run: Cancel is a button of its own.
 */
import * as vscode from 'vscode';
import { describeZodError } from '../format/result';
import { LiveToHostMessageSchema, LiveViewStateSchema, type HostToLiveMessage, type LiveState, type LiveToHostMessage } from '../format/messages/live';
import { Coalescer } from './coalescer';
import { registerPanelRestorer } from './panel-restore';
import { webviewHtml, webviewOptions } from './webview-html';

export const LIVE_VIEW_TYPE = 'llmBench.live';
const UPDATE_INTERVAL_MS = 250;

export interface LivePanelActions {
  cancel(runId: string): void;
  openResult(runId: string): void;
  runAgain(): void;
  showLog(): void;
  /** A panel restored after a reload shows a run whose host is gone: its file needs finishing. */
  restored(state: LiveState): LiveState;
}

export class LivePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private state: LiveState | null = null;
  private readonly coalescer = new Coalescer(UPDATE_INTERVAL_MS, () => this.deliver());
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly actions: LivePanelActions,
  ) {
    this.disposables.push(
      registerPanelRestorer(LIVE_VIEW_TYPE, LiveViewStateSchema, (panel, saved) => this.restore(panel, saved?.state ?? null)),
    );
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
      LIVE_VIEW_TYPE,
      'LLM Bench: Live',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus },
      { ...webviewOptions(this.extensionUri), retainContextWhenHidden: false },
    );
    this.attach(panel);
  }

  /** A new run: its state replaces the old one and is shown at once. */
  startRun(state: LiveState): void {
    this.state = state;
    this.coalescer.forceFlush();
  }

  /** The current run's state changed (it is the same object, updated in place). */
  changed(): void {
    this.coalescer.request();
  }

  /** Delivers a pending change now (the run ended: the last state must not wait). */
  flush(): void {
    this.coalescer.flush();
  }

  dispose(): void {
    this.coalescer.dispose();
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }

  /**
   * A panel VS Code recreated after a reload. The run it showed ended with the old extension host
   * (unless it is this host's run), so its file is finished either way. VS Code revives a panel in
   * a background tab only when that tab is shown, possibly after a new run opened the window's one
   * live panel: then the revived one closes, and the live panel comes forward in its place.
   */
  private restore(panel: vscode.WebviewPanel, shown: LiveState | null): void {
    if (shown && shown.run.id !== this.state?.run.id) {
      const finished = this.actions.restored(shown);
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
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, { view: 'live', title: 'LLM Bench: Live', loading: 'Connecting to the run...' });
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
    const message: HostToLiveMessage = { type: 'state', state: this.state };
    void this.panel.webview.postMessage(message);
    return true;
  }

  private receive(raw: unknown): void {
    const parsed = LiveToHostMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(`The live panel sent a message that does not fit its schema, ignored: ${describeZodError(parsed.error)}`);
      return;
    }
    const message: LiveToHostMessage = parsed.data;
    switch (message.type) {
      case 'ready':
        this.coalescer.forceFlush();
        return;
      case 'cancel':
        this.actions.cancel(message.runId);
        return;
      case 'open-result':
        this.actions.openResult(message.runId);
        return;
      case 'run-again':
        this.actions.runAgain();
        return;
      case 'show-log':
        this.actions.showLog();
        return;
      case 'view-error':
        this.log.error(`The live panel could not use an update: ${message.message}`);
        return;
    }
  }
}
