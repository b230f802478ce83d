/**
 * The built result and compare webview bundles under jsdom, with a fake acquireVsCodeApi that
 * records what the view posts (test/helpers/webview-page.ts). Each test loads the bundle into a
 * fresh page.
 */
import { test } from 'node:test';
import { forReading } from '../../src/results/read-result';
import assert from 'node:assert/strict';
import { buildCompareView } from '../../src/views/compare';
import { buildResultView } from '../../src/views/result';
import { parseResultDocument } from '../../src/format/result';
import { concurrencySweep, makeDocument } from '../helpers/result-documents';
import { runWithServerMetrics } from '../helpers/server-samples';
import { openPage, type Page } from '../helpers/webview-page';

interface View extends Page {
  text(): string;
}

function openView(view: 'result' | 'compare'): View {
  const page = openPage(view);
  return Object.assign(page, { text: () => page.document.getElementById('app')?.textContent ?? '' });
}

test('the result view asks for its data, renders step rows as text first and its charts on the next frame', async () => {
  const page = openView('result');
  assert.deepEqual(page.posted, [{ type: 'ready' }]);
  page.send({ type: 'show', view: buildResultView(forReading(concurrencySweep(20)), 'run.llmbench.json') });
  const rows = [...page.document.querySelectorAll('.step-table tbody tr')];
  assert.equal(rows.length, 3);
  assert.deepEqual(rows.map((r) => r.querySelector('th')?.textContent), ['synchronous', 'concurrency@4', 'concurrency@16']);
  const headers = [...page.document.querySelectorAll('.step-table thead tr:first-child th')];
  assert.equal(headers[3]?.textContent, 'TTFTms');
  assert.match(headers[3]?.getAttribute('title') ?? '', /first streamed chunk with non-empty content/);
  assert.match(page.text(), /test-model/);
  assert.equal(page.document.querySelectorAll('[data-chart]').length, 0, 'no chart before the next frame: the table paints first');
  await new Promise((resolve) => page.window.requestAnimationFrame(resolve));
  assert.equal(page.document.querySelectorAll('[data-chart]').length, 7);
  assert.equal(page.document.getElementById('app')?.getAttribute('aria-busy'), 'false');
});

test('the column chooser adds ITL to the step table and asks the host to remember the choice', () => {
  const page = openView('result');
  page.send({ type: 'show', view: buildResultView(forReading(concurrencySweep(20)), 'run.llmbench.json'), columns: { means: false, p90: false, p95: false, itl: false } });
  const groups = () => [...page.document.querySelectorAll('.step-table thead tr:first-child th')].map((th) => th.firstChild?.textContent);
  assert.ok(!groups().includes('ITL'));
  const box = page.document.querySelector<HTMLInputElement>('input[data-column="itl"]');
  assert.ok(box);
  box.checked = true;
  box.dispatchEvent(new page.window.Event('change'));
  assert.ok(groups().includes('ITL'), 'the table is drawn again with the ITL column');
  assert.deepEqual(page.posted.at(-1), { type: 'table-columns', columns: { means: false, p90: false, p95: false, itl: true } });
});

test('a view the host posts again (early and after ready) is drawn once; a changed view is drawn', () => {
  const page = openView('result');
  const show = { type: 'show', view: buildResultView(forReading(concurrencySweep(20)), 'run.llmbench.json') } as const;
  page.send(show);
  const table = page.document.querySelector('.step-table');
  assert.ok(table);
  page.send(structuredClone(show));
  assert.equal(page.document.querySelector('.step-table'), table, 'the same view again leaves the page as it was');
  page.send({ type: 'show', view: buildResultView(forReading(concurrencySweep(20)), 'other.llmbench.json') });
  assert.notEqual(page.document.querySelector('.step-table'), table);
  assert.match(page.text(), /other\.llmbench\.json/);
});

