/**
 * A step's warnings in the display language (issue 27): the views say each warning LLM Bench wrote
 * again through the translator, with the figures of the stored message; in English, and for a
 * warning this version did not write, the stored message unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientLoad } from '../../src/format/result';
import { STEP_WARNING_KINDS } from '../../src/format/result';
import { clientBoundWarnings } from '../../src/load/client-bound';
import { errorRateStop } from '../../src/load/guards';
import { tooShortWarning } from '../../src/results/window';
import { english, translator, type Translate } from '../../src/views/l10n';
import { sayWarning, stepWarningLines } from '../../src/views/step-warnings';
import { buildResultView } from '../../src/views/result';
import { buildReportModel, kneeTable, rankingNoiseNote, rankingTable, reportChartSpec, reportChartText } from '../../src/views/report';
import { buildCompareView } from '../../src/views/compare';
import { markText } from '../../src/views/server-views';
import { summaryItems } from '../../src/views/result-tables';
import { forReading } from '../../src/results/read-result';
import { runWithServerMetrics } from '../helpers/server-samples';
import { renderHtmlReport } from '../../src/report/html';
import { formatMarkdownTable } from '../../src/report/tables';
import { clientThread } from '../helpers/client-load';
import { concurrencySweep } from '../helpers/result-documents';
import { repoRoot } from '../vscode/harness/tools';

const chinese = translator(JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>);
const HAN = /[\u4e00-\u9fff]/;
/** The figures of a text, in order of size: what a translation must keep (its order may change). */
const figures = (text: string): string[] => (text.match(/\d+(?:\.\d+)?/g) ?? []).sort();

const thread = clientThread;
const load = (threads: ClientLoad['threads'], workers = threads.length): ClientLoad => ({ workers, threads, startSkewMs: null });

/** Every wording the builders write, from the builders themselves. */
function builtWarnings(): string[] {
  const built = [
    tooShortWarning(0.3, 300),
    tooShortWarning(0.01, 300),
    tooShortWarning(0.3, 300, 'ran'),
    errorRateStop(7, 20, 0.1, 10, 'step'),
    errorRateStop(7, 20, 0.1, 10, 'run'),
    ...clientBoundWarnings(load([thread({ busy: 0.97 })]), 7),
    ...clientBoundWarnings(load([thread({ busy: 0.97 })]), 1),
    ...clientBoundWarnings(load([thread({ loopDelayMs: { p50: 3, p99: 14.2, max: 30 } }), thread({}, 1)]), 7),
    ...clientBoundWarnings(load([thread({ sendLatenessMs: { p50: 3, p99: 25.5, max: 30 }, coreWaitShare: 0.4 }), thread({}, 1)]), 7),
    ...clientBoundWarnings(load([thread({ sendLatenessMs: { p50: 3, p99: 25.5, max: 30 }, coreWaitShare: 0.4 }), thread({}, 1)]), 7, 'shard'),
    ...clientBoundWarnings(load([thread({ busy: 0.95 }), thread({ busy: 0.95 }, 1)]), 7, 'shard'),
    ...clientBoundWarnings(load([thread({ loopDelayMs: { p50: 3, p99: 14.2, max: 30 }, busy: 0.1 })]), 7),
  ];
  return built.flatMap((w) => (w ? [w.message] : []));
}

test('every step warning LLM Bench writes reads in Chinese with its figures, and in English exactly as stored', () => {
  const messages = builtWarnings();
  assert.equal(messages.length, 12, 'a builder gave no warning: the inputs are wrong');
  for (const message of messages) {
    assert.equal(sayWarning(message, english), message, 'English is the stored message');
    const said = sayWarning(message, chinese);
    assert.notEqual(said, message, `not worded again: ${message}`);
    assert.match(said, HAN);
    assert.doesNotMatch(said, /\b(?:the|step|was|requests?|client|worker|shard)\b/, `English left in: ${said}`);
    assert.deepEqual(figures(said), figures(message), `figures changed: ${message} -> ${said}`);
  }
  // A line `step: message` keeps its step's name.
  assert.match(sayWarning(`concurrency@8: ${messages[0]}`, chinese), /^concurrency@8: 此步相对其延迟太短/);
  // Compare's lines name the run too: `A: step: message`.
  assert.match(sayWarning(`A: concurrency@8: ${messages[5]}`, chinese), /^A: concurrency@8: 客户端在该步 97% 的时间里忙碌/);
});

test('a warning this version did not write, or in another wording, reads as stored', () => {
  const unknown = 'the sky fell in (a kind from a newer version)';
  assert.equal(sayWarning(unknown, chinese), unknown);
  const older = 'this step is too short for its latency: its rates are mostly ramp-up; run it longer (it sent for 0.3 s).';
  assert.equal(sayWarning(older, chinese), older);
  const cut = errorRateStop(7, 20, 0.1, 10, 'step')!.message.replace('Ended early', 'Stopped');
  assert.equal(sayWarning(cut, chinese), cut);
});

