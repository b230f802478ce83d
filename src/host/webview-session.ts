/**
 * The host's side of one webview, the same for every panel and custom editor: it speaks the one
 * protocol (src/format/messages/protocol.ts), keeps the latest view and the state the page is to
 * keep for a restore, and posts them only while the webview is visible (a hidden webview receives
 * nothing): again when it becomes visible and when the page says `ready` (a page that reloaded has
 * nothing). The page's requests (its buttons) go to the view's own handler, except Save PNG, which is
 * the same everywhere: the host asks the page for the chart (`chart-png`) and saves it. A request
 * that fails is logged, said to the user (`onFailure`) and answered with its error; a message that
 * does not fit is logged and dropped. Nothing here needs VS Code at run time (tests drive it with a
 * fake panel); webview-html.ts's `hostWebview` opens one on a real panel.
 */
import type * as vscode from 'vscode';
import type { z } from 'zod';
import { ChartPngResultSchema, MessageChannel, ViewEventSchema, type HostRequest, type LanguageEvent, type SavePngRequest, type ViewEvent } from '../format/messages/protocol';
import { messageOf } from '../format/errors';

/** How long the host waits for a page's chart (a hidden page answers once it is shown). */
export const PNG_TIMEOUT_MS = 15_000;

/** What a session uses of a vscode.WebviewPanel. */
export interface SessionPanel {
  readonly visible: boolean;
  readonly webview: Pick<vscode.Webview, 'postMessage' | 'onDidReceiveMessage'>;
  readonly onDidChangeViewState: vscode.Event<unknown>;
  readonly onDidDispose: vscode.Event<void>;
}

export interface SessionOptions<Ask> {
  /** The view in log lines: "result view of run.llmbench.json". */
  name: string;
  log: Pick<vscode.LogOutputChannel, 'error'>;
  /** What the page may ask. */
  requests: z.ZodType<Ask>;
  /** Carries out one of the page's requests (other than Save PNG); throws or rejects to fail with a message. */
  onRequest(request: Exclude<Ask, SavePngRequest>): unknown;
  /** The page is ready and nothing has been shown yet: load it. */
  onFirstReady?(): void;
  /** Saves a chart the page's Save PNG asked for. */
  savePng?(chartId: string, dataUrl: string): Promise<unknown>;
  /** A request that failed, in words, for the user. */
  onFailure(message: string): void;
  /** The display language, posted before the page's views (src/host/webview-strings.ts); none: the page stays English. */
  language?: LanguageEvent;
}

/** `P`: the panel's type, for owners that use more of it (reveal, active). */
export class WebviewSession<Show, Ask extends { type: string }, P extends SessionPanel = SessionPanel> {
  private latest: Show | undefined;
  private kept: Show | undefined;
  private disposed = false;
  private readonly channel: MessageChannel<ViewEvent, Ask, Show | LanguageEvent, HostRequest>;
  /** Whether the page has the language since it last loaded (said `ready`). */
  private languageSent = false;
  private readonly subscriptions: { dispose(): unknown }[];

  constructor(
    readonly panel: P,
    private readonly options: SessionOptions<Ask>,
  ) {
    this.channel = new MessageChannel({
      // Never while hidden: the webview would drop it. Events are kept and requests resent when it shows.
      post: (envelope) => void (this.visible && panel.webview.postMessage(envelope)),
      events: ViewEventSchema,
      requests: options.requests,
      onEvent: (event) => this.onViewEvent(event),
      onRequest: (request) => this.onViewRequest(request),
      onProblem: (problem) => options.log.error(`The ${options.name} sent ${problem}: ignored.`),
    });
    this.subscriptions = [
      panel.webview.onDidReceiveMessage((raw: unknown) => this.channel.receive(raw)),
      panel.onDidChangeViewState(() => {
        if (this.visible) this.resend();
      }),
      panel.onDidDispose(() => this.dispose()),
    ];
  }

  get visible(): boolean {
    return !this.disposed && this.panel.visible;
  }

  /** The latest view sent. */
  get current(): Show | undefined {
    return this.latest;
  }

  /**
   * Shows `message` (the page's whole view): posted now while the webview is visible, even while its
   * page loads (VS Code holds a loading webview's messages until its script listens), otherwise once
   * it is shown. Answers whether it was posted now.
   */
  show(message: Show): boolean {
    this.latest = message;
    return this.post(message);
  }

  /** Asks the page to keep `message`'s state for a restore after a reload; posted again with every resend. */
  keep(message: Show): void {
    this.kept = message;
    this.post(message);
  }

  /** A chart of the page as a PNG data URL; rejects when the page has no such chart or does not answer. */
  async chartPng(chartId: string): Promise<string> {
    try {
      return (await this.channel.request({ type: 'chart-png', chartId }, ChartPngResultSchema, PNG_TIMEOUT_MS)).dataUrl;
    } catch (e) {
      throw new Error(`The view did not return chart "${chartId}" (${messageOf(e)}): is it open, and does it have that chart?`);
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.subscriptions) s.dispose();
    this.channel.dispose(`The ${this.options.name} was closed.`);
  }

  private post(message: Show): boolean {
    if (!this.visible) return false;
    // The language goes first, so that the page draws its first view in it.
    if (this.options.language && !this.languageSent) {
      this.channel.event(this.options.language);
      this.languageSent = true;
    }
    this.channel.event(message);
    return true;
  }

  private resend(): void {
    if (this.kept !== undefined) this.post(this.kept);
    if (this.latest !== undefined) this.post(this.latest);
    this.channel.resendWaiting();
  }

  private onViewEvent(event: ViewEvent): void {
    if (event.type === 'view-error') {
      this.options.log.error(`The ${this.options.name} could not use a message from the host: ${event.message}`);
      return;
    }
    const first = this.latest === undefined;
    // A page that says `ready` has (re)loaded: it has lost the language too.
    this.languageSent = false;
    this.resend();
    if (first) this.options.onFirstReady?.();
  }

  private async onViewRequest(request: Ask): Promise<unknown> {
    try {
      if (request.type !== 'save-png') return await this.options.onRequest(request as Exclude<Ask, SavePngRequest>);
      const { chartId } = request as unknown as SavePngRequest;
      if (!this.options.savePng) throw new Error('this view saves no charts');
      try {
        await this.options.savePng(chartId, await this.chartPng(chartId));
        return undefined;
      } catch (e) {
        throw new Error(`the chart could not be saved: ${messageOf(e)}`);
      }
    } catch (e) {
      this.options.log.error(`The ${this.options.name}: "${request.type}" failed: ${messageOf(e)}`);
      this.options.onFailure(messageOf(e));
      throw e;
    }
  }
}
