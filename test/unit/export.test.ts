/**
 * Exports and the many-run report model: CSV and Markdown cell by cell, knees and rankings on
 * hand-made sweeps, the HTML report's content, and the `llmbench import` / `report` commands
 * writing real files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultDocumentSchema, type ResultDocument, type Stats, type StepSummary } from '../../src/format/result';
import { formatStepsCsv } from '../../src/report/csv';
import { renderHtmlReport } from '../../src/report/html';
import { buildReportModel, curveStyle, findKnee, kneeTable, rankingNoiseNote, rankingTable, reportChartSpec, reportLegend, type ReportRun } from '../../src/views/report';
import { placeLabel, svgLineChart } from '../../src/report/svg';
import { formatRankingMarkdown } from '../../src/report/tables';
import { formatLabelsText, parseLabelsText, withLabels } from '../../src/views/labels';

const flat = (v: number, count = 50): Stats => ({ count, mean: v, std: 0, min: v, max: v, p50: v, p66: v, p75: v, p80: v, p90: v * 1.5, p95: v * 1.6, p98: v * 1.7, p99: v * 2 });

/** A concurrency sweep: [concurrency, requests/s, output tok/s, latency ms, ttft ms, failed]. */
function sweep(labels: Record<string, string>, points: [number, number, number, number, number, number][]): ResultDocument {
  return ResultDocumentSchema.parse({
    schemaVersion: 1,
    tool: { name: 'llmbench', version: '0.1.0' },
    createdAt: '2025-06-01T00:00:00Z',
    endpoint: { baseUrl: 'http://127.0.0.1:8000/v1', api: 'chat', model: labels['model'] ?? 'qwen' },
    labels,
    config: {},
    status: 'complete',
    steps: points.map(([c, rps, tps, latency, ttft, failed]) => ({
      name: `concurrency@${c}`,
      profile: { kind: 'concurrency', concurrency: c },
      summary: {
        requests: { total: 50, completed: 50 - failed, failed },
        durationSec: 50 / rps,
        requestsPerSecond: rps,
        outputTokensPerSecond: tps,
        totalTokensPerSecond: tps * 2,
        ttftMs: flat(ttft),
        itlMs: flat(20),
        tpotMs: flat(21),
        latencyMs: flat(latency),
        queueMs: null,
        errors: failed ? { http: failed } : {},
      } satisfies StepSummary,
      requests: [],
    })),
  });
}

const a100 = sweep({ engine: 'vllm', gpu: 'A100', model: 'qwen' }, [
  [1, 1, 100, 1000, 50, 0],
  [2, 1.9, 190, 1050, 55, 0],
  [4, 3.4, 270, 1180, 70, 0],
  [8, 3.8, 300, 2100, 160, 0],
  [16, 3.9, 310, 4000, 400, 2],
]);
const l20 = sweep({ engine: 'sglang', gpu: 'L20', model: 'qwen' }, [
  [1, 0.8, 80, 1250, 60, 0],
  [2, 1.6, 160, 1250, 62, 0],
  [3, 2.4, 240, 1250, 64, 0],
]);
const runs: ReportRun[] = [
  { name: 'vllm-a100', doc: a100, source: '/r/a100.llmbench.json' },
  { name: 'sglang-l20', doc: l20, source: '/r/l20.llmbench.json' },
];

test('knee: the step farthest above the chord of throughput against load; none on a straight line', () => {
  assert.equal(findKnee([{ x: 1, y: 100 }, { x: 2, y: 190 }, { x: 4, y: 270 }, { x: 8, y: 300 }, { x: 16, y: 310 }]), 2);
  assert.equal(findKnee([{ x: 1, y: 100 }, { x: 2, y: 200 }, { x: 3, y: 300 }]), null);
  assert.equal(findKnee([{ x: 1, y: 100 }, { x: 2, y: 200 }]), null);
});

