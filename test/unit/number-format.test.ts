// One formatter per kind of figure (src/views/number-format.ts): the command line's lines, the
// webview's chart ticks and the exported SVG print a figure as the views do. Each test names the
// figure two formatters used to print differently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgressPrinter } from '../../src/cli/progress';
import type { RunEvent } from '../../src/format/events';
import type { StepSummary } from '../../src/format/result';
import { svgLineChart } from '../../src/report/svg';
import { formatCount, formatElapsed, formatLocalTime, formatMetric, formatNumber, formatPercentChange, formatTick, setDisplayLocale } from '../../src/views/number-format';
import { chartConfig } from '../../webview/shared/charts';
import type { Theme } from '../../webview/shared/theme';

const THEME: Theme = {
  kind: 'light', background: '#ffffff', foreground: '#333333', mutedForeground: '#777777', gridLines: '#dddddd', border: '#cccccc',
  error: '#e51400', warning: '#bf8803', success: '#388a34', fontFamily: 'sans-serif', fontSize: 13, palette: ['#005fb8'],
};

/** What the progress printer writes for these events, on a terminal. */
function printed(events: RunEvent[]): string {
  let text = '';
  const stream = { isTTY: true, columns: 400, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
  const printer = createProgressPrinter(stream);
  for (const event of events) printer.onEvent(event);
  return text;
}

const stats = (mean: number) => ({ count: 10, mean, std: 0, min: mean, max: mean, p50: mean, p66: mean, p75: mean, p80: mean, p90: mean, p95: mean, p98: mean, p99: mean });

test('the command line prints a step\'s figures at the precision the views print them', () => {
  // The live line printed req/s to 1 decimal and the elapsed time as "12/60s"; the step line printed
  // 1234.5 and 12346 without the separators of the result view's "1,234.5" and "12,346".
  const summary: StepSummary = {
    requests: { total: 20, completed: 20, failed: 0 },
    durationSec: 12,
    requestsPerSecond: 12.345,
    outputTokensPerSecond: 1234.4,
    totalTokensPerSecond: 2000,
    ttftMs: stats(1234.5),
    itlMs: null,
    tpotMs: null,
    latencyMs: stats(12345.6),
    queueMs: null,
    inputTokens: null,
    outputTokens: null,
    errors: {},
  };
  const text = printed([
    { type: 'run-start', plannedSteps: [{ name: 'concurrency@8', profile: { kind: 'concurrency', concurrency: 8 } }], stepCount: 1, resultPath: null },
    { type: 'step-start', stepIndex: 0, name: 'concurrency@8', profile: { kind: 'concurrency', concurrency: 8 } },
    {
      type: 'progress',
      snapshot: { stepIndex: 0, elapsedSec: 12.34, completed: 10, failed: 0, inFlight: 8, plannedRequests: 20, plannedDurationSec: 60, requestsPerSecond: 12.345, outputTokensPerSecond: 1234.4, recentTtftMs: [], recentLatencyMs: [] },
    },
    { type: 'step-end', stepIndex: 0, name: 'concurrency@8', summary },
  ]);
  assert.match(text, new RegExp(`8 in flight, ${formatMetric('requestsPerSecond', 12.345)} req/s, ${formatMetric('outputTokensPerSecond', 1234.4)} tok/s, ${formatElapsed(12.34, 60)}`));
  assert.match(text, /8 in flight, 12\.35 req\/s, 1,234 tok\/s, 12\.3 \/ 60 s/);
  assert.match(text, /done: 20 ok, 0 failed, 12\.35 req\/s, TTFT mean 1,234\.5 ms, latency mean 12,346 ms/);
});

test('a log axis labels its small ticks in the webview as the exported SVG does', () => {
  // The webview rounded to two decimals, so its ticks 0.001, 0.002 and 0.005 read 0, 0 and 0.01.
  const ticks = [0.001, 0.002, 0.005, 0.01, 1, 1000];
  const spec = { kind: 'line' as const, x: { title: 'x', log: true }, y: { title: 'y' }, series: [{ label: 'a', data: ticks.map((x) => ({ x, y: 1 })) }] };
  const scales = chartConfig(spec, THEME).options?.scales as Record<string, { ticks: { callback: (v: number) => string } }>;
  const webview = ticks.map((t) => scales['x']!.ticks.callback(t));
  assert.deepEqual(webview, ['0.001', '0.002', '0.005', '0.01', '1', '1,000']);
  assert.deepEqual(webview, ticks.map(formatTick));
  const svg = svgLineChart({ id: 'c', title: 'c', xTitle: 'x', xLog: true, yTitle: 'y', curves: [{ run: 0, name: 'a', group: 'a', color: 0, dash: 0, points: ticks.map((x) => ({ x, y: 1, step: String(x) })), knee: null, marks: [] }] });
  for (const label of ['0.001', '0.002', '0.005', '1,000']) assert.ok(svg.includes(`class="tick">${label}</text>`), `the SVG labels ${label}`);
});

test('a change in percent is signed, whole from 10% up', () => {
  assert.deepEqual([12.4, -2.54, 0, null].map(formatPercentChange), ['+12%', '-2.5%', '0.0%', 'n/a']);
});

test("a page's display locale formats its figures and moments (Intl); English, an unknown tag or none: en-US as before", () => {
  const at = '2026-11-26T10:12:03.000Z';
  const sample = () => [formatNumber(1234.5), formatCount(12345), formatMetric('requestsPerSecond', 1234.567), formatTick(25000), formatLocalTime(at, 60)];
  const english = ['1,235', '12,345', '1,234.57', '25,000', '2026-11-26 11:12:03 UTC+1'];
  try {
    assert.deepEqual(sample(), english);
    setDisplayLocale('zh-cn');
    assert.deepEqual(sample(), ['1,235', '12,345', '1,234.57', '25,000', '2026/11/26 11:12:03 UTC+1']);
    setDisplayLocale('de');
    assert.deepEqual(sample(), ['1.235', '12.345', '1.234,57', '25.000', '26.11.2026, 11:12:03 UTC+1']);
    setDisplayLocale('en');
    assert.deepEqual(sample(), english);
    setDisplayLocale('not a tag!');
    assert.deepEqual(sample(), english);
  } finally {
    setDisplayLocale('en');
  }
});
