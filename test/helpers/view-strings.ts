/**
 * What the views show that is theirs to say (not a file's data): the English keys the webviews look
 * up in the l10n bundle (issue 27). Two sources: the `t('...')` calls of the DOM layer and the view
 * models (read from the source), and what the view models build for real runs (chart titles, axis
 * titles, legends, table headers and their hover text, summary labels, metric definitions), which
 * the pages translate by key as they draw.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { forReading } from '../../src/results/read-result';
import { buildResultView } from '../../src/views/result';
import { buildCompareView } from '../../src/views/compare';
import { buildReportModel, kneeTable, rankingTable, reportChartKey, reportChartSpec, SERVER_MARKS_NOTE } from '../../src/views/report';
import { repeatTable, stackedDeltaTable, stepTable, summaryItems } from '../../src/views/result-tables';
import { resultChartSpec, type ChartSpec, type TableColumn } from '../../src/views/chart-spec';
import { METRICS, metricTitle, type MetricKey } from '../../src/format/metrics';
import { DEFAULT_TABLE_COLUMNS } from '../../src/format/messages/from-views';
import { stepLabel } from '../../src/format/step-name';
import type { ResultDocument } from '../../src/format/result';
import type { ViewChart } from '../../src/format/messages/result';
import { repoRoot } from '../vscode/harness/tools';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The string literal `literal` (quotes included) as its value. */
const literalValue = (literal: string): string => new Function(`return ${literal};`)() as string;

/** The first arguments of `call(...)` that are plain string literals (a template with `${}` is no key). */
export function literalArguments(source: string, call: RegExp): string[] {
  const keys: string[] = [];
  const pattern = new RegExp(`${call.source}\\(\\s*('(?:\\\\.|[^'\\\\])*'|"(?:\\\\.|[^"\\\\])*"|\`(?:\\\\.|[^\`\\\\$])*\`)`, 'g');
  for (const match of source.matchAll(pattern)) keys.push(literalValue(match[1]!));
  return keys;
}

/** Every `t('...')` key of the pages (webview/), the view models (src/views/), the exports (src/report/) and the Run command's presets (src/run/). */
export function translatedLiterals(): Set<string> {
  const files = [...sourceFiles(join(repoRoot, 'webview')), ...sourceFiles(join(repoRoot, 'src', 'views')), ...sourceFiles(join(repoRoot, 'src', 'report')), ...sourceFiles(join(repoRoot, 'src', 'run'))];
  return new Set(files.flatMap((file) => literalArguments(readFileSync(file, 'utf8'), /(?<![\w.])t/)));
}

/** The keys src/host/webview-strings.ts lists for extraction. */
export function listedWebviewKeys(): Set<string> {
  return new Set(literalArguments(readFileSync(join(repoRoot, 'src', 'host', 'webview-strings.ts'), 'utf8'), /\bl10n\.t/));
}

const specStrings = (spec: ChartSpec): string[] => [spec.x.title, spec.y.title, ...(spec.y2 ? [spec.y2.title] : []), ...spec.series.map((s) => s.label)];
const columnStrings = (columns: readonly TableColumn[]): string[] => columns.flatMap((c) => [c.label, c.unit ?? '', c.description ?? '']);
const chartStrings = (chart: ViewChart): string[] => [chart.title, ...specStrings(resultChartSpec(chart))];

/**
 * What the views build for `docs` (a result view each, compare of the first two, a report of all)
 * that the pages look up by key: everything but the files' own data (step and run names, file names,
 * label values), which `data` lists.
 */
export function builtStrings(docs: { doc: ResultDocument; fileName: string }[]): { shown: Set<string>; data: Set<string> } {
  const shown: string[] = [];
  const data = new Set<string>(docs.flatMap(({ doc, fileName }) => [fileName, doc.endpoint.model, ...doc.steps.flatMap((step) => [step.name, stepLabel(step)]), ...Object.values(doc.labels)]));
  const views = docs.map(({ doc, fileName }) => buildResultView(forReading(doc), fileName));
  for (const view of views) {
    shown.push(...view.charts.flatMap(chartStrings), ...(view.server?.charts ?? []).flatMap(chartStrings));
    shown.push(...summaryItems(view.summary).map((item) => item.label));
    const steps = stepTable(view.rows, { ...DEFAULT_TABLE_COLUMNS, means: true, p90: true, p95: true, itl: true });
    shown.push(...steps.groups.flatMap((g) => [g.label, g.definition, ...g.columns]));
    if (view.repeats) shown.push(...repeatTable(view.repeats).columns.flatMap((c) => [c.label, c.definition]));
    if (view.server) shown.push(...columnStrings(view.server.table.columns));
  }
  if (docs.length >= 2) {
    const compare = buildCompareView(forReading(docs[0]!.doc), forReading(docs[1]!.doc), docs[0]!.fileName, docs[1]!.fileName);
    shown.push(...compare.charts.flatMap(chartStrings), ...stackedDeltaTable(compare.deltas).columns.flatMap((c) => [c.label, c.definition]));
  }
  const report = buildReportModel(docs.map(({ doc, fileName }) => ({ name: fileName, doc, source: fileName })));
  for (const chart of [...report.charts, report.tradeoff]) shown.push(reportChartKey(chart.title, chart), reportChartKey(chart.xTitle, chart), ...specStrings(reportChartSpec(chart)).filter((text) => text !== chart.xTitle));
  shown.push(...columnStrings(rankingTable(report).columns), ...columnStrings(kneeTable(report).columns), SERVER_MARKS_NOTE);
  for (const key of Object.keys(METRICS) as MetricKey[]) shown.push(METRICS[key].label, METRICS[key].definition, metricTitle(key));
  // Units and bare statistics (ms, p50) read the same in every language.
  const universal = (text: string): boolean => text.trim() === '' || !/[A-Za-z]{2,}/.test(text.replace(/\b(ms|s|tok|req|p\d\d|max|%)\b/g, ''));
  // A name built from a run's file name (its knee in the report's legend) is data too.
  const fileNames = docs.map(({ fileName }) => fileName);
  return { shown: new Set(shown.filter((text) => !data.has(text) && !universal(text) && !fileNames.some((name) => text.includes(name)))), data };
}