test('report model: groups by a label, overlaid curves per metric, knees marked on each curve', () => {
  const model = buildReportModel(runs, { groupBy: 'gpu' });
  assert.equal(model.axis, 'concurrency');
  assert.deepEqual(model.groups, ['A100', 'L20']);
  assert.deepEqual(model.labelKeys, ['engine', 'gpu', 'model']);
  assert.deepEqual(model.charts.map((c) => c.id), ['requestsPerSecond', 'outputTokensPerSecond', 'latencyMs', 'ttftMs', 'itlMs', 'tpotMs', 'failures']);
  const latency = model.charts.find((c) => c.id === 'latencyMs')!;
  assert.deepEqual(latency.curves[0]?.points.map((p) => [p.x, p.y]), [[1, 1500], [2, 1575], [4, 1770], [8, 3150], [16, 6000]], 'p90 by default');
  assert.deepEqual(latency.curves[0]?.knee, { x: 4, y: 1770, step: 'concurrency@4' });
  assert.equal(latency.curves[1]?.knee, null);
  assert.deepEqual(model.knees.map((k) => k.step), ['concurrency@4', null]);
  assert.deepEqual(model.charts.find((c) => c.id === 'failures')?.curves[0]?.points.map((p) => p.y), [0, 0, 0, 0, 2]);
  assert.deepEqual(model.tradeoff.curves[1]?.points.map((p) => [p.x, p.y]), [[1875, 80], [1875, 160], [1875, 240]]);
  assert.deepEqual(model.runs.map((r) => r.color), [0, 1]);
  assert.deepEqual(model.offAxis, []);
  const rateOnly = sweep({ model: 'qwen' }, [[1, 1, 100, 1000, 50, 0]]);
  rateOnly.steps[0]!.profile = { kind: 'rate', rate: 2 };
  assert.deepEqual(buildReportModel([...runs, { name: 'rate-run', doc: rateOnly }], { axis: 'concurrency' }).offAxis, ['rate-run']);
});

test('ranking: the heaviest step meeting the SLO, ordered by output tokens per second', () => {
  const model = buildReportModel(runs, { slo: { ttftMs: 100 }, stat: 'p90' });
  const [first, second] = model.ranking;
  assert.deepEqual(
    [first?.name, first?.step, first?.outputTokensPerSecond, first?.ttftMs],
    ['sglang-l20', 'concurrency@3', 240, 96],
  );
  // The A100's p90 TTFT is 105 ms at concurrency 4: its heaviest step within 100 ms is concurrency 2.
  assert.deepEqual([second?.name, second?.step, second?.rank], ['vllm-a100', 'concurrency@2', 2]);
  const strict = buildReportModel(runs, { slo: { ttftMs: 80 }, stat: 'p90' });
  assert.deepEqual(strict.ranking.map((r) => [r.name, r.step]), [['vllm-a100', 'concurrency@1'], ['sglang-l20', null]]);
  const none = buildReportModel(runs, { slo: { ttftMs: 1 } });
  assert.deepEqual(none.ranking.map((r) => r.step), [null, null]);
  const md = formatRankingMarkdown(model).split('\n');
  // The report view's ranking, in its names and figures (it printed "240.00 tokens/second" beside the view's 240).
  assert.equal(md[0], '| Rank | Run | Heaviest step within the SLO (and its load) | output tok/s | req/s | TTFT (p90, ms) | TPOT (p90, ms) | latency (p90, ms) |');
  assert.equal(md[2], '| 1 | sglang-l20 | concurrency@3, 3.0 in flight | 240 | 2.40 | 96.0 | 31.50 | 1,875 |');
});

