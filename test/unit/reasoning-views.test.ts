// What the views make of reasoning and embeddings runs (real runs against the simulator): the result
// view opens on a stacked bar of where each step's time went, offers TTFO and the reasoning and
// answer tokens in its table and charts, compare, the report and the text tables; a run without
// reasoning shows none of it (no empty columns); an embeddings run shows its own figures and
// hides the stream's; and the result page draws the bar first.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { ResultDocumentSchema, type ResultDocument } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { forReading } from '../../src/results/read-result';
import { formatStepsCsv } from '../../src/report/csv';
import { formatMarkdownTable, formatTerminalTable } from '../../src/report/tables';
import { startSimServer, type SimOptionsInput } from '../../src/sim';
import { resultChartSpec } from '../../src/views/chart-spec';
import { buildCompareView } from '../../src/views/compare';
import { buildReportModel, rankingTable } from '../../src/views/report';
import { buildResultView } from '../../src/views/result';
import { deltaTable, stepTable } from '../../src/views/result-tables';
import { repeatRows } from '../../src/views/repeats';
import { chartConfig } from '../../webview/shared/charts';
import type { Theme } from '../../webview/shared/theme';
import { openPage } from '../helpers/webview-page';

const THEME: Theme = {
  kind: 'light', background: '#ffffff', foreground: '#333333', mutedForeground: '#777777', gridLines: '#dddddd', border: '#cccccc',
  error: '#e51400', warning: '#bf8803', success: '#388a34', fontFamily: 'sans-serif', fontSize: 13, palette: ['#005fb8', '#c24e00', '#388a34'],
};

async function simRun(sim: SimOptionsInput, run: Partial<RunConfigInput>, api: 'chat' | 'embeddings' = 'chat'): Promise<ResultDocument> {
  const server = await startSimServer({ preset: 'tiny', seed: 5, ...sim });
  try {
    return ResultDocumentSchema.parse(
      await runBenchmark(
        RunConfigSchema.parse({
          endpoint: { baseUrl: server.baseUrl, model: server.model, api },
          workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 16 },
          request: { extraBody: { ignore_eos: true } },
          profile: { kind: 'concurrency', levels: [1, 2] },
          limits: { requests: 4 },
          serverMetrics: { url: 'off' },
          ...run,
        }),
        {},
      ),
    );
  } finally {
    await server.close();
  }
}

let thinking: ResultDocument;
let plain: ResultDocument;
let embedding: ResultDocument;
before(async () => {
  thinking = await simRun({ reasoning: { tokens: 10 } }, {});
  plain = await simRun({}, {});
  embedding = await simRun({}, { workload: { kind: 'synthetic', inputTokens: 16, embeddingBatch: 4 }, request: {} }, 'embeddings');
});

const groups = (doc: ResultDocument, itl = false) => stepTable(buildResultView(forReading(doc), 'r.llmbench.json').rows, { means: false, p90: false, p95: false, itl }).groups.map((g) => g.label);

test('result view of a reasoning run: opens on the stacked bar of first token, reasoning and answer time; TTFO and the tokens in table and charts', () => {
  const view = buildResultView(forReading(thinking), 'thinking.llmbench.json');
  const split = view.charts[0]!;
  assert.equal(split.id, 'reasoning-split', 'the split is the first chart: shown by default');
  assert.equal(split.kind, 'stacked-bar');
  assert.deepEqual(split.categories, ['concurrency@1', 'concurrency@2']);
  assert.deepEqual(split.series.map((s) => s.label), ['to the first token (TTFT)', 'reasoning (TTFO - TTFT)', 'answer (latency - TTFO)']);
  // The segments are means that add up to the step's mean latency.
  view.rows.forEach((row, i) => {
    const total = split.series.reduce((sum, s) => sum + (s.points.find(([x]) => x === i)?.[1] ?? 0), 0);
    assert.ok(Math.abs(total - (row.latencyMs?.mean as number)) < 1e-6, `step ${row.name}: ${total} against ${row.latencyMs?.mean}`);
    assert.ok((split.series[1]!.points[i]![1] as number) > 5, 'ten reasoning tokens take time');
  });
  const ids = view.charts.map((c) => c.id);
  assert.ok(ids.includes('ttfo') && ids.includes('ttfo-distribution'), ids.join(', '));
  assert.deepEqual(groups(thinking), ['Benchmark', 'req/s', 'output tok/s', 'TTFT', 'TTFO', 'TPOT', 'latency', 'reasoning tok', 'answer tok', 'failures']);
  assert.deepEqual(groups(thinking, true).slice(6, 10), ['latency', 'ITL', 'reasoning ITL', 'answer ITL']);
  const table = stepTable(view.rows);
  assert.deepEqual(table.rows.map((r) => r.slice(-3, -1)), [['10', '6'], ['10', '6']], 'reasoning and answer tokens, mean');
  // The bar as chart.js draws it: bars stacked over the steps.
  const config = chartConfig(resultChartSpec(split), THEME) as unknown as { type: string; data: { datasets: { type: string; stack: string }[] }; options: { scales: { x: { stacked: boolean }; y: { stacked: boolean } } } };
  assert.equal(config.type, 'bar');
  assert.ok(config.data.datasets.every((d) => d.type === 'bar' && d.stack === 'stack'));
  assert.deepEqual([config.options.scales.x.stacked, config.options.scales.y.stacked], [true, true]);
  // A note says the reasoning tokens were counted here: the simulator's usage counted them, so none.
  assert.ok(!view.notes.some((n) => /Reasoning and answer tokens/.test(n)), view.notes.join('\n'));
});

