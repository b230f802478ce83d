/**
 * The host's side of every webview (src/host/webview-session.ts) against real pages: the built
 * bundles in jsdom attached to a fake panel that, like VS Code, drops what is posted while it is
 * hidden and hands the rest over one task later (test/helpers/webview-page.ts). The latest view
 * reaches a page however it comes and goes; nothing is sent while hidden; the page's requests and
 * the host's chart requests go through the one protocol.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../vscode/harness/tools';
import { LiveRequestSchema, ResultRequestSchema, type LiveRequest, type ResultRequest } from '../../src/format/messages/from-views';
import type { HostToLiveMessage, LiveState } from '../../src/format/messages/live';
import { HostRequestSchema, MessageChannel, type Envelope, type HostRequest, type ViewEvent } from '../../src/format/messages/protocol';
import type { HostToResultMessage } from '../../src/format/messages/result';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';
import { WebviewSession, type SessionOptions } from '../../src/host/webview-session';
import { FakePanel, nextTask, type Page } from '../helpers/webview-page';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

function runState(id: string, model: string): LiveState {
  const state = newLiveState({ id, model, baseUrl: 'http://127.0.0.1:8000/v1', profile: 'concurrency 1', startedAt: '2025-01-01T00:00:00.000Z', labels: [], expectedSteps: 1, resultPath: null });
  applyRunEvent(state, { type: 'step-start', stepIndex: 0, name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 } }, 0);
  return state;
}

interface Recorded<Ask> {
  requests: Ask[];
  errors: string[];
  failures: string[];
  firstReady: number;
}

function liveSession(panel: FakePanel, overrides: Partial<SessionOptions<LiveRequest>> = {}) {
  const seen: Recorded<LiveRequest> = { requests: [], errors: [], failures: [], firstReady: 0 };
  const session = new WebviewSession<HostToLiveMessage, LiveRequest>(panel, {
    name: 'live panel',
    log: { error: (message: string) => void seen.errors.push(message) },
    requests: LiveRequestSchema,
    onRequest: (request) => void seen.requests.push(request),
    onFirstReady: () => void seen.firstReady++,
    onFailure: (message) => void seen.failures.push(message),
    ...overrides,
  });
  return { session, seen };
}

const runDescription = (page: Page) => page.document.getElementById('run-description')?.textContent ?? '';

async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await nextTask();
}

test('the latest view reaches the page early, again when the page says ready after a reload', async () => {
  const panel = new FakePanel();
  const page = panel.load('live');
  const { session, seen } = liveSession(panel);
  session.show({ type: 'state', state: runState('run-1', 'model-a') });
  await settled();
  assert.match(runDescription(page), /^model-a/);
  assert.equal(seen.firstReady, 0, 'the view was there before the page was ready');
  assert.deepEqual(page.posted, [{ type: 'ready' }]);

  // The page reloads (VS Code recreated its webview): it has nothing, says ready, and gets the latest.
  const reloaded = panel.load('live');
  assert.match(reloaded.document.getElementById('empty')?.textContent ?? '', /No benchmark has run/);
  await settled();
  assert.match(runDescription(reloaded), /^model-a/);
  assert.deepEqual([...page.scriptErrors, ...reloaded.scriptErrors, ...seen.errors], []);
});

test('nothing is posted while the panel is hidden; the latest view (not each one missed) is posted when it shows again', async () => {
  const panel = new FakePanel();
  const page = panel.load('live');
  const { session } = liveSession(panel);
  session.show({ type: 'state', state: runState('run-1', 'first') });
  await settled();
  const before = panel.delivered.length;

  panel.setVisible(false);
  assert.equal(session.show({ type: 'state', state: runState('run-1', 'second') }), false, 'not posted');
  assert.equal(session.show({ type: 'state', state: runState('run-1', 'third') }), false);
  await settled();
  assert.equal(panel.delivered.length, before, 'no message while hidden');
  assert.match(runDescription(page), /^first/);

  panel.setVisible(true);
  await settled();
  assert.equal(panel.delivered.length, before + 1, 'one message: the latest view');
  assert.match(runDescription(page), /^third/);
});

test('a page that says ready before the host has anything asks the host to load it, once', async () => {
  const panel = new FakePanel();
  const { session, seen } = liveSession(panel);
  const page = panel.load('live');
  await settled();
  assert.equal(seen.firstReady, 1);
  session.show({ type: 'state', state: null });
  await settled();
  assert.ok(!page.document.getElementById('empty')?.classList.contains('hidden'));
  panel.load('live');
  await settled();
  assert.equal(seen.firstReady, 1, 'a reload with a view shown gets the view, not a new load');
});

test("the page's buttons reach the handler as parsed requests and are answered; a failing one is logged, said to the user and answered with its error", async () => {
  const panel = new FakePanel();
  const page = panel.load('live');
  let fail = false;
  const { session, seen } = liveSession(panel, {
    onRequest: (request) => {
      if (fail) throw new Error('the result file is gone');
      seen.requests.push(request);
    },
  });
  session.show({ type: 'state', state: { ...runState('run-7', 'm'), phase: 'finished', status: 'complete' } });
  await settled();
  (page.document.getElementById('show-log') as HTMLElement).click();
  await settled();
  fail = true;
  (page.document.getElementById('open-result') as HTMLElement).click();
  await settled();
  assert.deepEqual(seen.requests, [{ type: 'show-log' }]);
  assert.deepEqual(seen.failures, ['the result file is gone']);
  assert.match(seen.errors.join('\n'), /The live panel: "open-result" failed: the result file is gone/);
  const replies = panel.delivered.filter((m) => (m as Envelope).kind === 'reply') as Extract<Envelope, { kind: 'reply' }>[];
  assert.deepEqual(replies.map((r) => r.error ?? 'done'), ['done', 'the result file is gone']);
});

test("what does not fit is logged with its reason and dropped; a bad request is answered with why; the page's view-errors are logged", async () => {
  const panel = new FakePanel();
  panel.load('live');
  const { seen } = liveSession(panel);
  await settled();
  panel.fromPage({ type: 'cancel', runId: 'r' });
  panel.fromPage({ kind: 'event', id: 7, body: { type: 'hello' } });
  panel.fromPage({ kind: 'request', id: 8, body: { type: 'cancel' } });
  panel.fromPage({ kind: 'event', id: 9, body: { type: 'view-error', message: 'state.phase: Invalid option' } });
  await settled();
  assert.deepEqual(seen.requests, [], 'nothing malformed reaches the handler');
  assert.equal(seen.errors.length, 5, seen.errors.join('\n'));
  assert.match(seen.errors[0] ?? '', /^The live panel sent a message that is not of the protocol \(kind: /);
  assert.match(seen.errors[1] ?? '', /^The live panel sent an event that does not fit \(type: /);
  assert.match(seen.errors[2] ?? '', /^The live panel sent a request that does not fit \(runId: /);
  assert.equal(seen.errors[3], 'The live panel could not use a message from the host: state.phase: Invalid option');
  // The error reply goes back to the page, which sent no request 8 (the test made it up) and says so.
  assert.equal(seen.errors[4], 'The live panel could not use a message from the host: a reply to message 8, which was never sent');
  const reply = panel.delivered.find((m) => (m as Envelope).kind === 'reply') as Extract<Envelope, { kind: 'reply' }> | undefined;
  assert.deepEqual([reply?.replyTo, reply?.error?.startsWith('a request that does not fit')], [8, true]);
});

test('a page without charts answers a chart request at once with why', async () => {
  const panel = new FakePanel();
  panel.load('live');
  const { session } = liveSession(panel);
  await settled();
  await assert.rejects(session.chartPng('throughput'), /The view did not return chart "throughput" \(this view has no charts to save\)/);
});

test('the state a page is to keep for a restore: not posted while hidden, kept by the page once shown, and again after a reload', async () => {
  const panel = new FakePanel();
  const page = panel.load('compare');
  const session = new WebviewSession<HostToResultMessage, ResultRequest>(panel, {
    name: 'compare view',
    log: { error: (m: string) => assert.fail(m) },
    requests: ResultRequestSchema,
    onRequest: () => undefined,
    onFailure: () => undefined,
  });
  await settled();
  panel.setVisible(false);
  session.keep({ type: 'keep-state', state: { a: 'file:///a.llmbench.json', b: 'file:///b.llmbench.json' } });
  await settled();
  assert.deepEqual(page.kept, []);
  panel.setVisible(true);
  await settled();
  assert.deepEqual(page.saved(), { a: 'file:///a.llmbench.json', b: 'file:///b.llmbench.json' });
  const reloaded = panel.load('compare');
  await settled();
  assert.deepEqual(reloaded.saved(), { a: 'file:///a.llmbench.json', b: 'file:///b.llmbench.json' });
});

/** A page made of a bare channel: answers chart requests with `png`, and can ask for Save PNG. */
function chartPage(panel: FakePanel, png: string | undefined) {
  const asked: string[] = [];
  const channel = new MessageChannel<HostToResultMessage, HostRequest, ViewEvent, ResultRequest>({
    post: (envelope) => setImmediate(() => panel.fromPage(envelope)),
    events: z.any(),
    requests: HostRequestSchema,
    onEvent: () => undefined,
    onRequest: ({ chartId }) => {
      asked.push(chartId);
      if (!png) throw new Error(`this view has no chart "${chartId}"`);
      return { dataUrl: png };
    },
    onProblem: (problem) => assert.fail(problem),
  });
  return { channel, asked };
}

