/**
 * The result editor, compare, the report and their exports in Simplified Chinese (issue 27), on
 * runs of the real simulator (and a run against a closed port): what the views word themselves
 * (the status, the workers' reason, the failures column and its unit, durations, notes, a failed
 * run's advice, compare's verdicts) reads in Chinese, with the figures and names of the files kept;
 * in English it reads exactly as before.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultDocument } from '../../src/format/result';
import { forReading } from '../../src/results/read-result';
import { english, translator } from '../../src/views/l10n';
import { buildResultView } from '../../src/views/result';
import { buildCompareView } from '../../src/views/compare';
import { buildReportModel, type ReportRun } from '../../src/views/report';
import { stackedDeltaTable, stepTable, summaryItems } from '../../src/views/result-tables';
import { formatCount, formatDuration, inDisplayLocale } from '../../src/views/number-format';
import { sayWarning } from '../../src/views/step-warnings';
import { EXECUTOR_LOST_TEXT, fillPlaceholders, SHARD_NOTE_TEXT } from '../../src/format/warning-text';
import { resolveWorkers } from '../../src/load/workers';
import { traceStepWarnings } from '../../src/load/trace-gather';
import { abortCrossCheck, tokenCrossCheck } from '../../src/observe/monitor';
import { renderHtmlReport } from '../../src/report/html';
import { importPaths } from '../../src/import';
import { escapeXml } from '../../src/report/svg';
import { formatMarkdownReport, formatMarkdownTable, formatVllmBlock } from '../../src/report/tables';
import { openPage } from '../helpers/webview-page';
import { repoRoot } from '../vscode/harness/tools';
import { runCliLimited } from '../helpers/limited-child';
import { closedPort } from '../helpers/cli-server';
import { startSimProcess } from '../helpers/sim-process';
import { startRunnerServer, vllmMetrics, type MetricsAnswer, type ServerCounts } from '../helpers/runner-server';
import { RunConfigSchema } from '../../src/format/config';
import { runBenchmark } from '../../src/load/runner';
import { planSweepRates } from '../../src/load/plan';
import { detectHardware } from '../../src/observe/hardware';

const bundle = JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const chinese = translator(bundle);
const zhCn = { type: 'language', locale: 'zh-cn', strings: bundle };
const HAN = /[\u4e00-\u9fff]/;

let dir = '';
/** A sweep whose token counts are estimated (--no-usage) and whose 64 can never fill with 40 requests; the same sweep with the server's counts; a run against a closed port. */
const runs: Record<'estimated' | 'counted' | 'failed' | 'single', { doc: ResultDocument; fileName: string }> = {} as never;

function simulate(name: keyof typeof runs, args: string[]): void {
  const file = join(dir, `${name}.llmbench.json`);
  const cli = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'run', ...args, '--out', file], { encoding: 'utf8', timeout: 120_000 });
  assert.ok(cli.status === 0 || cli.status === 1, cli.stderr);
  runs[name] = { doc: JSON.parse(readFileSync(file, 'utf8')) as ResultDocument, fileName: `${name}.llmbench.json` };
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'llmbench-view-language-'));
  const sweep = ['--sim', 'tiny', '--concurrency', '1,64', '--requests', '40', '--input-tokens', '32', '--output-tokens', '32'];
  simulate('estimated', [...sweep, '--no-usage']);
  simulate('counted', sweep);
  simulate('failed', ['--url', 'http://127.0.0.1:9/v1', '--model', 'm', '--concurrency', '1', '--requests', '2']);
  simulate('single', ['--sim', 'tiny', '--concurrency', '4', '--requests', '20', '--input-tokens', '32', '--output-tokens', '32']);
});

after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * English words left in a text once what is the files' own (names, models, URLs, the server's or
 * the engine's messages, passed as `data`) and what reads the same in every language (metric
 * abbreviations, units, flags, error kinds) is taken out.
 */
function englishLeft(text: string, data: readonly string[] = []): string[] {
  let rest = text;
  // A name of one or two letters (the model "m") would cut words apart: words are three letters or more.
  for (const d of [...data].sort((a, b) => b.length - a.length)) if (d.length >= 3) rest = rest.split(d).join(' ');
  rest = rest
    .replace(/https?:\/\/\S+|--[a-z-]+(?: \w+)?|\b[\w-]+@\d+\b|\w+\.llmbench\.json|\btok\/s|\breq\/s/g, ' ')
    .replace(/\/[\w/.-]+/g, ' ')
    .replace(/\b(?:TTFT|TTFO|TPOT|ITL|QPS|SLO|KV|LLM Bench|CPU|API|URL|JSON|OpenAI|bootstrap|Student|token|tokens?|tok\/s|req\/s|ms|s|p\d\d|n\/a|n=\d+|A|B|chat|connect|http|ulimit|usage|max_tokens|UTC|max-model-len|curl|auto)\b/g, ' ');
  return [...new Set(rest.match(/[A-Za-z]{3,}(?:[ -][A-Za-z]{2,})*/g) ?? [])];
}

const dataOf = (...docs: ResultDocument[]): string[] => docs.flatMap((doc) => [doc.endpoint.model, doc.endpoint.baseUrl, doc.tool.name, doc.tool.version, doc.statusReason ?? '', ...doc.steps.map((s) => s.name), ...Object.entries(doc.labels).flat()]);