test('ranking: runs within noise of the run above (under 5% apart in output tok/s, compare\'s rule) share its rank, marked', () => {
  const close = sweep({ model: 'qwen', gpu: 'H20' }, [[1, 1, 100, 1000, 50, 0], [3, 2.3, 232, 1200, 60, 0]]);
  const far = sweep({ model: 'qwen', gpu: 'T4' }, [[1, 1, 100, 1000, 50, 0], [3, 2, 205, 1200, 60, 0]]);
  const model = buildReportModel([...runs, { name: 'h20', doc: close }, { name: 't4', doc: far }], { slo: { ttftMs: 100 }, stat: 'p90' });
  assert.deepEqual(
    model.ranking.map((r) => [r.name, r.outputTokensPerSecond, r.rank, r.tiedWithAbove]),
    [['sglang-l20', 240, 1, false], ['h20', 232, 1, true], ['t4', 205, 3, false], ['vllm-a100', 190, 4, false]],
  );
  assert.deepEqual(rankingTable(model).rows.map((row) => row[0]), ['1', '\u22481', '3', '4']);
  assert.match(formatRankingMarkdown(model), /\| \u22481 \| h20 \|/);
  assert.deepEqual(model.ranking.map((r) => r.noiseRule), [null, 'small-change', 'small-change', 'small-change']);
  assert.match(rankingNoiseNote(model), /a change under 5% counts as noise/);
});

test('the Markdown and HTML exports say which rule gave runs a shared rank, as the report view does', () => {
  // The Markdown ranking marked \u2248 ranks without a word of the rule behind them.
  const close = sweep({ model: 'qwen', gpu: 'H20' }, [[1, 1, 100, 1000, 50, 0], [3, 2.3, 232, 1200, 60, 0]]);
  const model = buildReportModel([...runs, { name: 'h20', doc: close }], { slo: { ttftMs: 100 }, stat: 'p90' });
  const markdown = formatRankingMarkdown(model);
  assert.match(markdown, /\| \u22481 \| h20 \|/);
  assert.match(markdown, /\u2248 marks a run within noise of the one above/);
  assert.match(markdown, /a change under 5% counts as noise/);
  assert.ok(renderHtmlReport(model, [...runs, { name: 'h20', doc: close }], 'r').includes('a change under 5% counts as noise'));
});

test('CSV: a header, one row per step, labels as columns, cells as numbers or empty', () => {
  const lines = formatStepsCsv(runs).trimEnd().split('\r\n');
  const header = lines[0]!.split(',');
  assert.deepEqual(header.slice(0, 8), ['run', 'source', 'tool', 'model', 'label:engine', 'label:gpu', 'label:model', 'step']);
  assert.equal(lines.length, 1 + 5 + 3);
  const row = Object.fromEntries(header.map((h, i) => [h, lines[5]!.split(',')[i]]));
  assert.equal(row['run'], 'vllm-a100');
  assert.equal(row['label:gpu'], 'A100');
  assert.equal(row['step'], 'concurrency@16');
  assert.equal(row['concurrency'], '16');
  assert.equal(row['rate'], '');
  assert.equal(row['requests_failed'], '2');
  assert.equal(row['output_tokens_per_s'], '310');
  assert.equal(row['ttft_ms_p90'], '600');
  assert.equal(row['goodput_req_per_s'], '');
  const quoted = formatStepsCsv([{ name: 'a,"b"', doc: l20 }]).split('\r\n')[1]!;
  assert.ok(quoted.startsWith('"a,""b""",'));
});

test('CSV: text a spreadsheet would run as a formula is shown as text; negative numbers stay numbers', () => {
  const labels = { a: '=HYPERLINK("http://x","y")', b: '@SUM(A1)', c: '+1', d: '-2+3', e: '\tx', f: '\r=1', g: 'vllm' };
  const doc = { ...l20, labels };
  const lines = formatStepsCsv([{ name: '=cmd|calc', doc }]).split('\r\n');
  const header = lines[0]!.split(',');
  const first = lines[1]!;
  assert.ok(first.startsWith(`'=cmd|calc,`), first);
  assert.ok(first.includes(`,"'=HYPERLINK(""http://x"",""y"")",'@SUM(A1),'+1,'-2+3,'\tx,"'\r=1",vllm,`), first);
  assert.deepEqual(header.slice(4, 11), ['label:a', 'label:b', 'label:c', 'label:d', 'label:e', 'label:f', 'label:g']);
  const negative = formatStepsCsv([{ name: 'r', doc: { ...l20, steps: l20.steps.map((st) => ({ ...st, profile: { ...st.profile, concurrency: -1 } })) } }]);
  assert.ok(negative.split('\r\n')[1]!.includes(',-1,'), 'a number is never prefixed');
});

