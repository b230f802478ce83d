/**
 * The one protocol between the extension host and every webview (result, compare, report, tune,
 * live run, live tune). Each message is an envelope with its own id: an `event` says something and
 * wants no answer (the host's latest view, the page's `ready`); a `request` asks, and the other side
 * answers with one `reply` naming the request's id in `replyTo`, carrying its result or why it
 * failed. Either side parses every envelope and every body with these schemas and the view's own
 * (src/format/messages/<view>.ts); what does not fit is said to `onProblem`, never thrown. The
 * channel below is that protocol's code, shared by the host (src/host/webview-session.ts) and the
 * pages (webview/shared/vscode-api.ts). vscode-hexeditor's shared protocol, with a message id and
 * an `inReplyTo`, was the model.
 */
import * as z from 'zod';
import { describeZodError } from '../result';
import { messageOf } from '../errors';

const MessageIdSchema = z.number().int().nonnegative();

export const EnvelopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('event'), id: MessageIdSchema, body: z.unknown() }),
  z.object({ kind: z.literal('request'), id: MessageIdSchema, body: z.unknown() }),
  /** The answer to request `replyTo`: `result`, or `error` when it failed. */
  z.object({ kind: z.literal('reply'), id: MessageIdSchema, replyTo: MessageIdSchema, result: z.unknown().optional(), error: z.string().max(4000).optional() }),
]);
export type Envelope = z.infer<typeof EnvelopeSchema>;

/** What every page tells its host, wanting no answer. */
export const ViewEventSchema = z.discriminatedUnion('type', [
  /** The page loaded (or reloaded) and has nothing from the host: it wants the latest view. */
  z.object({ type: z.literal('ready') }),
  /** The page received something from the host that it could not use; the host logs it. */
  z.object({ type: z.literal('view-error'), message: z.string().max(2000) }),
]);
export type ViewEvent = z.infer<typeof ViewEventSchema>;

/**
 * The display language of a page, which the host posts before its first view (and again when the
 * page reloads): the strings of the l10n bundle VS Code loaded for the extension (English key ->
 * text; empty in English) and the locale numbers and dates are formatted with (vscode.env.language).
 */
export const LanguageEventSchema = z.object({
  type: z.literal('language'),
  locale: z.string().min(2).max(35).regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, 'locale must be a BCP 47 tag'),
  strings: z.record(z.string().max(2000), z.string().max(8000)),
});
export type LanguageEvent = z.infer<typeof LanguageEventSchema>;

/** A chart as a PNG data URL, from a webview's canvas. */
export const PngDataUrlSchema = z.string().max(50_000_000).regex(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/, 'dataUrl must be a base64 PNG data URL');

/** A page's Save PNG button: the host asks the page for the chart (`chart-png`) and saves it. */
export const SavePngRequestSchema = z.object({ type: z.literal('save-png'), chartId: z.string().max(200) });
export type SavePngRequest = z.infer<typeof SavePngRequestSchema>;

/** What the host asks of a page: a chart as PNG, answered with `ChartPngResult`. */
export const HostRequestSchema = z.discriminatedUnion('type', [z.object({ type: z.literal('chart-png'), chartId: z.string().max(200) })]);
export type HostRequest = z.infer<typeof HostRequestSchema>;
export const ChartPngResultSchema = z.object({ dataUrl: PngDataUrlSchema });

/** The host asks a page to keep `state` as its webview state, which VS Code hands back when it restores the panel. */
export const keepStateEvent = <T extends z.ZodType>(state: T) => z.object({ type: z.literal('keep-state'), state });

/** A panel that shows one task's whole state (a run, a tune): the host's one event, and what its page keeps for a reload. */
export function statePanelSchemas<T extends z.ZodType>(state: T) {
  return {
    /** The full state; null before any task has run in this window. */
    events: z.discriminatedUnion('type', [z.object({ type: z.literal('state'), state: state.nullable() })]),
    viewState: z.object({ state: state.nullable() }),
  };
}

const nameOf = (body: unknown): string => (typeof body === 'object' && body !== null && 'type' in body ? `"${String(body.type)}"` : 'a request');