test("chart PNGs: asked of a hidden page when it shows again, one way for the export command and the page's Save PNG button", async () => {
  const panel = new FakePanel();
  const saved: [string, string][] = [];
  const errors: string[] = [];
  const session = new WebviewSession<HostToResultMessage, ResultRequest>(panel, {
    name: 'result view',
    log: { error: (m: string) => void errors.push(m) },
    requests: ResultRequestSchema,
    onRequest: () => undefined,
    onFailure: () => undefined,
    savePng: async (chartId, dataUrl) => void saved.push([chartId, dataUrl]),
  });
  const page = chartPage(panel, PNG);
  panel.connect((message) => page.channel.receive(message));

  panel.setVisible(false);
  const exported = session.chartPng('ttft');
  await settled();
  assert.deepEqual(page.asked, [], 'a hidden page is not asked');
  panel.setVisible(true);
  assert.equal(await exported, PNG);
  assert.deepEqual(page.asked, ['ttft']);

  await page.channel.request({ type: 'save-png', chartId: 'latency' }, z.unknown());
  assert.deepEqual(page.asked, ['ttft', 'latency'], 'Save PNG asks the page for the chart, as the export does');
  assert.deepEqual(saved, [['latency', PNG]]);
  assert.deepEqual(errors, []);
});

