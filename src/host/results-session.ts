/**
 * The host's side of one result or compare webview: keeps the latest view to resend when the
 * webview (re)loads or becomes visible again (a hidden webview drops messages), parses what the
 * webview sends, fetches chart PNGs on request, and hands a panel's webview the state it keeps
 * for a restore.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { describeZodError } from '../format/result';
import {
  ResultToHostMessageSchema,
  type ComparePanelState,
  type HostToResultMessage,
  type ResultToHostMessage,
} from '../format/messages/result';
import { savePngWithDialog } from './save-file';

const PNG_TIMEOUT_MS = 15_000;

export class ViewSession implements vscode.Disposable {
  private latest: HostToResultMessage | undefined;
  /** PNG requests not answered yet: sent again when the view (re)loads or is shown, as a hidden or loading webview drops messages. */
  private readonly pendingPngs = new Map<string, { chartId: string; resolve: (dataUrl: string) => void }>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    /** Where a chart's PNG is offered to be saved (the save dialog's starting name). */
    private readonly suggestPngUri: (chartId: string) => vscode.Uri,
    private readonly onMessage: (message: ResultToHostMessage) => void,
    private readonly onReady: () => void,
    /** What the view keeps as its webview state for a restore after a reload (a panel's; custom editors restore by URI). */
    private readonly stateToKeep?: ComparePanelState,
  ) {
    this.subscriptions.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) return;
        if (this.latest) void panel.webview.postMessage(this.latest);
        this.postPendingPngRequests();
      }),
    );
  }

  /**
   * Posts at once, even while the page is still loading: VS Code holds a loading webview's messages
   * and hands them over when its document has loaded, after the view's script is listening, so a
   * first view need not wait for the page's `ready` to travel to the host and back. `ready` still
   * gets the latest view (a page that reloaded has nothing); a page draws an identical view once.
   */
  send(message: HostToResultMessage): void {
    this.latest = message;
    void this.panel.webview.postMessage(message);
    // A request that came before the view had anything to draw is answered once it has.
    this.postPendingPngRequests();
  }

  get current(): HostToResultMessage | undefined {
    return this.latest;
  }

  /** Asks the webview for a chart as PNG; rejects if the chart does not exist or the view does not answer. */
  requestPng(chartId: string): Promise<string> {
    const requestId = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pendingPngs.delete(requestId);
        reject(new Error(`The view did not return chart "${chartId}" (is it open, and does it have that chart?).`));
      }, PNG_TIMEOUT_MS);
      this.pendingPngs.set(requestId, {
        chartId,
        resolve: (dataUrl) => {
          clearTimeout(timer);
          resolve(dataUrl);
        },
      });
      this.postPendingPngRequests();
    });
  }

  private postPendingPngRequests(): void {
    for (const [requestId, { chartId }] of this.pendingPngs) {
      void this.panel.webview.postMessage({ type: 'request-png', chartId, requestId } satisfies HostToResultMessage);
    }
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }

  private receive(raw: unknown): void {
    const parsed = ResultToHostMessageSchema.safeParse(raw);
    if (!parsed.success) {
      void vscode.window.showErrorMessage(`LLM Bench: a view sent a message that does not fit: ${describeZodError(parsed.error)}`);
      return;
    }
    const message = parsed.data;
    if (message.type === 'ready') {
      if (this.stateToKeep) void this.panel.webview.postMessage({ type: 'keep-state', state: this.stateToKeep } satisfies HostToResultMessage);
      if (this.latest) void this.panel.webview.postMessage(this.latest);
      else this.onReady();
      this.postPendingPngRequests();
    } else if (message.type === 'png') {
      if (message.requestId) {
        // An answer to a request sent more than once comes more than once: the first one counts.
        this.pendingPngs.get(message.requestId)?.resolve(message.dataUrl);
        this.pendingPngs.delete(message.requestId);
      } else {
        void savePngWithDialog(message.dataUrl, this.suggestPngUri(message.chartId)).then(undefined, (e: unknown) =>
          vscode.window.showErrorMessage(`LLM Bench: the chart could not be saved: ${e instanceof Error ? e.message : String(e)}`),
        );
      }
    } else {
      this.onMessage(message);
    }
  }
}