export interface ChannelEnds<InEvent, InRequest> {
  /** Posts an envelope to the other side. */
  post(envelope: Envelope): void;
  /** What the other side's events and requests may be. */
  events: z.ZodType<InEvent>;
  requests: z.ZodType<InRequest>;
  onEvent(event: InEvent): void;
  /** Answers a request: its result (nothing for "done"), or a throw or rejection saying why not. */
  onRequest(request: InRequest): unknown;
  /** Something came that does not fit, or a reply to a message never sent: in words. */
  onProblem(problem: string): void;
}

interface Waiting {
  body: unknown;
  result: z.ZodType;
  settle(outcome: { value: unknown } | { error: Error }): void;
}

/** One side of the protocol: its events and requests out, what comes in parsed and dispatched, replies matched to their requests by id. */
export class MessageChannel<InEvent, InRequest, OutEvent, OutRequest> {
  private lastId = 0;
  private readonly waiting = new Map<number, Waiting>();

  constructor(private readonly ends: ChannelEnds<InEvent, InRequest>) {}

  event(body: OutEvent): void {
    this.ends.post({ kind: 'event', id: ++this.lastId, body });
  }

  /**
   * Asks the other side; settles with its reply's result (checked against `result`), its error, or,
   * after `timeoutMs`, an error saying that no reply came. Without a timeout it waits as long as
   * the other side takes (a page's request may wait for the user in a save dialog).
   */
  request<T>(body: OutRequest, result: z.ZodType<T>, timeoutMs?: number): Promise<T> {
    const id = ++this.lastId;
    return new Promise<T>((resolve, reject) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => entry.settle({ error: new Error(`no reply to ${nameOf(body)} came within ${timeoutMs / 1000} s`) }), timeoutMs);
      const entry: Waiting = {
        body,
        result,
        settle: (outcome) => {
          clearTimeout(timer);
          this.waiting.delete(id);
          if ('error' in outcome) reject(outcome.error);
          else resolve(outcome.value as T);
        },
      };
      this.waiting.set(id, entry);
      this.ends.post({ kind: 'request', id, body });
    });
  }

  /** Posts again, under the same ids, the requests still waiting: the other side may have dropped them (a hidden or reloading page). */
  resendWaiting(): void {
    for (const [id, { body }] of this.waiting) this.ends.post({ kind: 'request', id, body });
  }

  /** Every request still waiting fails with `reason` (the page is gone). */
  dispose(reason: string): void {
    for (const entry of [...this.waiting.values()]) entry.settle({ error: new Error(reason) });
  }

  receive(raw: unknown): void {
    const envelope = EnvelopeSchema.safeParse(raw);
    if (!envelope.success) return this.ends.onProblem(`a message that is not of the protocol (${describeZodError(envelope.error)})`);
    const message = envelope.data;
    if (message.kind === 'reply') return this.receiveReply(message);
    if (message.kind === 'event') {
      const event = this.ends.events.safeParse(message.body);
      if (event.success) return this.ends.onEvent(event.data);
      return this.ends.onProblem(`an event that does not fit (${describeZodError(event.error)})`);
    }
    const request = this.ends.requests.safeParse(message.body);
    const reply = (outcome: { result: unknown } | { error: string }) => this.ends.post({ kind: 'reply', id: ++this.lastId, replyTo: message.id, ...outcome });
    if (!request.success) {
      const problem = `a request that does not fit (${describeZodError(request.error)})`;
      this.ends.onProblem(problem);
      return reply({ error: problem });
    }
    Promise.resolve()
      .then(() => this.ends.onRequest(request.data))
      .then(
        (result) => reply({ result }),
        (e: unknown) => reply({ error: messageOf(e).slice(0, 4000) }),
      );
  }

  private receiveReply(reply: Extract<Envelope, { kind: 'reply' }>): void {
    const entry = this.waiting.get(reply.replyTo);
    if (!entry) {
      // A request posted again (resendWaiting) may be answered twice, or after its timeout: the first answer in time counts.
      if (reply.replyTo > 0 && reply.replyTo <= this.lastId) return;
      return this.ends.onProblem(`a reply to message ${reply.replyTo}, which was never sent`);
    }
    if (reply.error !== undefined) return entry.settle({ error: new Error(reply.error) });
    const result = entry.result.safeParse(reply.result);
    if (result.success) return entry.settle({ value: result.data });
    const problem = `the reply to ${nameOf(entry.body)} does not fit (${describeZodError(result.error)})`;
    this.ends.onProblem(problem);
    entry.settle({ error: new Error(problem) });
  }
}