test('the words the views add are Chinese, and the English reads as before (durations, failures, the workers\' reason)', () => {
  assert.equal(formatDuration(2, chinese), '2 秒');
  assert.equal(formatDuration(190, chinese), '3 分 10 秒');
  assert.equal(formatDuration(3900, chinese), '1 小时 5 分');
  assert.equal(formatDuration(190), '3 min 10 s');
  assert.equal(formatDuration(3600), '1 h');
  const view = buildResultView(forReading(runs.counted.doc), runs.counted.fileName, undefined, chinese);
  const table = stepTable(view.rows, undefined, chinese);
  assert.deepEqual(table.rows.map((row) => row.at(-1)), ['40 个中 0 个', '40 个中 0 个']);
  assert.deepEqual(stepTable(view.rows).rows.map((row) => row.at(-1)), ['0 of 40', '0 of 40']);
  // Every wording of the workers' reason, from resolveWorkers itself, says its figures again in Chinese.
  const plan = (names: string[], lanes = 1) => ({ steps: names.map((name) => ({ name, pacing: { kind: 'closed', lanes } })) }) as never;
  const config = (workers: number | 'auto') => ({ workers, workload: { outputTokens: 128 } }) as never;
  const reasons = [
    resolveWorkers(config(2), plan(['c@1']), 8),
    resolveWorkers(config(9), plan(['c@1']), 4),
    resolveWorkers(config('auto'), plan([]), 8),
    resolveWorkers(config('auto'), plan(['concurrency@16']), 8),
    // 1,000 and 10,000 in flight at 150 chunks/s: 2 workers, and 15 of which the machine allows 7.
    resolveWorkers(config('auto'), plan(['concurrency@1000'], 1000), 8),
    resolveWorkers(config('auto'), plan(['concurrency@10000'], 10_000), 8),
    runs.counted.doc.workers!,
  ].map((w) => w.reason);
  assert.equal(new Set(reasons.map((r) => r.replace(/[\d,]+/g, '#').replace(/\(concurrency@#\)/, ''))).size, 6, `not every wording: ${reasons.join(' | ')}`);
  for (const reason of reasons) {
    const said = sayWarning(reason, chinese);
    assert.match(said, HAN, reason);
    assert.deepEqual(englishLeft(said), [], said);
    assert.deepEqual((said.match(/\d[\d,.]*/g) ?? []).sort(), (reason.match(/\d[\d,.]*/g) ?? []).sort(), said);
    assert.equal(sayWarning(reason, english), reason);
  }
  const items = summaryItems(view.summary, 0, chinese);
  assert.equal(items.find((i) => i.label === 'Status')?.value, '已完成');
  assert.match(items.find((i) => i.label === 'Workers')?.value ?? '', /^1 \(自动：负载最重的步（concurrency@64）/);
  assert.match(items.find((i) => i.label === 'Finished')?.value ?? '', /用时 \d+ 秒$/);
});

test('the result page in Chinese: status badge and value, failures and their unit, notes and warnings, on a simulator run', () => {
  const { doc, fileName } = runs.estimated;
  const view = buildResultView(forReading(doc), fileName, undefined, chinese);
  const page = openPage('result', { language: zhCn });
  page.send({ type: 'show', view });
  const d = page.document;
  assert.equal(d.querySelector('h1 .badge')?.textContent, '已完成');
  const value = (label: string) => [...d.querySelectorAll('dl.kv dt')].find((dt) => dt.textContent === label)?.nextElementSibling?.textContent ?? '';
  assert.equal(value('状态'), '已完成');
  assert.doesNotMatch(value('工作线程'), /heaviest|worker/);
  assert.match(value('结束时间'), /用时 \d+ 秒$/);
  const heads = [...d.querySelectorAll('.step-table thead th .unit')].map((u) => u.textContent);
  assert.ok(heads.includes('请求'), `no 请求 unit: ${heads.join(' | ')}`);
  assert.deepEqual([...d.querySelectorAll('.step-table tbody tr')].map((tr) => tr.lastElementChild?.textContent), ['40 个中 0 个', '40 个中 0 个']);
  // The notes: estimated token counts, and the 64 the step never reached.
  const notes = [...d.querySelectorAll('.notes .notice')].map((p) => p.textContent ?? '');
  assert.ok(notes.some((n) => /token 数/.test(n) && n.includes('concurrency@64')), `no token-count note: ${notes.join('\n')}`);
  assert.ok(notes.some((n) => n.includes('concurrency@64') && /在途/.test(n)), `no unreached-concurrency note: ${notes.join('\n')}`);
  const data = dataOf(doc);
  for (const note of notes) assert.deepEqual(englishLeft(note, data), [], note);
  // The summary and the step table say nothing in English but the file's own names.
  const summary = d.querySelector('.run-summary dl')?.textContent ?? '';
  assert.deepEqual(englishLeft(summary, data), []);
  assert.deepEqual(englishLeft(d.querySelector('.step-table')?.textContent ?? '', data), []);
  assert.deepEqual(page.scriptErrors, []);
});

test('a run that measured nothing says what failed and what to try in Chinese', () => {
  const { doc, fileName } = runs.failed;
  assert.equal(doc.status, 'failed');
  const view = buildResultView(forReading(doc), fileName, undefined, chinese);
  assert.ok(view.failure, 'the run is not a failure');
  const page = openPage('result', { language: zhCn });
  page.send({ type: 'show', view });
  const d = page.document;
  assert.match(d.querySelector('h1 .badge')?.textContent ?? '', /失败/);
  const failure = d.querySelector('#run-failure');
  const advice = [...(failure?.querySelectorAll('li') ?? [])].map((li) => li.textContent ?? '');
  assert.ok(advice.length >= 2, advice.join('\n'));
  for (const text of [...advice, failure?.querySelector('p')?.textContent ?? '']) {
    assert.match(text, HAN);
    assert.deepEqual(englishLeft(text, dataOf(doc)), [], text);
  }
  // In English, the advice reads as it did.
  assert.match(buildResultView(forReading(doc), fileName).failure!.advice[0]!, /^Check that the server is running and listening at http:\/\/127\.0\.0\.1:9\/v1 \(open http:\/\/127\.0\.0\.1:9\/v1\/models/);
});

test('compare in Chinese: the verdicts under each figure, their hover text, the units and the badges', () => {
  const [a, b] = [runs.estimated, runs.counted];
  const view = buildCompareView(forReading(a.doc), forReading(b.doc), a.fileName, b.fileName, chinese);
  const table = stackedDeltaTable(view.deltas, chinese);
  const cells = table.rows.flatMap((row) => row.cells.flat());
  assert.ok(cells.some((c) => c.reason !== ''), 'no verdict has a reason');
  for (const cell of cells) {
    if (cell.reason) assert.deepEqual(englishLeft(cell.reason), [], cell.reason);
    assert.deepEqual(englishLeft(cell.detail), [], cell.detail);
  }
  assert.ok(table.columns.some((c) => /p50（上）\/ p99（下）/.test(c.unit)), table.columns.map((c) => c.unit).join(' | '));
  // English as before.
  const plain = stackedDeltaTable(buildCompareView(forReading(a.doc), forReading(b.doc), a.fileName, b.fileName).deltas);
  assert.ok(plain.columns.some((c) => c.unit === 'ms, p50 over p99'));
  assert.ok(plain.rows.flatMap((row) => row.cells.flat()).every((c) => c.reason === '' || /interval|no change|apart|overlap|inside|outside/.test(c.reason)));
  const page = openPage('compare', { language: zhCn });
  page.send({ type: 'show-compare', view });
  const badges = [...page.document.querySelectorAll('h2 .badge')].map((x) => x.textContent);
  assert.deepEqual(badges, ['已完成', '已完成']);
  const reasons = [...page.document.querySelectorAll('.delta-table .verdict-reason')].map((x) => x.textContent ?? '');
  assert.ok(reasons.length > 0 && reasons.every((r) => HAN.test(r) || /^[AB] /.test(r)), reasons.join(' | '));
  const notices = [...page.document.querySelectorAll('.notice')].map((x) => x.textContent ?? '');
  for (const notice of notices) assert.deepEqual(englishLeft(notice, dataOf(a.doc, b.doc)), [], notice);
  assert.deepEqual(page.scriptErrors, []);
});

test('the report and its HTML and Markdown exports in Chinese: the runs\' status, their notes and the workers\' reason', () => {
  const reportRuns: ReportRun[] = [runs.estimated, runs.counted].map(({ doc, fileName }) => ({ name: fileName, doc, source: fileName }));
  const model = buildReportModel(reportRuns, {}, chinese);
  assert.deepEqual(model.runs.map((r) => r.status), ['已完成', '已完成']);
  assert.ok(model.runs.every((r) => r.complete === true));
  assert.match(model.runs[0]!.workers ?? '', /自动/);
  for (const note of model.runs.flatMap((r) => r.definitionNotes)) assert.deepEqual(englishLeft(note, dataOf(runs.estimated.doc)), [], note);
  assert.ok(model.runs[0]!.definitionNotes.length > 0, 'the estimated run has no note on its counts');
  const page = openPage('report', { language: zhCn });
  page.send({ type: 'model', title: 'r', model, problems: ['x.json: not a result'] });
  const statuses = [...page.document.querySelectorAll('td')].filter((td) => td.textContent === '已完成');
  assert.equal(statuses.length, 2);
  assert.ok(statuses.every((td) => !td.classList.contains('tone-warning')));
  assert.match(page.document.querySelector('.notice')?.textContent ?? '', /^已跳过/);
  assert.deepEqual(page.scriptErrors, []);
  const html = renderHtmlReport(model, reportRuns, 'r', new Date(0), { t: chinese, locale: 'zh-cn' });
  assert.match(html, /<td>已完成<\/td>/);
  assert.match(html, /<td class="num">40 个中 0 个<\/td>/);
  assert.doesNotMatch(html, /\b\d+ of \d+\b|Token counts not reported/);
  const md = formatMarkdownReport(model, reportRuns, 'r', { t: chinese });
  assert.doesNotMatch(md, /Token counts not reported|ITL = time per output token/);
  // English as before.
  const englishModel = buildReportModel(reportRuns);
  assert.deepEqual(englishModel.runs.map((r) => r.status), ['complete', 'complete']);
  assert.match(englishModel.runs[0]!.definitionNotes[0]!, /^Token counts not reported by the server: /);
});

test('a trace replay\'s run warnings are said again in Chinese with their figures', () => {
  const summary = { requests: { total: 50 }, queueMs: { p99: 812.5, max: 1200 } } as never;
  const warnings = traceStepWarnings('trace', summary, 7);
  assert.equal(warnings.length, 2);
  for (const warning of warnings) {
    const said = sayWarning(warning, chinese);
    assert.match(said, /^trace: /);
    assert.match(said, HAN);
    assert.deepEqual(englishLeft(said, ['trace']), [], said);
    assert.equal(sayWarning(warning, english), warning);
  }
});

test("the server section's source and notes, a failed run's status reason and its warning that /metrics could not be read, in Chinese", () => {
  const counted = buildResultView(forReading(runs.counted.doc), runs.counted.fileName, undefined, chinese);
  assert.ok(counted.server, 'the simulator run has no server section');
  assert.match(counted.server.source, /^vLLM 指标来自 http:\/\/127\.0\.0\.1:\d+\/metrics，每 1 s 抓取一次$/);
  assert.ok(counted.server.notes.some((n) => n.startsWith('整个运行的 token 交叉核对')), counted.server.notes.join('\n'));
  for (const note of counted.server.notes) assert.deepEqual(englishLeft(note, dataOf(runs.counted.doc)), [], note);
  assert.match(buildResultView(forReading(runs.counted.doc), runs.counted.fileName).server!.notes.join('\n'), /^Token cross-check over the whole run: /m);

  const { doc, fileName } = runs.failed;
  const page = openPage('result', { language: zhCn });
  page.send({ type: 'show', view: buildResultView(forReading(doc), fileName, undefined, chinese) });
  const d = page.document;
  const status = [...d.querySelectorAll('dl.kv dt')].find((dt) => dt.textContent === '状态')?.nextElementSibling?.textContent ?? '';
  assert.match(status, /^失败: 所有测量的请求都失败了（2 connect）；第一个：connection refused at /);
  const warnings = [...d.querySelectorAll('.run-warnings .notice')].map((p) => p.textContent ?? '');
  assert.ok(warnings.some((w) => w.startsWith('服务端指标：无法读取 http://127.0.0.1:9/metrics')), warnings.join('\n'));
  const serverNotes = [...d.querySelectorAll('.notice')].map((p) => p.textContent ?? '').filter((n) => n.startsWith('没有服务端数值'));
  assert.equal(serverNotes.length, 1);
  assert.equal(d.querySelector('.scroll-hint')?.textContent, '右侧还有更多列：请横向滚动表格。');
  assert.deepEqual(page.scriptErrors, []);
});

test("a view model the host builds takes the display locale's figures through inDisplayLocale, and the host's own figures stay en-US after", () => {
  // zh-CN groups digits as en-US does: German, which does not, shows which path a figure took.
  const { doc, fileName } = runs.estimated;
  const note = (view: ReturnType<typeof buildResultView>) => view.notes.find((n) => n.includes('concurrency@64') && /\d[.,]\d/.test(n)) ?? '';
  const english = note(buildResultView(forReading(doc), fileName));
  const mean = /averaged (\d+\.\d) requests/.exec(english)?.[1];
  assert.ok(mean, english);
  const german = note(inDisplayLocale('de', () => buildResultView(forReading(doc), fileName)));
  assert.ok(german.includes(`averaged ${mean.replace('.', ',')} requests`), german);
  assert.equal(formatCount(12345), '12,345');
  assert.equal(inDisplayLocale('zh-cn', () => formatCount(12345)), '12,345');
  assert.throws(() => inDisplayLocale('de', () => { throw new Error('build failed'); }));
  assert.equal(formatCount(12345), '12,345');
});

test('a run of one load: its figures card says its load and labels in Chinese', () => {
  const { doc, fileName } = runs.single;
  const figures = buildResultView(forReading(doc), fileName, undefined, chinese).figures;
  assert.ok(figures, 'a run of one load has no figures card');
  assert.match(figures.load, /^concurrency@4，[\d.]+ 个在途（测得的均值）$/);
  assert.deepEqual(figures.items.slice(0, 3).map((item) => item.label), ['每秒输出 token 数', '每秒请求数 (QPS)', '首 token 延迟 (TTFT) p50']);
  assert.match(buildResultView(forReading(doc), fileName).figures!.load, /^concurrency@4, at [\d.]+ in flight \(measured mean\)$/);
});

test("the run's token cross-check warnings, every wording from tokenCrossCheck itself, are said again in Chinese with their figures", () => {
  const client = (counted: number, estimated: { requests: number; atLeast: number; atMost: number }, failed = 0) => ({ counted, estimated, failed });
  const none = { requests: 0, atLeast: 0, atMost: 0 };
  const warnings = [
    tokenCrossCheck(5000, client(1000, none, 3)),
    tokenCrossCheck(5000, client(1000, none)),
    tokenCrossCheck(100, client(1000, none)),
    tokenCrossCheck(1000, client(900, { requests: 4, atLeast: 40, atMost: Infinity })),
    tokenCrossCheck(9000, client(900, { requests: 4, atLeast: 40, atMost: 512 })),
  ].map((check) => check.warning);
  assert.equal(new Set(warnings).size, 5, warnings.join('\n'));
  for (const warning of warnings) {
    assert.ok(warning);
    const said = sayWarning(warning, chinese);
    assert.match(said, /^服务端\/客户端 token 交叉核对：/, said);
    assert.deepEqual(englishLeft(said), [], said);
    assert.deepEqual((said.match(/\d+/g) ?? []).sort(), (warning.match(/\d+/g) ?? []).sort(), said);
    assert.equal(sayWarning(warning, english), warning);
  }
  assert.equal(tokenCrossCheck(1000, client(1000, none)).warning, null);
});

/** A warning said again in Chinese: Chinese, nothing English left but `data`, its figures kept; in English as stored. */
function saidInChinese(warning: string, data: readonly string[] = []): string {
  const said = sayWarning(warning, chinese);
  assert.match(said, HAN, warning);
  assert.deepEqual(englishLeft(said, data), [], said);
  assert.deepEqual((said.match(/\d+/g) ?? []).sort(), (warning.match(/\d+/g) ?? []).sort(), said);
  assert.equal(sayWarning(warning, english), warning);
  return said;
}

test("the scraper's warnings, from real runs against a /metrics that fails each way, are said again in Chinese", async () => {
  const answers: { name: string; answer: MetricsAnswer; serverMetrics?: Record<string, number> }[] = [
    { name: '404', answer: { status: 404, body: 'not found' } },
    { name: '500', answer: { status: 500, body: 'boom' } },
    { name: 'empty', answer: { body: '' } },
    { name: 'malformed', answer: { body: 'vllm:num_requests_running{model_name="m"} 1\nthis is not a sample\n' } },
    { name: 'series', answer: vllmMetrics({ inFlight: 0, generatedTokens: 0 } as ServerCounts), serverMetrics: { maxSeries: 2 } },
    { name: 'timeout', answer: { delayMs: 600, body: 'a_total 1' } },
  ];
  const warnings: string[] = [];
  for (const { name, answer, serverMetrics } of answers) {
    const server = await startRunnerServer(() => ({ tokens: 4, firstTokenMs: 5, gapMs: 2 }), () => answer);
    const file = join(dir, `scrape-${name}.llmbench.json`);
    try {
      const config = RunConfigSchema.parse({
        endpoint: { baseUrl: server.baseUrl, model: 'm' },
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
        profile: { kind: 'concurrency', levels: [2] },
        limits: { requests: 8 },
        labels: { engine: 'loopback' },
        serverMetrics: { intervalMs: 200, ...serverMetrics },
      });
      await runBenchmark(config, { resultPath: file, keepRecords: false });
    } finally {
      await server.close();
    }
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ResultDocument;
    const found = (doc.warnings ?? []).filter((w) => w.startsWith('Server metrics: '));
    assert.ok(found.length > 0, `${name}: no scraper warning in ${JSON.stringify(doc.warnings)}`);
    warnings.push(...found);
    if (name === 'series') {
      // Two series kept of vLLM's: the server section names the metrics it lacks, in Chinese.
      const notes = buildResultView(forReading(doc), `scrape-${name}.llmbench.json`, undefined, chinese).server?.notes ?? [];
      const lacks = notes.find((n) => n.startsWith('vLLM '));
      assert.ok(lacks, notes.join('\n'));
      assert.deepEqual(englishLeft(lacks, ['vLLM']), [], lacks);
    }
    if (name === '404') {
      const page = openPage('result', { language: zhCn });
      page.send({ type: 'show', view: buildResultView(forReading(doc), `scrape-${name}.llmbench.json`, undefined, chinese) });
      const shown = [...page.document.querySelectorAll('.run-warnings .notice')].map((p) => p.textContent ?? '');
      assert.ok(shown.some((w) => w.startsWith(`服务端指标：${server.baseUrl.replace(/\/v1$/, '')}/metrics 返回 HTTP 404`)), shown.join('\n'));
    }
  }
  const kinds = ['HTTP 404', 'HTTP 500', 'no metric at all', 'not Prometheus text', 'series (maxSeries)', 'did not answer within'];
  for (const kind of kinds) assert.ok(warnings.some((w) => w.includes(kind)), `no warning with "${kind}": ${warnings.join('\n')}`);
  for (const warning of warnings) saidInChinese(warning, ['HTTP', 'Prometheus', 'vLLM', 'SGLang', 'llama.cpp', 'URL|off', 'maxSeries', 'a_total', ...(/ kept, (\S+) and later/.exec(warning)?.slice(1) ?? []), 'this is not a sample', 'unknown metric', ...(/\(first, line \d+: (.*)\); the lines/.exec(warning)?.slice(1) ?? [])]);
});

test('the GPU readers\' warnings, from real tools on the PATH that fail or list nothing, are said again in Chinese', async () => {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'nvidia-smi'), '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver" >&2\nexit 9\n', { mode: 0o755 });
  writeFileSync(join(bin, 'npu-smi'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  const warnings: string[] = [];
  try {
    assert.equal(await detectHardware((message) => warnings.push(message)), null);
  } finally {
    process.env.PATH = path;
  }
  assert.equal(warnings.length, 2, warnings.join('\n'));
  for (const warning of warnings) saidInChinese(warning, ['GPU', 'nvidia-smi', 'npu-smi', 'PATH', 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver']);
});

test("a sweep's warnings when it places its rates, from planSweepRates itself, are said again in Chinese", () => {
  const config = RunConfigSchema.parse({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, profile: { kind: 'sweep', rateCount: 3 }, limits: { requests: 10 } });
  const summary = (requestsPerSecond: number | null) => ({ requestsPerSecond }) as never;
  const notes = [planSweepRates(config, [summary(5), summary(null)]), planSweepRates(config, [summary(5), summary(4)])].flatMap((plan) => plan.notes.filter((n) => n.level === 'warn'));
  assert.equal(notes.length, 2, JSON.stringify(notes));
  for (const note of notes) saidInChinese(note.message, ['synchronous', 'throughput', 'Throughput']);
});

test("the run's abort cross-check warnings, every wording from abortCrossCheck itself, are said again in Chinese", () => {
  const checks = [abortCrossCheck(0, 12, 'vllm'), abortCrossCheck(30, 12, 'vllm'), abortCrossCheck(3, 12, 'vllm'), abortCrossCheck(30, 12, 'sglang')];
  assert.ok(checks.every((c) => c.level === 'warn'));
  assert.equal(new Set(checks.map((c) => c.message)).size, 4);
  for (const { message } of checks) {
    const said = saidInChinese(message, ['vllm:request_success_total{finished_reason="abort"}', 'vLLM', 'vllm#31503']);
    assert.match(said, /^服务端\/客户端中止交叉核对：/, said);
  }
  assert.equal(abortCrossCheck(12, 12, 'vllm').level, 'info');
});

/** A CLI run (not blocking this process, so that servers in it answer), its result file read back. */
async function runCli(name: string, args: string[]): Promise<{ doc: ResultDocument; fileName: string }> {
  const fileName = `${name}.llmbench.json`;
  const cli = await runCliLimited(['run', ...args, '--out', join(dir, fileName)], { timeoutMs: 90_000 });
  assert.ok(cli.code === 0 || cli.code === 1, cli.stderr);
  return { doc: JSON.parse(readFileSync(join(dir, fileName), 'utf8')) as ResultDocument, fileName };
}

// The request's error (`connection refused at ...: is the server running?`) is the client's own message, kept as recorded like an engine's.
test('endpoints that fail from the start: the run\'s status reason and the warning of the one that failed while another served, in Chinese', async (t) => {
  const sim = await startSimProcess('tiny');
  t.after(() => sim.close());
  const load = ['--model', 'm', '--concurrency', '2', '--requests', '20', '--input-tokens', '16', '--output-tokens', '8', '--server-metrics', 'off'];
  const down = ['http://127.0.0.1:9/v1', 'http://127.0.0.1:10/v1'];
  const both = await runCli('both-down', ['--url', down[0]!, '--url', down[1]!, ...load]);
  const one = await runCli('one-down', ['--url', sim.baseUrl, '--url', down[0]!, ...load]);
  assert.equal(both.doc.status, 'failed');
  assert.match(both.doc.statusReason ?? '', /^\d+ measured requests? failed .*at http:\S+: could not connect .*; at http:\S+: could not connect .* The run was stopped rather than send more\.$/s);
  const reason = saidInChinese(both.doc.statusReason!, [...down, 'connect ECONNREFUSED 127.0.0.1:9', 'connect ECONNREFUSED 127.0.0.1:10', 'connection refused', 'is the server running?']);
  assert.match(reason, /^\d+ 个计量请求失败.*在 http:\/\/127\.0\.0\.1:9\/v1 上无法连接/s);
  const page = openPage('result', { language: zhCn });
  page.send({ type: 'show', view: buildResultView(forReading(both.doc), both.fileName, undefined, chinese) });
  const status = [...page.document.querySelectorAll('dl.kv dt')].find((dt) => dt.textContent === '状态')?.nextElementSibling?.textContent ?? '';
  assert.equal(status, `失败: ${reason}`);
  const warning = (one.doc.warnings ?? []).find((w) => w.startsWith(`Requests to ${down[0]} fail from the start`));
  assert.ok(warning, JSON.stringify(one.doc.warnings));
  assert.match(saidInChinese(warning, [down[0]!, 'connection refused', 'is the server running?']), /^发往 http:\/\/127\.0\.0\.1:9\/v1 的请求从一开始就失败：无法连接/);
});

test('a run over two simulators: the endpoint section, its notes, the summary\'s endpoints and the replicas\' labels in Chinese, on the page and in the report\'s exports', async (t) => {
  // A small fast engine and a 70B model on two H100s: the second is slower, so a note names it.
  const [fast, slow] = await Promise.all([startSimProcess('tiny'), startSimProcess('llama3.3-70b-fp8-2xh100-nim')]);
  t.after(() => Promise.all([fast.close(), slow.close()]));
  const { doc, fileName } = await runCli('two-endpoints', ['--url', fast.baseUrl, '--url', slow.baseUrl, '--model', 'm', '--concurrency', '4', '--requests', '24', '--input-tokens', '32', '--output-tokens', '8', '--server-metrics-interval', '200']);
  const data = [...dataOf(doc), fast.baseUrl, slow.baseUrl, 'round-robin'];
  const view = buildResultView(forReading(doc), fileName, undefined, chinese);
  assert.ok(view.endpoints && view.server?.replicas, 'no endpoint section or replicas');
  assert.match(view.summary.baseUrl, /^2 个服务，round-robin：#0 http/);
  assert.ok(view.endpoints.notes.some((n) => /服务 #1 \S+ 较慢/.test(n)), view.endpoints.notes.join('\n'));
  for (const note of view.endpoints.notes) assert.deepEqual(englishLeft(note, data), [], note);
  assert.ok(view.endpoints.table.rows.some((row) => row[1] === '全部'));
  assert.deepEqual(view.server.replicas.map((r) => r.label), [`服务 0 ${fast.baseUrl}`, `服务 1 ${slow.baseUrl}`]);
  for (const chart of view.server.replicas.flatMap((r) => r.charts)) assert.match(chart.title, /^服务 \d：.*[\u4e00-\u9fff]/, chart.title);
  const page = openPage('result', { language: zhCn });
  page.send({ type: 'show', view });
  const section = [...page.document.querySelectorAll('#endpoint-section h2, #endpoint-section p, #endpoint-section th, #endpoint-section td')].map((e) => e.textContent).join(' | ');
  assert.deepEqual(englishLeft(section, data), [], section);
  assert.deepEqual(page.scriptErrors, []);
  // In English, as before.
  const plain = buildResultView(forReading(doc), fileName);
  assert.match(plain.summary.baseUrl, /^2 endpoints, round-robin: #0 http/);
  assert.ok(plain.endpoints!.notes.some((n) => / is slower: TTFT p50 /.test(n)), plain.endpoints!.notes.join('\n'));
  assert.deepEqual(plain.server!.replicas!.map((r) => r.label), [`Endpoint 0 ${fast.baseUrl}`, `Endpoint 1 ${slow.baseUrl}`]);
  assert.ok(plain.server!.replicas![0]!.charts.some((c) => c.title === 'Endpoint 0: KV-cache usage'));
  const reportRuns: ReportRun[] = [{ name: fileName, doc, source: fileName }];
  const model = buildReportModel(reportRuns, {}, chinese);
  const html = renderHtmlReport(model, reportRuns, 'r', new Date(0), { t: chinese, locale: 'zh-cn' });
  const md = formatMarkdownReport(model, reportRuns, 'r', { t: chinese });
  for (const text of [html, md]) assert.doesNotMatch(text, /is slower: |endpoint #\d|requests to endpoint/);
});

test('a real 2-shard run: the shards section\'s states, coordinator and notes in Chinese, on the page and in the report', async (t) => {
  const sim = await startSimProcess('tiny');
  t.after(() => sim.close());
  const port = await closedPort();
  const flags = ['--url', sim.baseUrl, '--model', 'm', '--input-tokens', '32', '--output-tokens', '8', '--server-metrics', 'off', '--concurrency', '2', '--requests', '8', '--warmup', '0', '--shards', '2', '--coordinator', `127.0.0.1:${port}`];
  const fileName = 'sharded.llmbench.json';
  const outcomes = await Promise.all([0, 1].map((i) => runCliLimited(['run', ...flags, '--shard', String(i), '--out', join(dir, i === 0 ? fileName : `shard-${i}.llmbench.json`)], { timeoutMs: 60_000, env: { LLMBENCH_RUN_TOKEN: 'view-language-test-token-0123' } })));
  assert.deepEqual(outcomes.map((o) => o.code), [0, 0], outcomes.map((o) => o.stderr).join('\n----\n'));
  const doc = JSON.parse(readFileSync(join(dir, fileName), 'utf8')) as ResultDocument;
  const view = buildResultView(forReading(doc), fileName, undefined, chinese);
  assert.ok(view.shards, 'no shards section');
  assert.deepEqual(view.shards.table.rows.map((row) => [row[0], row[3]]), [['0（协调者）', '已完成'], ['1', '已完成']]);
  const data = [...dataOf(doc), doc.shards!.coordinator, doc.shards!.runId, ...doc.shards!.members.flatMap((m) => (m.host ? [m.host] : []))];
  for (const note of view.shards.notes) assert.deepEqual(englishLeft(note, data), [], note);
  const page = openPage('result', { language: zhCn });
  page.send({ type: 'show', view });
  assert.equal(page.document.querySelector('#shards-section h2')?.textContent, '分片');
  const section = [...page.document.querySelectorAll('#shards-section p, #shards-section th, #shards-section td')].map((e) => e.textContent).join(' | ');
  assert.deepEqual(englishLeft(section, data), [], section);
  const model = buildReportModel([{ name: fileName, doc, source: fileName }], {}, chinese);
  assert.ok(model.shards[0]!.notes.includes('发送延后：整个运行。'), model.shards[0]!.notes.join('\n'));
  // In English, as before.
  const plain = buildResultView(forReading(doc), fileName).shards!;
  assert.ok(plain.notes.includes('Send lateness: over the whole run.'));
  assert.deepEqual(plain.table.rows.map((row) => [row[0], row[3]]), [['0 (coordinator)', 'done'], ['1', 'done']]);
});

test('charts built at run time: a repeated run\'s legends, a trace replay\'s load chart and compare\'s own charts of A and B, in Chinese', async () => {
  const repeated = await runCli('repeated', ['--sim', 'tiny', '--concurrency', '1,2', '--requests', '8', '--input-tokens', '16', '--output-tokens', '8', '--repeat', '3', '--repeat-pause-sec', '0', '--server-metrics', 'off']);
  const view = buildResultView(forReading(repeated.doc), repeated.fileName, undefined, chinese);
  const series = view.charts.flatMap((c) => c.series);
  assert.ok(series.some((s) => s.label === '输出 token 吞吐量 (tok/s)（各次重复的均值）'), series.map((s) => s.label).join(' | '));
  assert.ok(series.some((s) => /95% 区间（下限）$/.test(s.label)), series.map((s) => s.label).join(' | '));
  for (const s of series) {
    assert.doesNotMatch(s.label, /mean of repeats|95% interval|each repeat/, s.label);
    for (const text of [...(s.pointLabels ?? []), ...(s.pointNotes ?? [])]) assert.deepEqual(englishLeft(text, dataOf(repeated.doc)), [], text);
  }
  const plainSeries = buildResultView(forReading(repeated.doc), repeated.fileName).charts.flatMap((c) => c.series);
  assert.ok(plainSeries.some((s) => s.label === 'output tok/s (mean of repeats)' && s.pointLabels?.[0] === 'concurrency@1: mean of 3 repeats'), plainSeries.map((s) => s.label).join(' | '));
  assert.ok(plainSeries.some((s) => s.label === 'p50 95% interval (low)'));

  writeFileSync(join(dir, 'trace.jsonl'), [0, 100, 300, 1500, 2600].map((ms) => JSON.stringify({ timestamp: ms, input_length: 40, output_length: 4 })).join('\n') + '\n');
  const trace = await runCli('trace', ['--sim', 'tiny', '--trace', join(dir, 'trace.jsonl'), '--server-metrics', 'off']);
  const chart = buildResultView(forReading(trace.doc), trace.fileName, undefined, chinese).trace?.charts[0];
  assert.ok(chart, 'no trace load chart');
  assert.equal(chart.title, 'trace：记录负载与实际发送负载对比（每秒的 requests/s）');
  assert.deepEqual(chart.series.map((x) => chinese(x.label)), ['记录的（经缩放）', '实际发送']);
  assert.equal(buildResultView(forReading(trace.doc), trace.fileName).trace?.charts[0]?.title, 'trace: recorded against sent load (requests/s per second)');

  const [a, b] = [runs.estimated, runs.counted];
  const compare = buildCompareView(forReading(a.doc), forReading(b.doc), a.fileName, b.fileName, chinese);
  assert.ok(compare.ownCharts.length > 0, 'compare has no charts of A and B');
  for (const own of compare.ownCharts) assert.match(own.title, /^运行 [AB]：.*[\u4e00-\u9fff]/, own.title);
  assert.ok(buildCompareView(forReading(a.doc), forReading(b.doc), a.fileName, b.fileName).ownCharts.some((c) => c.title === 'A: Output tokens per second'), 'no A: Output tokens per second');
});

test("a trace replay's warning on the rows it left out, from a real run with --skip-bad-rows, is said again in Chinese", async () => {
  const path = join(dir, 'bad.jsonl');
  const rows = ['{"timestamp": 0, "input_length": 40, "output_length": 4}', '{"timestamp": 10, "input_length": -5, "output_length": 4}', '{"timestamp": 5, "input_length": 40, "output_length": 4}', '{"timestamp": 30, "output_length": 4}', '{"timestamp": 40, "input_length": 0, "output_length": 4}', '{"timestamp": 50, "input_length": 40, "output_length": 4}'];
  writeFileSync(path, rows.join('\n') + '\n');
  const { doc } = await runCli('trace-bad-rows', ['--sim', 'tiny', '--trace', path, '--skip-bad-rows', '--server-metrics', 'off']);
  const warning = (doc.warnings ?? []).find((w) => w.startsWith(`Trace file ${path}: `));
  assert.ok(warning, JSON.stringify(doc.warnings));
  assert.match(warning, /^Trace file \S+: 3 bad rows were skipped: .*\(first at line \d\); .*\(line \d\)\.$/);
  // 'trace' stays a word of its own in Chinese, as the trace section says it.
  const said = saidInChinese(warning, [path, 'trace']);
  assert.match(said, /^trace 文件 \S+：跳过了 3 个坏行：.*（首个在第 \d 行）；.*（第 \d 行）。$/, said);
});

/** A CLI run of the simulator into `name`, with `env` added (a test fault), read back. */
function cliRun(name: string, args: string[], env: Record<string, string> = {}): { doc: ResultDocument; fileName: string } {
  const file = join(dir, `${name}.llmbench.json`);
  const cli = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'run', '--sim', 'tiny', '--input-tokens', '8', '--output-tokens', '8', ...args, '--out', file], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
  assert.ok(cli.status === 0 || cli.status === 1, cli.stderr);
  return { doc: JSON.parse(readFileSync(file, 'utf8')) as ResultDocument, fileName: `${name}.llmbench.json` };
}

test('a worker lost mid-run and a run that measured nothing: their status reasons and warnings in Chinese on the result page; English as stored', () => {
  const lost = cliRun('lost', ['--workers', '4', '--concurrency', '8', '--requests', '400'], { LLMBENCH_TEST_WORKER_FAULT: '2:3:crash' });
  assert.equal(lost.doc.status, 'partial');
  const reason = lost.doc.statusReason ?? '';
  assert.match(reason, /^Worker 2 of 4 stopped during step concurrency@8 \(lost on purpose \(LLMBENCH_TEST_WORKER_FAULT\)\): its last report, \d+ ms before, had \d+ requests? in flight, lost with any that ended after that report\. The run was stopped; every request recorded before is kept\.$/);
  assert.match(sayWarning(reason, chinese), /^工作线程 2（共 4 个）在步 concurrency@8 中停止（lost on purpose \(LLMBENCH_TEST_WORKER_FAULT\)）：它 \d+ ms 前的最后一次报告中有 \d+ 个请求在途，这些请求连同此后结束的请求都已丢失。运行已停止；之前记录的每个请求都已保留。$/);
  assert.equal(sayWarning(reason, english), reason);
  const page = openPage('result', { language: zhCn });
  page.send({ type: 'show', view: buildResultView(forReading(lost.doc), lost.fileName, undefined, chinese) });
  const status = [...page.document.querySelectorAll('dl.kv dt')].find((dt) => dt.textContent === '状态')?.nextElementSibling?.textContent ?? '';
  assert.match(status, /工作线程 2（共 4 个）在步 concurrency@8 中停止/);
  const warnings = [...page.document.querySelectorAll('.run-warnings .notice')].map((p) => p.textContent ?? '');
  assert.ok(warnings.some((w) => w.startsWith('工作线程 2（共 4 个）在步 concurrency@8 中停止')), warnings.join('\n'));
  assert.deepEqual(page.scriptErrors, []);

  const nothing = cliRun('nothing-measured', ['--concurrency', '1', '--requests', '2', '--duration', '0.5', '--warmup-sec', '5']);
  assert.equal(nothing.doc.statusReason, 'No measured request finished within the step limits (all were warm-up or cut off).');
  assert.equal(sayWarning(nothing.doc.statusReason!, chinese), '在步的限制内没有计量请求完成（全部是预热请求或被截断）。');
});

test("the coordinator's notes on shards that did not join, and a lost shard's reason, in Chinese; English as written", () => {
  const who = fillPlaceholders(SHARD_NOTE_TEXT.who, [2, 'gpu-7', 4242]);
  const said: [string, string][] = [
    [fillPlaceholders(SHARD_NOTE_TEXT.couldNotRegister, [who, 'no answer to a clock round trip within 5 s']), '分片 2（主机 gpu-7，pid 4242）无法注册：no answer to a clock round trip within 5 s'],
    [fillPlaceholders(SHARD_NOTE_TEXT.closedBefore, [who, 'its connection was reset']), '分片 2（主机 gpu-7，pid 4242）：its connection was reset（在运行开始前）。'],
    [fillPlaceholders(SHARD_NOTE_TEXT.otherCount, [who, 3, 4]), '分片 2（主机 gpu-7，pid 4242）被拒绝：它以 3 个分片启动，本次运行有 4 个。'],
    [fillPlaceholders(SHARD_NOTE_TEXT.wrongToken, ['10.0.0.5:41234']), '来自 10.0.0.5:41234 的连接给出了错误的运行令牌，已关闭。'],
    [
      fillPlaceholders(EXECUTOR_LOST_TEXT.during, [fillPlaceholders(EXECUTOR_LOST_TEXT.shardAt, ['Shard 2 of 4', 'gpu-7', 4242]), 'rate@5', EXECUTOR_LOST_TEXT.why.closed]),
      '分片 2（共 4 个）（主机 gpu-7，pid 4242）在步 rate@5 中停止（它的连接已关闭）。运行已停止；之前记录的每个请求都已保留。',
    ],
    [fillPlaceholders(SHARD_NOTE_TEXT.closedBefore, [who, EXECUTOR_LOST_TEXT.why.closed]), '分片 2（主机 gpu-7，pid 4242）：它的连接已关闭（在运行开始前）。'],
    [
      fillPlaceholders(EXECUTOR_LOST_TEXT.during, ['Worker 1 of 4', 'concurrency@4', fillPlaceholders(EXECUTOR_LOST_TEXT.why.silent, [10])]),
      '工作线程 1（共 4 个）在步 concurrency@4 中停止（它 10 秒没有任何消息：其事件循环被阻塞）。运行已停止；之前记录的每个请求都已保留。',
    ],
    [
      fillPlaceholders(EXECUTOR_LOST_TEXT.stopped, ['Worker 3 of 4', fillPlaceholders(EXECUTOR_LOST_TEXT.why.offProtocolWhy, ['type: Invalid literal value'])]),
      '工作线程 3（共 4 个）已停止（它发送的消息不符合协议（type: Invalid literal value））。运行已停止；之前记录的每个请求都已保留。',
    ],
  ];
  assert.equal(said[0]![0], 'Shard 2 (host gpu-7, pid 4242) could not register: no answer to a clock round trip within 5 s', 'English as before');
  assert.equal(said[4]![0], 'Shard 2 of 4 (host gpu-7, pid 4242) stopped during step rate@5 (its connection closed). The run was stopped; every request recorded before is kept.');
  for (const [english_, zh] of said) {
    assert.equal(sayWarning(english_, chinese), zh);
    assert.equal(sayWarning(english_, english), english_);
  }
});

test("a run over two endpoints whose /metrics answer 404: each scraper's warning, its endpoint named, said again in Chinese; English as stored", async () => {
  const servers = [
    await startRunnerServer(() => ({ tokens: 4, firstTokenMs: 5, gapMs: 2 }), () => ({ status: 404, body: 'not found' })),
    await startRunnerServer(() => ({ tokens: 4, firstTokenMs: 5, gapMs: 2 }), () => ({ status: 404, body: 'not found' })),
  ];
  const file = join(dir, 'replicas-404.llmbench.json');
  try {
    const endpoints = servers.map((s) => ({ baseUrl: s.baseUrl, model: 'm' }));
    const config = RunConfigSchema.parse({
      endpoint: endpoints[0],
      endpoints,
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
      profile: { kind: 'concurrency', levels: [2] },
      limits: { requests: 8 },
      serverMetrics: { intervalMs: 200 },
    });
    await runBenchmark(config, { resultPath: file, keepRecords: false });
  } finally {
    for (const s of servers) await s.close();
  }
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ResultDocument;
  const found = (doc.warnings ?? []).filter((w) => /^Endpoint \d: Server metrics: /.test(w));
  assert.equal(found.length, 2, (doc.warnings ?? []).join('\n'));
  for (const warning of found) {
    assert.match(sayWarning(warning, chinese), /^服务 \d：服务端指标：http:\/\/127\.0\.0\.1:\d+\/metrics 返回 HTTP 404/);
    assert.equal(sayWarning(warning, english), warning);
  }
});

test("compare's step warnings and notes of run A and run B: their A/B prefixes in Chinese, English as before", () => {
  const { estimated, counted } = runs;
  const said = buildCompareView(forReading(estimated.doc), forReading(counted.doc), estimated.fileName, counted.fileName, chinese);
  const plain = buildCompareView(forReading(estimated.doc), forReading(counted.doc), estimated.fileName, counted.fileName);
  const ofRuns = (lines: string[]) => lines.filter((line) => /^(A|B): /.test(line));
  assert.ok(ofRuns(plain.warnings).length > 0, plain.warnings.join('\n'));
  assert.ok(ofRuns(plain.warnings).every((line) => /^(A|B): [^:]+: /.test(line)), 'English as before: `A: step: warning`');
  assert.deepEqual(said.warnings.filter((line) => /^(A|B): /.test(line)), []);
  assert.ok(said.warnings.some((line) => /^运行 [AB]：[^：]+：/.test(line)), said.warnings.join('\n'));
  assert.deepEqual(said.notes.filter((line) => /^(A|B): /.test(line)), []);
});

/** Words of an import note that are the tool's own (its keys, its quoted headings, names), kept as written in every language. */
function toolWords(note: string): string[] {
  return [
    ...(note.match(/"[^"]+"/g) ?? []),
    ...(note.match(/[\w.-]*[_.][\w.-]+/g) ?? []),
    // The file's keys and metrics a vLLM note lists.
    ...(/^(?:The file has no|No) (.+?)(?: statistics)? in the file|^The file has no (.+?):/.exec(note)?.slice(1).flatMap((keys) => keys?.split(', ') ?? []) ?? []),
    ...['AIPerf', 'GuideLLM', 'LLMPerf', 'EvalScope', 'vLLM', 'pandas', 'Llama', 'stddev', 'std', 'sqrt', 'ICL', 'metadata', 'e2el', 'save-detailed', 'metric-percentiles', 'percentile-metrics'],
  ];
}

test("an imported run's notes, from real files of vLLM, GuideLLM, LLMPerf and AIPerf, in Chinese on the result page and in the HTML report; in English as stored", async () => {
  const fixtures = join(repoRoot, '../shared/fixtures');
  const sets = [
    ['vllm/ascend-fork_serving_llama8B_tp1_qps_inf.json'],
    ['vllm/llmd_exp7_h100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json'],
    ['guidellm/guidellm_repo_benchmarks_stripped_pre0.3.json'],
    ['llmperf/leaderboard_summary_together_7b.json', 'llmperf/leaderboard_individual_together_7b.json'],
    ['aiperf/aiperf-0.1.1_run1_profile_export_aiperf.json', 'aiperf/aiperf-0.1.1_run1_profile_export.jsonl'],
  ];
  for (const set of sets) {
    const outcome = await importPaths(set.map((path) => join(fixtures, path)));
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
    const doc = outcome.value;
    const stored = doc.importedFrom?.notes ?? [];
    assert.ok(stored.length > 0, `${set[0]}: no notes`);
    const view = buildResultView(forReading(doc), 'imported.llmbench.json', undefined, chinese);
    for (const note of stored) {
      const said = sayWarning(note, chinese);
      assert.match(said, HAN, `${set[0]}: not said in Chinese: ${note}`);
      assert.deepEqual(englishLeft(said, toolWords(note)), [], said);
      assert.ok(view.notes.includes(said), `${set[0]}: the view lacks ${said}`);
    }
    const page = openPage('result', { language: zhCn });
    page.send({ type: 'show', view });
    const shown = [...page.document.querySelectorAll('section.notes p')].map((p) => p.textContent ?? '');
    for (const note of stored) assert.ok(shown.includes(sayWarning(note, chinese)), `${set[0]}: the page lacks ${note}`);
    assert.deepEqual(page.scriptErrors, []);
    const reportRuns: ReportRun[] = [{ name: set[0]!, doc, source: set[0]! }];
    const html = renderHtmlReport(buildReportModel(reportRuns, {}, chinese), reportRuns, 'r', new Date(0), { t: chinese, locale: 'zh-cn' });
    for (const note of stored) assert.ok(!html.includes(escapeXml(note)), `${set[0]}: the Chinese report keeps ${note}`);
    // In English, exactly as stored.
    const plain = buildResultView(forReading(doc), 'imported.llmbench.json');
    for (const note of stored) assert.ok(plain.notes.includes(note), `${set[0]}: the English view lacks ${note}`);
  }
});

test("failover's reason for taking an endpoint out, from a real run over a simulator and a closed port, in Chinese in the endpoint notes", async (t) => {
  const sim = await startSimProcess('tiny');
  t.after(() => sim.close());
  const down = `http://127.0.0.1:${await closedPort()}/v1`;
  const { doc, fileName } = await runCli('failover', ['--url', sim.baseUrl, '--url', down, '--url-failover', '--model', 'm', '--concurrency', '4', '--requests', '40', '--input-tokens', '16', '--output-tokens', '8', '--server-metrics', 'off']);
  const event = doc.steps[0]?.failovers?.[0];
  assert.ok(event, 'no failover event');
  assert.match(event.reason, /^3 requests in a row failed \(the last: .*\); its requests go to the other endpoints for 10 s$/);
  const said = saidInChinese(event.reason, [/\(the last: (.*)\); its/s.exec(event.reason)![1]!]);
  assert.match(said, /^连续 3 个请求失败（最后一个：.*）；其请求在 10 秒内发往其他服务$/s, said);
  const view = buildResultView(forReading(doc), fileName, undefined, chinese);
  assert.ok(view.endpoints?.notes.some((n) => n.includes(said)), view.endpoints?.notes.join('\n'));
  const plain = buildResultView(forReading(doc), fileName);
  assert.ok(plain.endpoints?.notes.some((n) => n.includes(`failover took endpoint 1 out: ${event.reason}.`) || n.includes(`: ${event.reason}.`)), plain.endpoints?.notes.join('\n'));
});

test("notes on printouts and tables read from text (a vLLM block, a Markdown table, the same table without units) in Chinese, the user's headings kept as written", async () => {
  const fixtures = join(repoRoot, '../shared/fixtures');
  const vllm = await importPaths([join(fixtures, 'vllm/ascend-fork_serving_llama8B_tp1_qps_inf.json')]);
  const guidellm = await importPaths([join(fixtures, 'guidellm/guidellm_repo_benchmarks_stripped_pre0.3.json')]);
  assert.ok(vllm.ok && guidellm.ok);
  const table = formatMarkdownTable(guidellm.value);
  // The same table as a page might write it: no units on its times.
  const unitless = table.replace(/(\d) (?:sec|ms)\b/g, '$1');
  assert.notEqual(unitless, table);
  // A page's own table in Chinese, its times without units: each unit is settled and said in a note.
  const own = ['| 并发数 | Latency | TTFT | Output tokens/s | Requests/s |', '| --- | --- | --- | --- | --- |', '| 1 | 0.64 | 16.8 | 198 | 1.53 |', '| 8 | 1.10 | 40.2 | 890 | 7.20 |', '| 8 | 1.12 | 41.0 | 880 | 7.10 |'].join('\n');
  const texts = { 'block.log': formatVllmBlock(vllm.value, 0), 'table.md': table, 'unitless.md': unitless, 'own.md': own };
  const said: string[] = [];
  for (const [name, text] of Object.entries(texts)) {
    const path = join(dir, name);
    writeFileSync(path, text + '\n');
    const outcome = await importPaths([path]);
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
    const stored = outcome.value.importedFrom?.notes ?? [];
    const view = buildResultView(forReading(outcome.value), `${name}.llmbench.json`, undefined, chinese);
    for (const note of stored) {
      const chinese_ = sayWarning(note, chinese);
      assert.match(chinese_, HAN, `${name}: not said in Chinese: ${note}`);
      assert.ok(view.notes.includes(chinese_), `${name}: the view lacks ${chinese_}`);
      // A heading the note quotes is the user's, kept as written.
      for (const quoted of note.match(/"[^"]+"/g) ?? []) assert.ok(chinese_.includes(quoted), `${name}: ${quoted} is not kept in ${chinese_}`);
      said.push(chinese_);
    }
    assert.deepEqual(buildResultView(forReading(outcome.value), `${name}.llmbench.json`).notes.filter((n) => stored.includes(n)), stored);
  }
  assert.ok(said.some((n) => /^第 \d 行和第 \d 行都是 \S+：作为同名的两步保留/.test(n)), said.join('\n'));
  assert.ok(said.some((n) => /^"Latency" 没有单位：按秒读取（利特尔定律/.test(n)), said.join('\n'));
  assert.ok(said.some((n) => /^没有单位的列按 GuideLLM 的打印方式读取（.*）："Request Latency"/.test(n)), said.join('\n'));
});