test("a step's stored warnings read in Chinese in the result page's list, the report's HTML and the Markdown table", () => {
  const doc = concurrencySweep(20);
  const step = doc.steps[0]!;
  const warning = errorRateStop(7, 20, 0.1, 10, 'step')!;
  step.summary = { ...step.summary!, warnings: [warning] };
  assert.equal(warning.kind, STEP_WARNING_KINDS.errorRate);
  const lines = stepWarningLines(doc.steps.map((s) => ({ ...s, label: s.name })));
  assert.ok(lines.some((line) => line.endsWith(warning.message)));
  const view = buildResultView({ document: doc, unfinishedSteps: [] } as never, 'a.llmbench.json');
  const shown = view.warnings.map((line) => sayWarning(line, chinese));
  assert.ok(shown.some((line) => line.includes('提前结束：20 个请求中 7 个失败（35.0%），超过最大错误率 10.0%。')), shown.join('\n'));
  const runs = [{ name: 'a', doc }];
  const html = renderHtmlReport(buildReportModel(runs), runs, 'r', new Date(0), { t: chinese, locale: 'zh-cn' });
  assert.match(html, /提前结束：20 个请求中 7 个失败/);
  assert.ok(renderHtmlReport(buildReportModel(runs), runs, 'r', new Date(0)).includes(warning.message), 'the English report keeps the stored words');
  assert.match(formatMarkdownTable(doc, { t: chinese }), /提前结束：20 个请求中 7 个失败/);
  assert.equal(formatMarkdownTable(doc).includes(warning.message), true, 'English Markdown keeps the stored words');
});

test('summary values, the ranking and knee cells, and the noise notes read in Chinese; in English as before', () => {
  const runs = [
    { name: 'a', doc: concurrencySweep(20) },
    { name: 'b', doc: runWithServerMetrics() },
  ];
  const model = buildReportModel(runs);
  const cells = (table: { rows: string[][] }) => table.rows.flat().join('\n');
  assert.deepEqual(rankingTable(model, english), rankingTable(model));
  assert.match(cells(rankingTable(model)), / in flight/);
  assert.match(cells(rankingTable(model, chinese)), / 在途/);
  assert.doesNotMatch(cells(rankingTable(model, chinese)), /in flight/);
  const knees = cells(kneeTable(model, chinese));
  assert.doesNotMatch(knees, /not seen|between steps| in flight|\bat\b/, knees);
  // The seconds of a mark in the knee table say their unit in Chinese too.
  assert.match(knees, /于 \d+\.\d 秒/, knees);
  assert.doesNotMatch(knees, /\d s\b/, knees);
  assert.match(knees, /在途/);
  assert.equal(rankingNoiseNote(model, english), rankingNoiseNote(model));
  assert.match(rankingNoiseNote(model), /^Runs rank by output tokens per second/);
  assert.match(rankingNoiseNote(model, chinese), /^各次运行按其在 SLO 内最重负载下的每秒输出 token 数排名/);
  assert.doesNotMatch(rankingNoiseNote(model, chinese), /[a-z]{4,} [a-z]{4,}/);
  // The marks themselves: never seen, and seen at a step.
  assert.equal(markText('never', chinese), '未见');
  assert.equal(markText({ step: 'concurrency@16', atSec: 42 }, chinese), 'concurrency@16，于 42.0 秒');
  assert.equal(markText({ step: 'concurrency@16', atSec: 42 }), 'concurrency@16 at 42.0 s');

  const view = buildResultView(forReading(concurrencySweep(20)), 'a.llmbench.json');
  const finished = (t: Translate) => summaryItems(view.summary, 0, t).find((item) => item.label === 'Finished')!.value;
  assert.equal(finished(english), summaryItems(view.summary, 0).find((item) => item.label === 'Finished')!.value);
  assert.match(finished(english), /, after 1 min/);
  assert.match(finished(chinese), /，用时 1 分$/);

  const compare = (t?: Translate) => buildCompareView(forReading(concurrencySweep(20, 1)), forReading(concurrencySweep(20, 1.5)), 'a.llmbench.json', 'b.llmbench.json', t).noiseRule;
  assert.equal(compare(english), compare());
  assert.match(compare(), /bootstrap over the requests/);
  assert.match(compare(chinese), /对请求做 bootstrap 得到的 95% 区间/);
  assert.doesNotMatch(compare(chinese), /[a-z]{4,} [a-z]{4,}/);
});

test("the report's latency charts read in Chinese for every statistic, the SVG export too; in English as before", () => {
  const runs = [{ name: 'a', doc: concurrencySweep(20) }];
  for (const stat of ['p50', 'p90', 'p99', 'mean'] as const) {
    const model = buildReportModel(runs, { stat });
    const charts = [...model.charts, model.tradeoff];
    for (const chart of charts) assert.equal(reportChartText(chart.title, chart, english), chart.title);
    const titles = charts.map((chart) => reportChartText(chart.title, chart, chinese));
    assert.deepEqual(titles.filter((title) => !HAN.test(title)), [], `${stat}: English chart titles`);
    assert.ok(titles.includes(`首 token 延迟 (TTFT, ${stat})`), titles.join(' | '));
    assert.equal(reportChartSpec(model.tradeoff, chinese).x.title, `请求延迟 ${stat} (ms)`);
    assert.equal(reportChartSpec(model.tradeoff).x.title, `Request latency ${stat} (ms)`);
    const html = renderHtmlReport(model, runs, 'r', new Date(0), { t: chinese, locale: 'zh-cn' });
    assert.ok(html.includes(`每秒输出 token 数与请求延迟 (${stat}) 的关系`), `${stat}: the SVG title`);
  }
});