test('labels, names and error messages from the file stay text, never markup', () => {
  const evil = '<img src=x onerror="window.hacked=1">';
  const doc = makeDocument(
    [{ name: `step ${evil}`, profile: { kind: 'concurrency', concurrency: 2 }, requests: 4, ttftMs: 10, gapMs: 2, chunks: 4 }],
    { labels: { gpu: evil }, endpoint: { baseUrl: 'http://127.0.0.1:1/v1', api: 'chat', model: evil }, statusReason: evil },
  );
  const page = openView('result');
  page.send({ type: 'show', view: buildResultView(forReading(doc), `${evil}.llmbench.json`) });
  assert.equal(page.document.querySelector('img'), null);
  assert.equal((page.window as unknown as { hacked?: number }).hacked, undefined);
  assert.ok(page.text().includes(`gpu: ${evil}`));
  assert.ok(page.text().includes(`step ${evil}`));
});

test('a file that cannot be read shows the reason and an Open as Text button that asks the host', () => {
  const parsed = parseResultDocument('{"schemaVersion": 1, "steps": [');
  assert.equal(parsed.ok, false);
  const reason = parsed.ok ? '' : parsed.error;
  const page = openView('result');
  page.send({ type: 'error', fileName: 'broken.llmbench.json', message: reason });
  const banner = page.document.querySelector('[role=alert]');
  assert.ok(banner);
  assert.match(banner.textContent ?? '', /cannot be shown as an LLM Bench result/);
  assert.match(banner.textContent ?? '', /not valid JSON/);
  const openAsText = page.document.getElementById('open-as-text');
  assert.ok(openAsText);
  assert.equal(openAsText.textContent, 'Open as Text');
  openAsText.click();
  assert.deepEqual(page.posted.at(-1), { type: 'open-as-text' });
});

test('toolbar buttons post compare and Markdown requests; unreadable host messages show a banner', () => {
  const page = openView('result');
  page.send({ type: 'show', view: buildResultView(forReading(concurrencySweep(5)), 'run.llmbench.json') });
  page.document.getElementById('compare-with')?.click();
  page.document.getElementById('copy-markdown')?.click();
  page.document.getElementById('save-markdown')?.click();
  assert.deepEqual(page.posted.slice(1), [
    { type: 'compare-with' },
    { type: 'markdown', action: 'copy' },
    { type: 'markdown', action: 'save' },
  ]);
  page.send({ type: 'show', view: { rows: 'nope' } });
  assert.match(page.document.querySelector('[role=alert]')?.textContent ?? '', /could not be read/);
});

test('the compare view renders both runs and colours deltas by verdict; swap and side by side ask the host', async () => {
  const view = buildCompareView(forReading(concurrencySweep(20, 1)), forReading(concurrencySweep(20, 2)), 'a.llmbench.json', 'b.llmbench.json');
  const page = openView('compare');
  assert.deepEqual(page.posted, [{ type: 'ready' }]);
  page.send({ type: 'show-compare', view });
  assert.match(page.text(), /A: a\.llmbench\.json/);
  assert.match(page.text(), /B: b\.llmbench\.json/);
  const rows = page.document.querySelectorAll('.delta-table tbody tr');
  assert.equal(rows.length, 3);
  // B is twice as slow: its TTFT and latency cells are worse.
  assert.ok(page.document.querySelectorAll('.delta-table .delta-worse').length >= 3);
  assert.equal(page.document.querySelectorAll('[data-chart]').length, 0, 'no chart before the next frame: headers and table paint first');
  await new Promise((resolve) => page.window.requestAnimationFrame(resolve));
  assert.equal(page.document.querySelectorAll('[data-chart]').length, view.charts.length + view.ownCharts.length);
  page.document.getElementById('swap-runs')?.click();
  page.document.getElementById('open-side-by-side')?.click();
  assert.deepEqual(page.posted.slice(1), [{ type: 'swap' }, { type: 'open-side-by-side' }]);
});