test('HTML report: self-contained (no script, no external reference), every run, chart and ranking in it', () => {
  const model = buildReportModel(runs, { groupBy: 'engine', slo: { ttftMs: 100 } });
  const html = renderHtmlReport(model, runs, 'GPUs <compared>', new Date('2025-06-02T00:00:00Z'));
  assert.ok(!/<script|<link|src=|url\(/i.test(html), 'nothing loaded from anywhere');
  assert.match(html, /default-src 'none'/);
  assert.match(html, /<title>GPUs &#60;compared&#62;<\/title>/);
  assert.equal((html.match(/<svg [^>]*data-chart=/g) ?? []).length, 8, '8 charts');
  assert.equal((html.match(/<svg class="swatch"/g) ?? []).length, runs.length, 'a legend swatch per run');
  assert.equal((html.match(/class="knee"/g) ?? []).length, 8, 'the A100 knee on each chart');
  // The group under the run's name, the load under its step, each with its unit; figures right-aligned, text not.
  assert.match(html, /<td>1<\/td><td><span class="line">sglang-l20<\/span><span class="line sub">sglang<\/span><\/td><td><span class="line">concurrency@3<\/span><span class="line sub">3\.0 in flight<\/span><\/td><td class="num">240<\/td>/);
});

/** Runs a command module (compiled beside this test) in its own process, as `llmbench <command>` would. */
function cli(command: 'import' | 'report', argv: string[]): { code: number | null; stdout: string; stderr: string } {
  const modulePath = join(__dirname, '../../src/cli/commands', `${command}.js`);
  const script = `require(${JSON.stringify(modulePath)}).run(${JSON.stringify(argv)}).then((c) => { process.exitCode = c; }, (e) => { process.stderr.write(e.message); process.exitCode = 2; })`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('llmbench import writes a result file; llmbench report makes html, md and csv of it with a run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-cli-'));
  const vllmFile = join(dir, 'vllm-rate2.json');
  writeFileSync(vllmFile, JSON.stringify({ model_id: 'qwen', request_rate: 2, burstiness: 1, duration: 50, completed: 100, request_throughput: 2, output_throughput: 200, total_token_throughput: 600, mean_ttft_ms: 80, median_ttft_ms: 75, p99_ttft_ms: 150, mean_tpot_ms: 20, median_tpot_ms: 19, p99_tpot_ms: 30, mean_itl_ms: 19, median_itl_ms: 18, p99_itl_ms: 40 }));
  const out = join(dir, 'vllm.llmbench.json');
  const imported = cli('import', [vllmFile, '--out', out, '--label', 'engine=vllm']);
  assert.equal(imported.code, 0, imported.stderr);
  // The table of means in the views' names and figures: req/s, output tok/s, TTFT, TPOT, latency (ms), requests.
  assert.match(imported.stdout, /asynchronous@2\.00 req\/sec \|\s+2\.00 \|\s+200 \|\s+80\.0 \|\s+20\.00 \|\s+n\/a \|\s+100 \/ 0/);
  assert.match(imported.stdout, /How vllm bench serve differs:/);
  const ours = join(dir, 'a100.llmbench.json');
  writeFileSync(ours, JSON.stringify(a100));
  for (const format of ['html', 'md', 'csv']) {
    const r = cli('report', [out, ours, '--out', join(dir, `r.${format}`), '--format', format, '--group-by', 'engine', '--slo', 'ttft=100']);
    assert.equal(r.code, 0, r.stderr);
  }
  const badGroup = cli('report', [out, '--out', join(dir, 'x.html'), '--group-by', 'nope']);
  assert.equal(badGroup.code, 2);
  assert.match(badGroup.stderr, /no run has the label 'nope'; labels present: source, model, engine/);
  const badOut = cli('import', [vllmFile, '--out', join(dir, 'x.json')]);
  assert.equal(badOut.code, 2);
  assert.match(badOut.stderr, /must end in \.llmbench\.json/);
  // The CSV holds no printout or table that import reads (the Markdown report's tables read back: import-tables.test.ts).
  const unreadable = cli('import', [join(dir, 'r.csv'), '--out', join(dir, 'y.llmbench.json')]);
  assert.equal(unreadable.code, 2);
  assert.match(unreadable.stderr, /r\.csv: no benchmark result found/);

  const doc = ResultDocumentSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
  assert.equal(doc.labels['engine'], 'vllm');
  assert.deepEqual(doc.steps.map((s) => s.name), ['asynchronous@2.00 req/sec']);
  const md = readFileSync(join(dir, 'r.md'), 'utf8');
  assert.match(md, /\| asynchronous@2\.00 req\/sec \| 2\.00 req\/sec \| n\/a \| 80\.00 ms \| 20\.00 ms \| 200\.00 tokens\/second \|/);
  assert.match(readFileSync(join(dir, 'r.csv'), 'utf8'), /^run,source,tool,model,label:engine/);
  assert.match(readFileSync(join(dir, 'r.html'), 'utf8'), /vllm bench serve \(imported\)/);
});

