/**
 * A run where nothing was measured, said as what it is: which requests failed and how, the server's
 * own words (its JSON error pretty-printed), and what to try, instead of charts of zeros. And the one
 * way an error message with a server's JSON body in it is made readable, for the run's status too.
 * Pure: unit tested.
 */
import type { ErrorKind, ResultDocument } from '../format/result';
import type { RunFailure } from '../format/messages/result';
import { english, type Translate } from './l10n';

/** A message with a JSON body in it, split: the message with the body's own `message` in its place, and the body pretty-printed. */
export interface ReadableError {
  text: string;
  /** The JSON body, pretty-printed; null when the message holds none. */
  details: string | null;
}

/** The first thing in a JSON body that reads as its message: OpenAI's `error.message`, FastAPI's `detail`, a bare `message`. */
function bodyMessage(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const record = body as Record<string, unknown>;
  for (const key of ['error', 'detail', 'message']) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (typeof value === 'object' && value !== null) {
      const inner = bodyMessage(value);
      if (inner) return inner;
    }
  }
  return null;
}

/**
 * A message from the engine or the server, made readable: a JSON object in it (a server's error
 * body, quoted by the client) is replaced by its own message, in quotes, and given apart, pretty-printed.
 */
export function readableError(message: string): ReadableError {
  const start = message.indexOf('{');
  if (start === -1) return { text: message, details: null };
  // The body ends at the last closing brace that makes the text from `start` parse.
  for (let end = message.lastIndexOf('}'); end > start; end = message.lastIndexOf('}', end - 1)) {
    let body: unknown;
    try {
      body = JSON.parse(message.slice(start, end + 1));
    } catch {
      continue;
    }
    const said = bodyMessage(body);
    const text = `${message.slice(0, start)}${said ? `"${said}"` : '(the body below)'}${message.slice(end + 1)}`.replace(/\s+/g, ' ').trim();
    return { text, details: JSON.stringify(body, null, 2) };
  }
  return { text: message, details: null };
}

/** What to check for each kind of failure, in the order worth checking, in the display language. */
const ADVICE: Partial<Record<ErrorKind, (doc: ResultDocument, statuses: Set<number>, t: Translate) => string[]>> = {
  connect: (doc, _, t) => [
    doc.endpoint.baseUrl
      ? t('Check that the server is running and listening at {0} (open {0}/models in a browser or with curl), and that the URL ends in /v1.', doc.endpoint.baseUrl)
      : t('Check that the server is running and listening at its URL (open its /v1/models in a browser or with curl), and that the URL ends in /v1.'),
    t('A server still loading its model refuses connections: wait until it logs that it is ready.'),
  ],
  'timeout-connect': (doc, _, t) => [doc.endpoint.baseUrl ? t('Nothing answered at {0} in time: check the host and port, and a firewall or proxy between.', doc.endpoint.baseUrl) : t('Nothing answered at the URL in time: check the host and port, and a firewall or proxy between.')],
  http: (doc, statuses, t) => [
    ...(statuses.has(401) || statuses.has(403) ? [t('The server refused the API key: set it with "LLM Bench: Set API Key" (or --api-key-env), for this URL.')] : []),
    ...(statuses.has(404) ? [t('Check that the base URL ends in /v1 and that "{0}" is a model the server serves (its /v1/models lists them).', doc.endpoint.model)] : []),
    ...(statuses.has(400) || statuses.has(422) ? [t('The server refused the request itself: its message above says why (often the model name, or prompt + output tokens beyond its max-model-len).')] : []),
    ...(statuses.has(429) ? [t('The server limits the request rate: lower the concurrency or the rate.')] : []),
    ...([...statuses].some((s) => s >= 500) ? [t('The server failed while answering: its own log says why (out of memory, a crash); a lower concurrency may get through.')] : []),
  ],
  'timeout-total': (_, __, t) => [t('Requests took longer than the timeout: raise it (--timeout, request.timeoutSec) or lower the output tokens or the concurrency.')],
  'timeout-idle': (_, __, t) => [t('The server stopped sending mid-answer: its log says why; a lower concurrency may get through.')],
  server: (_, __, t) => [t('The server answered with an error of its own (above): its log says more.')],
  protocol: (_, __, t) => [t("The answers were not the OpenAI API's: check that the URL is the server's OpenAI-compatible API (ending in /v1) and the API kind (chat or completions).")],
  reset: (_, __, t) => [t('The server closed connections mid-answer: it may have crashed or restarted (see its log).')],
  client: (_, __, t) => [t('This machine could not open the connections: raise the open-file limit (ulimit -n) or lower the concurrency.')],
};

/** At most this many distinct error messages are shown. */
const MESSAGES_SHOWN = 3;

/**
 * The run's failure, when it measured nothing: every step without a completed request and some
 * failed (the run stopped early counts too). Null when anything was measured.
 */
export function runFailure(doc: ResultDocument, t: Translate = english): RunFailure | null {
  const summaries = doc.steps.flatMap((step) => (step.summary ? [step.summary] : []));
  const completed = summaries.reduce((n, s) => n + s.requests.completed, 0);
  const failed = doc.steps.flatMap((step) => step.requests.filter((r) => r.error !== null && r.error.kind !== 'cancelled'));
  if (completed > 0 || (failed.length === 0 && doc.status !== 'failed')) return null;
  const measured = failed.filter((r) => !r.warmup);
  const kinds = new Map<string, number>();
  for (const r of failed) kinds.set(r.error!.kind, (kinds.get(r.error!.kind) ?? 0) + 1);
  const messages = new Map<string, number>();
  for (const r of failed) messages.set(r.error!.message, (messages.get(r.error!.message) ?? 0) + 1);
  const statuses = new Set(failed.flatMap((r) => (r.httpStatus === null ? [] : [r.httpStatus])));
  const advice = [...new Set([...kinds.keys()].flatMap((kind) => ADVICE[kind as ErrorKind]?.(doc, statuses, t) ?? []))];
  const warmup = failed.length - measured.length;
  const headline =
    failed.length === 0
      ? t('Nothing was measured: no request completed within the step limits.')
      : warmup > 0
        ? t('Nothing was measured: every request failed ({0} measured, {1} warm-up), so there are no figures to chart.', measured.length, warmup)
        : t('Nothing was measured: every request failed ({0} measured), so there are no figures to chart.', measured.length);
  return {
    headline,
    kinds: [...kinds],
    errors: [...messages]
      .sort((a, b) => b[1] - a[1])
      .slice(0, MESSAGES_SHOWN)
      .map(([message, count]) => ({ ...readableError(message), count })),
    advice: advice.length > 0 ? advice : [t('See the log ("LLM Bench: Show Log") for what the run did.')],
  };
}