test('an imported one-step run shows where it came from, with the tool\'s version, and no heading without content', async () => {
  const imported = makeDocument([{ name: 'concurrency@8', profile: { kind: 'concurrency', concurrency: 8 }, requests: 0, ttftMs: 0, gapMs: 0, chunks: 0 }], {
    endpoint: { baseUrl: '', api: 'chat', model: 'llama-8b' },
    importedFrom: { tool: 'vLLM', version: '0.8.5', file: '/r/serving_llama8B.json', notes: [] },
  });
  const page = openView('result');
  page.send({ type: 'show', view: buildResultView(forReading(imported), 'serving_llama8B.llmbench.json') });
  await new Promise((resolve) => page.window.requestAnimationFrame(resolve));
  assert.match(page.text(), /Imported from\s*vLLM 0\.8\.5, from \/r\/serving_llama8B\.json/);
  assert.match(page.text(), /not recorded in the file/, 'a missing URL is said, not shown as "(chat)"');
  for (const heading of page.document.querySelectorAll('h2')) {
    const next = heading.nextElementSibling;
    assert.ok(next && next.tagName !== 'H2' && (next.textContent ?? '').trim().length + next.childElementCount > 0, `"${heading.textContent}" has content under it`);
  }
});

test("the result view shows the run's warnings and the server's figures per step, its charts over run time on the next frame", async () => {
  const doc = { ...runWithServerMetrics(), warnings: ['The server counted 1410 generated tokens, the client 1200: <b>lost streams</b>?'] };
  const page = openView('result');
  page.send({ type: 'show', view: buildResultView(forReading(doc), 'run.llmbench.json') });
  const warnings = [...page.document.querySelectorAll('.run-warnings .notice-warning')].map((p) => p.textContent);
  assert.deepEqual(warnings, ['The server counted 1410 generated tokens, the client 1200: <b>lost streams</b>?']);
  assert.equal(page.document.querySelectorAll('b').length, 0, 'a warning stays text');
  const section = page.document.getElementById('server-section');
  assert.ok(section, 'a server section');
  assert.match(section.textContent ?? '', /vLLM metrics from http:\/\/127\.0\.0\.1:8000\/metrics, scraped every 1 s/);
  const rows = [...section.querySelectorAll('.server-table tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent));
  assert.deepEqual(rows.map((r) => r[0]), ['concurrency@1', 'concurrency@8']);
  assert.equal(rows[1]?.[2], '3', 'waiting max of the second step');
  await new Promise((resolve) => page.window.requestAnimationFrame(resolve));
  assert.deepEqual([...section.querySelectorAll('[data-chart]')].map((card) => card.getAttribute('data-chart')), ['server-requests', 'server-kv-cache', 'server-tokens']);
});

test('a result without server metrics has no server section; the compare view shows both runs\u2019 server figures per step', async () => {
  const page = openView('result');
  page.send({ type: 'show', view: buildResultView(forReading(concurrencySweep(20)), 'run.llmbench.json') });
  assert.equal(page.document.getElementById('server-section'), null);
  assert.equal(page.document.querySelector('.run-warnings'), null);
  const compare = openView('compare');
  const doc = runWithServerMetrics();
  compare.send({ type: 'show-compare', view: buildCompareView(forReading(doc), forReading(doc), 'a.llmbench.json', 'b.llmbench.json') });
  const rows = [...compare.document.querySelectorAll('.server-table tbody tr')].map((tr) => tr.children[1]?.textContent);
  assert.deepEqual(rows, ['0.8\u00a0/\u00a01 \u2192 0.8\u00a0/\u00a01', '5\u00a0/\u00a08 \u2192 5\u00a0/\u00a08'], 'running mean and max, A then B');
  await new Promise((resolve) => compare.window.requestAnimationFrame(resolve));
  assert.ok(compare.document.querySelector('[data-chart="a-server-requests"]') && compare.document.querySelector('[data-chart="b-server-requests"]'));
});
