// Views of runs that went wrong or measured little, as a user meets them (issue 26, section 7): a run
// where every request failed says what failed and what to try instead of charting zeros, with the
// server's JSON error pretty-printed; a run of one load (an imported vLLM block) shows its figures
// as a card, not four charts of one point; a load axis says whether it holds measured or configured loads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forReading } from '../../src/results/read-result';
import { importPastedText } from '../../src/import';
import { buildResultView } from '../../src/views/result';
import { readableError } from '../../src/views/failure';
import { stepTable, summaryItems } from '../../src/views/result-tables';
import { stepLabel } from '../../src/format/step-name';
import { noRunsText } from '../../src/views/report';
import { makeDocument } from '../helpers/result-documents';
import { GUIDELLM_MEANS_TABLE, vllmBlock } from '../helpers/import-samples';

const NOT_FOUND = 'HTTP 404 Not Found from http://127.0.0.1:8000/v1/chat/completions: {"error":{"message":"The model `wrong-model` does not exist.","type":"NotFoundError","param":"model","code":404}}. Check that the base URL ends with /v1.';

test('a server\'s JSON error in a message reads as its own message, with the body pretty-printed apart', () => {
  const readable = readableError(NOT_FOUND);
  assert.equal(readable.text, 'HTTP 404 Not Found from http://127.0.0.1:8000/v1/chat/completions: "The model `wrong-model` does not exist.". Check that the base URL ends with /v1.');
  assert.equal(readable.details, JSON.stringify({ error: { message: 'The model `wrong-model` does not exist.', type: 'NotFoundError', param: 'model', code: 404 } }, null, 2));
  // FastAPI's {"detail": ...}, a body without a message, and text without JSON.
  assert.equal(readableError('HTTP 422: {"detail":"max_tokens is too large"}').text, 'HTTP 422: "max_tokens is too large"');
  assert.equal(readableError('HTTP 500: {"code":7}').text, 'HTTP 500: (the body below)');
  assert.deepEqual(readableError('connect ECONNREFUSED 127.0.0.1:8000'), { text: 'connect ECONNREFUSED 127.0.0.1:8000', details: null });
  assert.deepEqual(readableError('a brace { that is not JSON }'), { text: 'a brace { that is not JSON }', details: null });
});