test('a chart the page does not have fails the export with the page\'s reason, and Save PNG fails saying so', async () => {
  const panel = new FakePanel();
  const failures: string[] = [];
  const session = new WebviewSession<HostToResultMessage, ResultRequest>(panel, {
    name: 'result view',
    log: { error: () => undefined },
    requests: ResultRequestSchema,
    onRequest: () => undefined,
    onFailure: (m) => void failures.push(m),
    savePng: async () => assert.fail('nothing to save'),
  });
  const page = chartPage(panel, undefined);
  panel.connect((message) => page.channel.receive(message));
  await assert.rejects(session.chartPng('nope'), /The view did not return chart "nope" \(this view has no chart "nope"\)/);
  await assert.rejects(page.channel.request({ type: 'save-png', chartId: 'nope' }, z.unknown()), /^Error: the chart could not be saved: The view did not return chart "nope"/);
  assert.equal(failures.length, 1);
  assert.match(failures[0] ?? '', /^the chart could not be saved/);
});

test("the session posts the display language before the first view, and again to a page that reloaded", async () => {
  const strings = JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
  const panel = new FakePanel();
  const page = panel.load('live');
  const { session, seen } = liveSession(panel, { language: { type: 'language', locale: 'zh-cn', strings } });
  session.show({ type: 'state', state: runState('run-1', 'model-a') });
  await settled();
  // What the page draws from the state (its static parts read the language the HTML carries, webview-html.ts).
  const headings = (p: Page) => [...p.document.querySelectorAll('#steps-table th')].map((th) => th.firstChild?.textContent ?? '');
  assert.ok(headings(page).includes('基准测试'), `headings: ${headings(page).join(', ')}`);
  assert.equal(page.document.documentElement.lang, 'zh-cn');
  const reloaded = panel.load('live');
  await settled();
  assert.ok(headings(reloaded).includes('基准测试'), 'the reloaded page did not get the language again');
  assert.deepEqual([...page.scriptErrors, ...reloaded.scriptErrors, ...seen.errors], []);
});