test('a run without reasoning has no reasoning chart, column or figure; the text tables keep their columns', () => {
  const view = buildResultView(forReading(plain), 'plain.llmbench.json');
  assert.ok(!view.charts.some((c) => /reasoning|ttfo/.test(c.id)), view.charts.map((c) => c.id).join(', '));
  assert.deepEqual(groups(plain), ['Benchmark', 'req/s', 'output tok/s', 'TTFT', 'TPOT', 'latency', 'failures']);
  assert.deepEqual(groups(plain, true).slice(-2), ['ITL', 'failures']);
  assert.ok(view.rows.every((row) => !('ttfoMs' in row) && !('reasoningTokens' in row)));
  assert.match(formatTerminalTable(plain).split('\n')[0]!, /^Benchmark\s+\| req\/s \| output tok\/s \| TTFT \(mean, ms\) \| TPOT \(mean, ms\) \| latency \(mean, ms\) \| requests \(ok \/ failed\)$/);
  assert.doesNotMatch(formatTerminalTable(plain), /TTFO|reasoning/);
  assert.doesNotMatch(formatMarkdownTable(plain), /Output Token\b.*First Output|Reasoning/);
  const thinkingTable = formatTerminalTable(thinking).split('\n');
  assert.match(thinkingTable[0]!, /TTFT \(mean, ms\) \| TTFO \(mean, ms\) \| reasoning tok \(mean, tokens\) \| TPOT \(mean, ms\)/);
  // The footnote under the table's closing rule (the steps' warning lines, a loaded machine's client-bound one among them, follow it).
  assert.match(thinkingTable[thinkingTable.lastIndexOf(thinkingTable[1]!) + 1]!, /TTFO: the first answer token, the reasoning left out\./);
  assert.match(formatMarkdownTable(thinking), /\| Time to First Token \| Time to First Output Token \| Reasoning Tokens \|/);
});

test('an embeddings run shows its figures (embeddings/s, input tok/s, latency) and hides the stream\'s', () => {
  const view = buildResultView(forReading(embedding), 'embed.llmbench.json');
  assert.deepEqual(groups(embedding), ['Benchmark', 'req/s', 'embeddings/s', 'input tok/s', 'latency', 'failures']);
  const drawn = view.charts.filter((c) => c.series.some((s) => s.points.length > 0)).map((c) => c.id);
  assert.deepEqual(drawn, ['embeddings-throughput', 'requests', 'input-throughput', 'latency']);
  const header = formatTerminalTable(embedding).split('\n')[0]!;
  assert.match(header, /req\/s \| embeddings\/s \| input tok\/s \| latency \(mean, ms\) \| requests \(ok \/ failed\)$/);
  assert.doesNotMatch(header, /TTFT|TPOT|output/);
  assert.deepEqual(repeatRows(view.rows)[0]?.cells.map((c) => c.metric), ['requestsPerSecond', 'embeddingsPerSecond', 'inputTokensPerSecond', 'latencyMs', 'latencyMs', 'failures']);
});