test('editing labels rewrites only the labels: every measurement stays as it was', () => {
  const text = JSON.stringify(a100, null, 2);
  const labels = parseLabelsText(' engine = vllm , gpu=A100 x2,quant=awq ');
  assert.ok(labels.ok);
  assert.deepEqual(labels.value, { engine: 'vllm', gpu: 'A100 x2', quant: 'awq' });
  const updated = withLabels(text, labels.value);
  assert.ok(updated.ok);
  const before = JSON.parse(text);
  const after = JSON.parse(updated.value);
  assert.deepEqual(after.labels, labels.value);
  assert.deepEqual({ ...after, labels: null }, { ...before, labels: null });
  assert.equal(formatLabelsText(labels.value), 'engine=vllm, gpu=A100 x2, quant=awq');
  const bad = parseLabelsText('engine');
  assert.match(bad.ok ? '' : bad.error, /'engine' is not a label: write key=value/);
  assert.equal(withLabels('{"schemaVersion": 1}', {}).ok, false);
});

test('report webview specs: one line per run, the knee a small ring drawn behind the lines, one legend for the page', () => {
  // Eight charts each carried a five-line legend that squeezed the plot, and knee dots of radius 8 covered the data.
  const model = buildReportModel(runs, { groupBy: 'gpu' });
  const spec = reportChartSpec(model.charts[1]!);
  assert.deepEqual(spec.series.map((s) => [s.label, s.data.length, s.hideInLegend ?? false]), [
    ['vllm-a100', 5, false],
    ['vllm-a100 knee (concurrency@4)', 1, true],
    ['sglang-l20', 3, false],
  ]);
  assert.deepEqual(spec.series[1]?.data, [{ x: 4, y: 270 }]);
  assert.equal(spec.legend, false, 'no legend on the chart: the page has one');
  const knee = spec.series[1]!;
  assert.deepEqual([knee.hollow, knee.behind], [true, true], 'an outline behind the line');
  assert.ok((knee.pointRadius ?? 0) <= 6 && (knee.pointRadius ?? 0) > (spec.series[0]!.pointRadius ?? 0), 'smaller than before, larger than a data point, so that the ring shows around it');
  assert.deepEqual(kneeTable(model).rows.find((row) => row[0] === 'vllm-a100')?.[1], 'concurrency@4\n4.0 in flight');
});

