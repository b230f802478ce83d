/**
 * The host's side of one result or compare webview: keeps the latest view to resend when the
 * webview (re)loads or becomes visible again (a hidden webview drops messages), parses what the
 * webview sends, and fetches chart PNGs on request.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { describeZodError } from '../format/result';
import {
  ResultToHostMessageSchema,
  type HostToResultMessage,
  type ResultToHostMessage,
} from '../format/messages/result';
import { savePngWithDialog } from './save-file';

const PNG_TIMEOUT_MS = 15_000;

export class ViewSession implements vscode.Disposable {
  private latest: HostToResultMessage | undefined;
  private readonly pendingPngs = new Map<string, (dataUrl: string) => void>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    /** Where a chart's PNG is offered to be saved (the save dialog's starting name). */
    private readonly suggestPngUri: (chartId: string) => vscode.Uri,
    private readonly onMessage: (message: ResultToHostMessage) => void,
    private readonly onReady: () => void,
  ) {
    this.subscriptions.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidChangeViewState(() => {
        if (panel.visible && this.latest) void panel.webview.postMessage(this.latest);
      }),
    );
  }

  send(message: HostToResultMessage): void {
    this.latest = message;
    void this.panel.webview.postMessage(message);
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
      this.pendingPngs.set(requestId, (dataUrl) => {
        clearTimeout(timer);
        resolve(dataUrl);
      });
      void this.panel.webview.postMessage({ type: 'request-png', chartId, requestId } satisfies HostToResultMessage);
    });
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
      if (this.latest) void this.panel.webview.postMessage(this.latest);
      else this.onReady();
    } else if (message.type === 'png') {
      const waiting = message.requestId ? this.pendingPngs.get(message.requestId) : undefined;
      if (waiting && message.requestId) {
        this.pendingPngs.delete(message.requestId);
        waiting(message.dataUrl);
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