test('compare of a reasoning run with a plain one: TTFO in the delta table (the plain run\'s TTFT is its TTFO) and on an overlay chart', () => {
  const view = buildCompareView(forReading(plain), forReading(thinking), 'plain.llmbench.json', 'thinking.llmbench.json');
  const columns = deltaTable(view.deltas).columns.map((c) => c.label);
  assert.deepEqual(columns.slice(2, 6), ['TTFT p50', 'TTFT p99', 'TTFO p50', 'TTFO p99']);
  const ttfo = view.deltas[0]!.cells.find((c) => c.metric === 'ttfoMs' && c.statistic === 'p50')!;
  assert.equal(ttfo.a, plain.steps[0]!.summary!.ttftMs!.p50);
  assert.equal(ttfo.b, thinking.steps[0]!.summary!.ttfoMs!.p50);
  assert.equal(ttfo.verdict, 'worse', 'thinking first: the answer comes later');
  assert.ok(view.charts.some((c) => c.id === 'ttfo'));
  const same = buildCompareView(forReading(plain), forReading(plain), 'a.llmbench.json', 'b.llmbench.json');
  assert.ok(!deltaTable(same.deltas).columns.some((c) => c.label.startsWith('TTFO')), 'no TTFO column between two runs that did not reason');
});

test('the report offers TTFO (curve, ranking columns, SLO) and the reasoning and answer tokens when a run reasoned; the CSV has their columns', () => {
  const runs = [
    { name: 'plain', doc: plain },
    { name: 'thinking', doc: thinking },
  ];
  const model = buildReportModel(runs, { stat: 'p50' });
  assert.equal(model.reasoning, true);
  assert.ok(model.charts.some((c) => c.id === 'ttfoMs'));
  const ranking = rankingTable(model);
  const heads = ranking.columns.map((c) => `${c.label} (${c.unit ?? ''})`);
  const ttft = heads.indexOf('TTFT (p50, ms)');
  assert.deepEqual(heads.slice(ttft, ttft + 4), ['TTFT (p50, ms)', 'TTFO (p50, ms)', 'reasoning tok (mean)', 'answer tok (mean)']);
  const row = ranking.rows.find((r) => r[1] === 'thinking')!;
  assert.equal(row[ttft + 2], '10', 'the thinking run\'s mean reasoning tokens');
  // An SLO on TTFO: the thinking run's TTFO p50 is above its TTFT p50, so a limit between them leaves it no step.
  const limit = ((thinking.steps[0]!.summary!.ttfoMs!.p50 as number) + (thinking.steps[0]!.summary!.ttftMs!.p50 as number)) / 2;
  const held = buildReportModel(runs, { stat: 'p50', slo: { ttfoMs: limit } });
  assert.equal(held.ranking.find((r) => r.name === 'thinking')?.step, null);
  assert.notEqual(held.ranking.find((r) => r.name === 'plain')?.step, null);
  const plainOnly = buildReportModel([{ name: 'plain', doc: plain }], { stat: 'p50' });
  assert.equal(plainOnly.reasoning, false);
  assert.ok(!rankingTable(plainOnly).columns.some((c) => /TTFO|reasoning|answer/.test(c.label)));
  const csv = formatStepsCsv(runs).split('\r\n');
  const header = csv[0]!.split(',');
  const thinkingRow = csv.find((line) => line.startsWith('thinking'))!.split(',');
  assert.equal(thinkingRow[header.indexOf('reasoning_tokens_mean')], '10');
  assert.equal(csv.find((line) => line.startsWith('plain'))!.split(',')[header.indexOf('ttfo_ms_p50')], '');
});

test('the result page draws the reasoning split first, and an embeddings run without TTFT columns', async () => {
  const page = openPage('result');
  page.send({ type: 'show', view: buildResultView(forReading(thinking), 'thinking.llmbench.json') });
  const heads = [...page.document.querySelectorAll('.step-table thead tr:first-child th')].map((th) => th.firstChild?.textContent);
  assert.deepEqual(heads.slice(3, 5), ['TTFT', 'TTFO']);
  await new Promise((resolve) => page.window.requestAnimationFrame(resolve));
  const cards = [...page.document.querySelectorAll('[data-chart]')].map((card) => card.getAttribute('data-chart'));
  assert.equal(cards[0], 'reasoning-split');
  const embed = openPage('result');
  embed.send({ type: 'show', view: buildResultView(forReading(embedding), 'embed.llmbench.json') });
  const embedHeads = [...embed.document.querySelectorAll('.step-table thead tr:first-child th')].map((th) => th.firstChild?.textContent);
  assert.deepEqual(embedHeads, ['Benchmark', 'req/s', 'embeddings/s', 'input tok/s', 'latency', 'failures']);
});