test('a run where every request failed says what failed and what to try, and charts nothing', () => {
  // Today: flat-zero charts at "measured concurrency" 0.75 and 2.1, a "raise the requests per step" tip and a raw JSON status.
  const doc = makeDocument([1, 4].map((c) => ({ name: `concurrency@${c}`, profile: { kind: 'concurrency' as const, concurrency: c }, requests: 6, ttftMs: 20, gapMs: 5, chunks: 4, failEvery: 1 })));
  for (const step of doc.steps) {
    for (const r of step.requests) r.error = { kind: 'http', message: NOT_FOUND };
    for (const r of step.requests) r.httpStatus = 404;
    step.summary = { ...step.summary!, achievedConcurrency: step.profile.concurrency === 1 ? 0.75 : 2.1 };
  }
  doc.status = 'failed';
  doc.statusReason = `Every measured request failed (12 http); the first: ${NOT_FOUND}`;
  const view = buildResultView(forReading(doc), 'failed.llmbench.json');
  assert.deepEqual(view.charts, [], 'no charts of zeros');
  assert.ok(view.failure);
  assert.equal(view.failure.headline, 'Nothing was measured: every request failed (12 measured), so there are no figures to chart.');
  assert.deepEqual(view.failure.kinds, [['http', 12]]);
  assert.equal(view.failure.errors[0]?.count, 12);
  assert.match(view.failure.errors[0]?.text ?? '', /"The model `wrong-model` does not exist\."/);
  assert.match(view.failure.errors[0]?.details ?? '', /^\{\n {2}"error": \{\n {4}"message"/);
  assert.ok(view.failure.advice.some((a) => /base URL ends in \/v1 and that "test-model" is a model the server serves/.test(a)), view.failure.advice.join(' | '));
  assert.ok(!view.notes.some((n) => /Raise the requests per step/.test(n)), 'no tip to raise the requests: they all failed');
  // The status reads as the server's message; its JSON goes apart, pretty-printed.
  const status = summaryItems(view.summary).find((i) => i.label === 'Status')?.value ?? '';
  assert.doesNotMatch(status, /\{"error"/);
  assert.match(status, /^failed: Every measured request failed \(12 http\); the first: .*"The model `wrong-model` does not exist\."/);
  assert.match(view.summary.statusDetails ?? '', /"type": "NotFoundError"/);
  // A run that measured something has no failure card.
  assert.equal(buildResultView(forReading(makeDocument([{ name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, requests: 6, ttftMs: 20, gapMs: 5, chunks: 4, failEvery: 2 }])), 'x').failure, null);
});

test('an unreachable server: the advice names the URL to check', () => {
  const doc = makeDocument([{ name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, requests: 3, ttftMs: 20, gapMs: 5, chunks: 4, failEvery: 1 }]);
  for (const r of doc.steps[0]!.requests) Object.assign(r, { httpStatus: null, error: { kind: 'connect', message: 'connect ECONNREFUSED 127.0.0.1:8000' } });
  const failure = buildResultView(forReading(doc), 'x').failure;
  assert.match(failure?.advice[0] ?? '', /^Check that the server is running and listening at http:\/\/127\.0\.0\.1:8000\/v1 \(open http:\/\/127\.0\.0\.1:8000\/v1\/models/);
});

test('a run of one load (an imported vLLM block) shows its figures as a card, at the load its file states, not four charts of one point', () => {
  const imported = importPastedText(vllmBlock(64, 120), 'notes.md');
  assert.ok(imported.ok, imported.ok ? '' : imported.error);
  const view = buildResultView(forReading(imported.value[0]!), 'imported.llmbench.json');
  assert.deepEqual(view.charts.filter((c) => c.series.some((s) => s.points.length > 0)).map((c) => c.id), [], 'no chart of one point');
  assert.ok(view.figures);
  assert.equal(view.figures.load, 'concurrency@64, at 64 in flight (configured: the file has no measured concurrency)');
  assert.deepEqual(view.figures.items.slice(0, 3), [
    { label: 'Output tokens per second', value: '4,096', unit: 'tok/s' },
    { label: 'Requests per second', value: '32.00', unit: 'req/s' },
    { label: 'TTFT p50', value: '115.0', unit: 'ms' },
  ]);
  // A sweep of several loads keeps its charts; imported without a measured concurrency, its axis says so.
  const two = importPastedText(`${vllmBlock(8, 60)}\n\n${vllmBlock(64, 120)}`, 'notes.md');
  assert.ok(two.ok);
  const sweep = buildResultView(forReading({ ...two.value[0]!, steps: two.value.flatMap((doc) => doc.steps) }), 'x');
  assert.equal(sweep.figures, null);
  assert.equal(sweep.xAxis.label, 'Concurrency (configured)');
});

test('an imported GuideLLM table shows what it holds: its own step names with ours beside them, its means by default, its unknown failure counts as unknown, and no chart of a figure against itself', () => {
  // The review showed p50 as n/a while the means hid behind a check box, "0 of 0" failures, and
  // renamed "constant@1.90" to "asynchronous@1.90 req/sec".
  const imported = importPastedText(GUIDELLM_MEANS_TABLE, 'notes.md');
  assert.ok(imported.ok, imported.ok ? '' : imported.error);
  const doc = imported.value[0]!;
  assert.deepEqual(doc.steps.map((s) => stepLabel(s)), ['synchronous', 'constant@1.90 (asynchronous@1.90 req/sec)', 'throughput']);
  const view = buildResultView(forReading(doc), 'guidellm.llmbench.json');
  const shown = stepTable(view.rows);
  assert.deepEqual(shown.groups.find((g) => g.label === 'TTFT')?.columns, ['mean'], 'its means, not p50 and p99 of n/a');
  assert.equal(shown.rows[1]?.[0], 'constant@1.90 (asynchronous@1.90 req/sec)');
  assert.equal(shown.rows[1]?.at(-1), 'unknown', 'no request counts in the table: unknown, not "0 of 0"');
  assert.ok(view.notes.every((note) => !/0 of 0/.test(note)), `the import's notes say what the table says: ${view.notes.join(' | ')}`);
  // Drawn against the achieved request rate: requests per second would be that same figure, a diagonal.
  assert.equal(view.xAxis.kind, 'rate');
  assert.equal(view.charts.find((c) => c.id === 'requests'), undefined);
  assert.ok(view.charts.some((c) => c.id === 'output-throughput'));
  // A run of our own keeps its p50 and p99 by default.
  const own = stepTable(buildResultView(forReading(makeDocument([{ name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, requests: 6, ttftMs: 20, gapMs: 5, chunks: 4 }])), 'x').rows);
  assert.deepEqual(own.groups.find((g) => g.label === 'TTFT')?.columns, ['p50', 'p99']);
  assert.equal(own.rows[0]?.at(-1), '0 of 6');
});

test('a report of no runs says so and how to make one', () => {
  const text = noRunsText(['/work/empty: no .llmbench.json files in this folder.']);
  assert.match(text.headline, /^No benchmark runs to report/);
  assert.deepEqual(text.why, ['/work/empty: no .llmbench.json files in this folder.']);
  assert.match(text.how[0] ?? '', /Run LLM Benchmark.*simulator needs no server/);
  assert.match(text.how[1] ?? '', /Import Benchmark Results/);
});