test('the ranking fits a narrow editor: group under the run, load with its unit under the step, the figure ranked by first, goodput only when some run measured it', () => {
  // It had twelve columns (the group, the load without a unit, a column of n/a goodput without an
  // SLO, each run's knee again) and no metric column showed at 1000 px.
  const model = buildReportModel(runs, { groupBy: 'engine', slo: { ttftMs: 100 } });
  const table = rankingTable(model);
  assert.deepEqual(table.columns.map((c) => [c.label, c.unit ?? '']), [
    ['Rank', ''], ['Run', 'engine'], ['Heaviest step within the SLO', 'and its load'], ['output tok/s', ''], ['req/s', ''], ['TTFT', 'p90, ms'], ['TPOT', 'p90, ms'], ['latency', 'p90, ms'],
  ]);
  assert.deepEqual(table.rows[1], ['2', 'vllm-a100\nvllm', 'concurrency@2\n2.0 in flight', '190', '1.90', '82.5', '31.50', '1,575']);
  assert.deepEqual(table.columns.map((c) => c.numeric ?? false), [false, false, false, true, true, true, true, true], 'text left, figures right');
  const ungrouped = rankingTable(buildReportModel(runs));
  assert.equal(ungrouped.columns[1]?.unit, undefined);
  assert.equal(ungrouped.columns[2]?.label, 'Heaviest step', 'no SLO: every step counts');
  assert.equal(ungrouped.rows[0]?.[1], 'vllm-a100');
  // A run that measured goodput (its own SLO) brings the column, with the step it was best at.
  const withGoodput: ReportRun[] = [{ ...runs[0]!, doc: { ...a100, steps: a100.steps.map((step, i) => ({ ...step, summary: step.summary && { ...step.summary, goodput: i + 0.5 } })) } }, runs[1]!];
  const goodput = rankingTable(buildReportModel(withGoodput));
  assert.deepEqual(goodput.columns.at(-1), { label: 'best goodput', unit: 'req/s, its own SLO', numeric: true, description: goodput.columns.at(-1)?.description });
  assert.deepEqual(goodput.rows.map((row) => row.at(-1)), ['4.50\nat concurrency@16', 'n/a']);
});

test('the knee table lists the runs in the ranking\'s order, each knee with its load and unit', () => {
  // It listed them in the order the runs were read, beside a ranking in another order.
  const model = buildReportModel(runs, { slo: { ttftMs: 100 } });
  assert.deepEqual(model.ranking.map((r) => r.name), ['sglang-l20', 'vllm-a100']);
  const knees = kneeTable(model);
  assert.deepEqual(knees.rows.map((row) => row[0]), ['sglang-l20', 'vllm-a100']);
  assert.deepEqual(knees.rows.map((row) => row[1]), ['none', 'concurrency@4\n4.0 in flight']);
  const byRate = kneeTable(buildReportModel(runs, { axis: 'rate' }));
  assert.match(byRate.rows.find((row) => row[0] === 'vllm-a100')?.[1] ?? '', /\n\d+\.\d\d req\/s$/);
});

test('every run has its own colour, each group its own dash; the page legend and the export show both', () => {
  // Runs of a group shared a colour, and the dash that told them apart was in no legend.
  assert.deepEqual([0, 1, 2, 3].map((i) => curveStyle(i, null)), [0, 1, 2, 3].map((i) => ({ color: i, dash: i })), 'ungrouped: a colour and a dash each');
  assert.deepEqual(curveStyle(9, null), { color: 1, dash: 1 });
  assert.deepEqual(curveStyle(9, 2), { color: 1, dash: 2 }, 'grouped: the group\'s dash');
  const four: ReportRun[] = [runs[0]!, runs[1]!, { ...runs[0]!, name: 'vllm-b' }, { ...runs[1]!, name: 'sglang-b' }];
  const model = buildReportModel(four, { groupBy: 'engine' });
  assert.deepEqual(reportLegend(model), [
    { name: 'vllm-a100', group: 'vllm', color: 0, dash: 0 },
    { name: 'sglang-l20', group: 'sglang', color: 1, dash: 1 },
    { name: 'vllm-b', group: 'vllm', color: 2, dash: 0 },
    { name: 'sglang-b', group: 'sglang', color: 3, dash: 1 },
  ]);
  assert.deepEqual(model.charts[0]?.curves.map((c) => [c.color, c.dash]), [[0, 0], [1, 1], [2, 0], [3, 1]]);
  assert.deepEqual(reportChartSpec(model.charts[0]!).series.filter((s) => !s.hideInLegend).map((s) => [s.color, s.dash]), [[0, 0], [1, 1], [2, 0], [3, 1]]);
  const html = renderHtmlReport(model, four, 'Four');
  const swatches = [...html.matchAll(/<svg class="swatch"[^>]*><line [^>]*stroke="(#[0-9a-f]{6})"[^>]*?(?: stroke-dasharray="([\d ]+)")?\/>/g)].map((m) => [m[1], m[2] ?? '']);
  assert.equal(new Set(swatches.map(([color]) => color)).size, 4, 'four colours in the legend');
  assert.deepEqual(swatches.map(([, dash]) => dash), ['', '7 4', '', '7 4'], 'and the dashes');
});

