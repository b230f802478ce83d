/**
 * The live panel's bundle (dist/webview/live.js, built by the test command) in jsdom with a fake
 * acquireVsCodeApi (test/helpers/webview-page.ts): what it posts, what it shows for host messages,
 * and how it takes bad ones.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyRunEvent } from '../../src/host/live-state';
import { sweepLiveState } from '../helpers/live-states';
import { METRICS_INFO, vllmSeries } from '../helpers/server-samples';
import { openPage, type Page } from '../helpers/webview-page';

const openPanel = (saved?: unknown): Page => openPage('live', { saved });

const runState = sweepLiveState;

const text = (panel: Page, selector: string) => panel.document.querySelector(selector)?.textContent ?? '';
const bodyRows = (panel: Page) =>
  [...panel.document.querySelectorAll('#steps-table tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));

test('the panel asks for the state on load and shows the empty view until a run exists', () => {
  const panel = openPanel();
  assert.deepEqual(panel.posted, [{ type: 'ready' }]);
  assert.match(text(panel, '#empty'), /No benchmark has run in this window yet/);
  assert.ok(panel.document.querySelector('#run')?.classList.contains('hidden'));
  panel.send({ type: 'state', state: null });
  assert.ok(!panel.document.querySelector('#empty')?.classList.contains('hidden'));
  assert.deepEqual(panel.scriptErrors, []);
});

test('a state message renders the headline and one table row per step, as text', () => {
  const panel = openPanel();
  const model = '<img src=x onerror="alert(1)">';
  panel.send({ type: 'state', state: runState(model) });
  assert.equal(text(panel, '#headline'), 'Running step 2 of 2: concurrency@4');
  assert.match(text(panel, '#run-description'), /^<img src=x onerror="alert\(1\)"> · http:\/\/127\.0\.0\.1:8000\/v1 · concurrency 1,4$/);
  assert.equal(text(panel, '#run-labels'), 'hardware: 1x A100 <80GB>');
  assert.equal(panel.document.querySelectorAll('img').length, 0, 'file text never becomes markup');
  const rows = bodyRows(panel);
  assert.equal(rows.length, 2);
  assert.equal(rows[0]?.[0], 'concurrency@1');
  assert.match(rows[0]?.[3] ?? '', /^\d+\.\d$/, 'TTFT mean in ms, at its one decimal');
  assert.equal(rows[1]?.[0], 'concurrency@4 (running)');
  assert.deepEqual(
    [...panel.document.querySelectorAll('#steps-table th')].map((th) => th.firstChild?.textContent),
    // The result editor's names (TPOT, not GuideLLM's "ITL"), no unit said twice ("Requests/s / req/s").
    ['Benchmark', 'req/s', 'output tok/s', 'TTFT', 'TPOT', 'latency', 'requests'],
  );
  assert.equal(panel.document.querySelectorAll('[data-chart]').length, 5, 'a card per live chart');
  assert.deepEqual(panel.saved(), { state: JSON.parse(JSON.stringify(runState(model))) }, 'kept for a reload');
  assert.deepEqual(panel.scriptErrors, []);
});

test('an invalid message shows an error and keeps the last good state; the host is told', () => {
  const panel = openPanel();
  panel.send({ type: 'state', state: runState() });
  panel.send({ type: 'state', state: { ...runState(), phase: 'exploded' } });
  panel.send({ type: 'unknown-kind' });
  const alert = panel.document.querySelector('[role=alert]');
  assert.ok(alert, 'an error banner is shown');
  assert.match(alert.textContent ?? '', /could not read/);
  assert.equal(bodyRows(panel).length, 2, 'the last good table stays');
  const complaints = panel.posted.filter((m) => (m as { type: string }).type === 'view-error');
  assert.equal(complaints.length, 2);
  assert.match(JSON.stringify(complaints[0]), /phase/);
  panel.send({ type: 'state', state: runState() });
  assert.equal(panel.document.querySelector('[role=alert]'), null, 'a good update clears the error');
  assert.deepEqual(panel.scriptErrors, []);
});

test('cancel and open-result buttons post their messages with the run id', () => {
  const panel = openPanel();
  const state = runState();
  panel.send({ type: 'state', state });
  (panel.document.querySelector('#cancel') as HTMLElement).click();
  assert.deepEqual(panel.posted.at(-1), { type: 'cancel', runId: 'run-7' });
  applyRunEvent(state, { type: 'run-end', status: 'complete', reason: null, resultPath: state.run.resultPath }, 9);
  panel.send({ type: 'state', state });
  assert.ok(panel.document.querySelector('#cancel')?.classList.contains('hidden'));
  assert.ok(!panel.document.querySelector('#open-result')?.classList.contains('hidden'));
  (panel.document.querySelector('#open-result') as HTMLElement).click();
  assert.deepEqual(panel.posted.at(-1), { type: 'open-result', runId: 'run-7' });
  assert.match(text(panel, '#headline'), /^Finished \(complete\)/);
});

test('a reloaded panel shows its saved state before the host answers', () => {
  const panel = openPanel({ state: runState() });
  assert.equal(bodyRows(panel).length, 2);
  const stale = openPanel({ state: { something: 'from an older version' } });
  assert.match(text(stale, '#empty'), /No benchmark/, 'a saved state that no longer fits is ignored');
  assert.deepEqual([...panel.scriptErrors, ...stale.scriptErrors], []);
});

test("the server strip: one line while there is no server metric, three charts once scrapes come, a scrape's problem under them, and one line when /metrics fails from the start", () => {
  const panel = openPanel();
  const state = runState();
  panel.send({ type: 'state', state });
  const strip = () => ({
    message: panel.document.querySelector('#server-message')?.classList.contains('hidden') ? null : text(panel, '#server-message'),
    charts: [...panel.document.querySelectorAll('#server-charts [data-chart]')].map((card) => card.getAttribute('data-chart')),
    heading: !panel.document.querySelector('#server-strip h2')?.classList.contains('hidden'),
  });
  assert.deepEqual(strip(), { message: 'Server metrics: not scraped in this run (turned off).', charts: [], heading: false });

  const scraped = runState();
  applyRunEvent(scraped, { type: 'run-start', plannedSteps: [], stepCount: 2, resultPath: null, serverMetrics: METRICS_INFO }, 0);
  panel.send({ type: 'state', state: scraped });
  assert.deepEqual(strip(), { message: 'Server metrics: waiting for the first sample from http://127.0.0.1:8000/metrics\u2026', charts: [], heading: false });
  for (const t of [0, 1000]) applyRunEvent(scraped, { type: 'sampled', engine: 'vllm', series: vllmSeries((s) => s === t) }, 3 + t / 1000);
  panel.send({ type: 'state', state: scraped });
  assert.deepEqual(strip(), { message: null, charts: ['server-requests', 'server-kv-cache', 'server-tokens'], heading: true });
  assert.equal(panel.document.querySelectorAll('#charts [data-chart]').length, 5, "the client's charts stay where they were");

  // A problem after samples came (a scrape timed out) is said under the charts, which stay.
  applyRunEvent(scraped, { type: 'sampling-problem', source: 'server', message: 'A scrape of /metrics took longer than 1 s.' }, 5);
  panel.send({ type: 'state', state: scraped });
  assert.deepEqual(strip(), { message: null, charts: ['server-requests', 'server-kv-cache', 'server-tokens'], heading: true });
  assert.equal(text(panel, '#server-note'), 'A scrape of /metrics took longer than 1 s.');

  const failing = runState();
  applyRunEvent(failing, { type: 'run-start', plannedSteps: [], stepCount: 2, resultPath: null, serverMetrics: METRICS_INFO }, 0);
  applyRunEvent(failing, { type: 'sampling-problem', source: 'server', message: 'it answered HTTP 404' }, 1);
  panel.send({ type: 'state', state: failing });
  assert.deepEqual(strip(), { message: 'Server metrics: none from http://127.0.0.1:8000/metrics: it answered HTTP 404', charts: [], heading: false });
  assert.equal(panel.document.querySelectorAll('#charts [data-chart]').length, 5);
  assert.deepEqual(panel.scriptErrors, []);
});