test('the HTML export writes a mark\'s label only where it overlaps no other, inside the plot', () => {
  // Two runs whose knees and queue marks fall on the same point wrote "knee" and "queue" over each other.
  const plot = { x: 0, y: 0, width: 200, height: 100 };
  const placed: { x: number; y: number; width: number; height: number }[] = [];
  const first = placeLabel('knee', 100, 50, plot, placed);
  const second = placeLabel('queue', 100, 50, plot, placed);
  const third = placeLabel('knee', 100, 50, plot, placed);
  const fourth = placeLabel('KV 95%', 100, 50, plot, placed);
  assert.ok(first && second && third && fourth, 'four corners around one point');
  assert.equal(placeLabel('knee', 100, 50, plot, placed), null, 'no fifth: left to the tooltip');
  for (const [i, a] of placed.entries()) for (const b of placed.slice(i + 1)) assert.ok(a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y, 'no two overlap');
  assert.equal(placeLabel('knee', 2, 2, plot, []) ?.x, 10, 'at the corner of the plot: the side that fits');
  const model = buildReportModel([runs[0]!, { ...runs[0]!, name: 'twin' }]);
  const svg = svgLineChart(model.charts[1]!);
  const labels = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" class="mark-label"/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.equal(labels.length, 2, 'both twins\' knees labelled');
  assert.notDeepEqual(labels[0], labels[1]);
  assert.ok(svg.indexOf('class="knee"') < svg.indexOf('class="curve"'), 'the knee ring is drawn before (under) the lines');
});

test('the HTML export: text columns left-aligned and wrapping, figures right-aligned; each chart half the page', () => {
  const html = renderHtmlReport(buildReportModel(runs, { groupBy: 'engine' }), runs, 'Report');
  // The runs table's text had no class of its own and inherited the right alignment of numbers.
  assert.match(html, /<table class="runs"><thead><tr><th>Run<\/th><th>Group<span class="unit">engine<\/span><\/th><th>Status<\/th><th>Model<\/th><th>Source<\/th><th>Labels<\/th>/);
  assert.match(html, /<tr><td>vllm-a100<\/td><td>vllm<\/td><td>complete<\/td><td>qwen<\/td><td>llmbench 0\.1\.0<\/td><td>engine=vllm, gpu=A100, model=qwen<\/td><\/tr>/);
  assert.match(html, /td\{text-align:left;/);
  assert.match(html, /td\.num,th\.num\{text-align:right;white-space:nowrap/);
  assert.match(html, /\.charts\{display:grid;grid-template-columns:repeat\(2,minmax\(0,1fr\)\)/);
  // The step tables are the result editor's: p50 and p99 in ms, figures formatted as the views do.
  assert.match(html, /<table class="steps"><thead><tr><th title="[^"]+">Step<\/th><th class="num" title="[^"]+">req\/s<\/th><th class="num" title="[^"]+">output tok\/s<\/th><th class="num" title="[^"]+">TTFT<span class="unit">ms, p50<\/span><\/th>/);
  assert.match(html, /<th class="num"[^>]*>latency<span class="unit">ms, p99<\/span><\/th>/);
  // vllm-a100's concurrency@1: latency p50 1,000 ms and p99 2,000 ms (it printed "1.00", in seconds).
  assert.match(html, /<tr><td>concurrency@1<\/td><td class="num">1\.00<\/td><td class="num">100<\/td>.*?<td class="num">1,000<\/td><td class="num">2,000<\/td><td class="num">0 of 50<\/td><\/tr>/);
});
