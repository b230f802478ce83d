// The one axis rule and the chart styles every view draws with: when a load axis turns
// logarithmic and which of its ticks are labelled; percentile lines told apart by dash and
// strength; legends capped with "+N more"; the HTML export's SVG on the same log rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { axisTitle, isLogTickLabelled, LOG_AXIS_SPAN, wantsLogAxis } from '../../src/views/axis';
import { DASH_PATTERNS, resultChartSpec, type ChartSpec } from '../../src/views/chart-spec';
import { buildCompareView } from '../../src/views/compare';
import { forReading } from '../../src/results/read-result';
import { contrastOf, MARK_CONTRAST, parseColor } from '../../src/views/contrast';
import { logScale, svgLineChart } from '../../src/report/svg';
import { capLegend, chartConfig, withLineStyle, LEGEND_LIMIT, MARKER_MIN_GAP_PX, mergedMarkerName, placeMarkers, shortMarkerName, stepTicks } from '../../webview/shared/charts';
import { themeFromVariables, type Theme } from '../../webview/shared/theme';
import { concurrencySweep } from '../helpers/result-documents';

const root = process.env['LLMBENCH_ROOT'] ?? join(__dirname, '..', '..', '..');

const THEME: Theme = {
  kind: 'light', background: '#ffffff', foreground: '#333333', mutedForeground: '#777777', gridLines: '#dddddd', border: '#cccccc',
  error: '#e51400', warning: '#bf8803', success: '#388a34', fontFamily: 'sans-serif', fontSize: 13, palette: ['#005fb8', '#c24e00', '#388a34'],
};

test('a load axis is logarithmic past a span of 8, counting only positive finite loads', () => {
  assert.equal(LOG_AXIS_SPAN, 8);
  assert.equal(wantsLogAxis([1, 4, 16, 64]), true);
  assert.equal(wantsLogAxis([1, 2, 4, 8]), false, 'exactly 8x stays linear');
  assert.equal(wantsLogAxis([0, null, 2, 4, Number.NaN, 16]), false, 'zero, null and NaN do not count: 2 to 16 is 8x');
  assert.equal(wantsLogAxis([0.5, 5]), true);
  assert.equal(wantsLogAxis([64]), false, 'one point is no span');
});

test('a log axis labels 1, 2 and 5 times each power of ten only, so labels never run together', () => {
  assert.deepEqual([0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 1000].map(isLogTickLabelled), Array(11).fill(true));
  assert.deepEqual([0, -1, 3, 4, 6, 7, 30, 40, 60, 70].map(isLogTickLabelled), Array(10).fill(false));
});

function spec(log: boolean): ChartSpec {
  return {
    kind: 'line',
    x: { title: 'Concurrency', log },
    y: { title: 'TTFT (ms)' },
    series: (['p50', 'p90', 'p99'] as const).map((percentile) => ({ label: percentile, percentile, color: 0, data: [{ x: 1, y: 10 }, { x: 64, y: 90 }] })),
  };
}

test('chart.js gets a logarithmic x scale with 1-2-5 tick labels when the spec asks for one, a linear one from zero otherwise', () => {
  const scales = chartConfig(spec(true), THEME).options?.scales as Record<string, { type: string; beginAtZero?: boolean; ticks: { callback?: (v: number) => string } }>;
  assert.equal(scales['x']?.type, 'logarithmic');
  const label = scales['x']?.ticks.callback;
  assert.ok(label);
  assert.deepEqual([1, 2, 3, 5, 10, 30, 50, 1000].map((v) => label(v)), ['1', '2', '', '5', '10', '', '50', '1,000']);
  const linear = chartConfig(spec(false), THEME).options?.scales as Record<string, { type: string; beginAtZero?: boolean }>;
  assert.equal(linear['x']?.type, 'linear');
  assert.equal(linear['x']?.beginAtZero, true);
});

test('percentile lines of one colour differ by dash and by colour: p50 solid in the series colour, p90 dotted and p99 dashed in shades toward the text colour', () => {
  // p90 and p99 were the same colour at 80% and 60% opacity: told apart by dash alone.
  const datasets = chartConfig(spec(false), THEME).data.datasets as { label: string; borderDash: number[]; borderColor: string }[];
  const [p50, p90, p99] = datasets;
  assert.deepEqual(p50?.borderDash, []);
  assert.ok((p90?.borderDash.length ?? 0) > 0 && (p99?.borderDash.length ?? 0) > 0);
  assert.notDeepEqual(p90?.borderDash, p99?.borderDash);
  assert.equal(p50?.borderColor, THEME.palette[0]);
  assert.equal(new Set(datasets.map((d) => d.borderColor)).size, 3, `three colours: ${datasets.map((d) => d.borderColor).join(', ')}`);
  for (const d of datasets) {
    assert.match(d.borderColor, /^#[0-9a-f]{6}$/, 'opaque: a shade, not a fainter line');
    assert.ok(contrastOf(d.borderColor, THEME.background) >= MARK_CONTRAST, `${d.label} ${d.borderColor} reads on the background`);
  }
});

test('a log axis says so in its title, in the webview and the export; marks drawn behind lines; a chart may leave its legend to the page', () => {
  const scales = chartConfig(spec(true), THEME).options?.scales as Record<string, { title: { text: string } }>;
  assert.equal(scales['x']?.title.text, 'Concurrency, log scale');
  assert.equal((chartConfig(spec(false), THEME).options?.scales as Record<string, { title: { text: string } }>)['x']?.title.text, 'Concurrency');
  assert.equal(axisTitle('Concurrency', true), 'Concurrency, log scale');
  const marked: ChartSpec = { kind: 'line', legend: false, x: { title: 'x' }, y: { title: 'y' }, series: [{ label: 'run', data: [{ x: 1, y: 1 }], dash: 2 }, { label: 'knee', data: [{ x: 1, y: 1 }], showLine: false, hollow: true, behind: true }] };
  const config = chartConfig(marked, THEME);
  const [line, knee] = config.data.datasets as { order: number; borderDash: number[]; backgroundColor: string }[];
  assert.ok((knee?.order ?? 0) > (line?.order ?? 0), 'chart.js draws the higher order first: the knee under the line');
  assert.deepEqual(line?.borderDash, [...DASH_PATTERNS[2]!]);
  assert.equal(knee?.backgroundColor, 'transparent', 'an outline');
  assert.equal((config.options?.plugins?.legend as { display: boolean }).display, false);
});

test('step markers: close ones drawn as one with both names, a name that would run into the one before on the row below, short where a full one has no room', () => {
  // Eight repeats of short steps drew a solid bar of dashed lines with their names on top of each other.
  const width = (text: string) => text.length * 7;
  const marks = [0, 2, 4, 30, 60, 61, 200, 390, 420].map((px, i) => ({ px, label: `s${i}` }));
  const placed = placeMarkers(marks, width, 0, 400);
  assert.deepEqual(placed.map((m) => m.px), [0, 30, 60, 200, 390], 'close ones drawn as one, one past the plot left out');
  assert.ok(placed.every((m, i) => i === 0 || m.px - placed[i - 1]!.px >= MARKER_MIN_GAP_PX));
  assert.deepEqual(placed.map((m) => m.name), ['s0 \u2026 s2 (3)', 's3', 's4, s5', 's6, s7', null], 'the names of marks drawn as one are merged; one with no room at the edge joins the name before');
  // The live panel's sweep: concurrency@4 and concurrency@16 began 0.6 s apart, 50 px on its chart, and @16 had no name.
  const sweep = [{ px: 40, label: 'concurrency@1' }, { px: 300, label: 'concurrency@4' }, { px: 350, label: 'concurrency@16' }];
  assert.deepEqual(placeMarkers(sweep, width, 0, 480).map((m) => [m.name, m.row]), [['concurrency@1', 0], ['concurrency@4', 0], ['concurrency@16', 1]]);
  // Near the plot's right edge, where the full name has no room: its short form.
  const edge = placeMarkers(sweep, width, 0, 420);
  assert.deepEqual(edge.map((m) => [m.name, m.row]), [['concurrency@1', 0], ['concurrency@4', 0], ['@16', 1]]);
  assert.deepEqual([shortMarkerName('rate@2.5 req/s'), shortMarkerName('synchronous')], ['@2.5 req/s', 'synchronous']);
  // The live panel at 1280 px: @4 had room for its short name only, @16 for its short one or none: then the two are named together.
  const crowded = placeMarkers([{ px: 30, label: 'concurrency@1' }, { px: 330, label: 'concurrency@4' }, { px: 372, label: 'concurrency@16' }], width, 0, 400);
  assert.deepEqual(crowded.map((m) => [m.name, m.row]), [['concurrency@1', 0], ['@4', 0], ['@16', 0]]);
  const edgeOfPlot = placeMarkers([{ px: 30, label: 'concurrency@1' }, { px: 330, label: 'concurrency@4' }, { px: 382, label: 'concurrency@16' }], width, 0, 400);
  assert.deepEqual(edgeOfPlot.map((m) => m.name), ['concurrency@1', '@4, @16', null]);
  // Names of one row never overlap.
  for (const list of [placed, edge]) {
    for (const row of [0, 1]) {
      const spans = list.filter((m) => m.name !== null && m.row === row).map((m) => [m.px + 3, m.px + 3 + width(m.name!)]);
      spans.forEach((span, i) => i === 0 || assert.ok(span[0]! > spans[i - 1]![1]!, `row ${row}: ${JSON.stringify(spans)}`));
    }
  }
  assert.equal(mergedMarkerName(['a']), 'a');
});

test('a legend keeps at most LEGEND_LIMIT entries, the last one counting the rest', () => {
  const names = Array.from({ length: 9 }, (_, i) => `run ${i + 1}`);
  assert.deepEqual(capLegend(names.slice(0, LEGEND_LIMIT), (text) => text), names.slice(0, LEGEND_LIMIT));
  const capped = capLegend(names, (text) => text);
  assert.equal(capped.length, LEGEND_LIMIT);
  assert.equal(capped.at(-1), `+${9 - (LEGEND_LIMIT - 1)} more`);
});

test('the HTML export draws a log load axis on the same rule, with 1-2-5 labels over the decades the data spans', () => {
  const chart = (xs: number[]) =>
    svgLineChart({
      id: 'requestsPerSecond',
      title: 'Requests per second',
      xTitle: 'Concurrency',
      yTitle: 'req/s',
      xLog: true,
      curves: [{ run: 0, name: 'run', group: 'run', color: 0, dash: 0, points: xs.map((x) => ({ x, y: x * 2, step: `c@${x}` })), knee: null, marks: [] }],
    });
  // The x axis's tick labels (centred under their ticks; the y axis's are right-aligned).
  const ticks = (svg: string) => [...svg.matchAll(/text-anchor="middle" class="tick">([^<]*)<\/text>/g)].map((m) => m[1]);
  const labels = [...chart([1, 4, 16, 64]).matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  for (const tick of ['1', '2', '5', '10', '20', '50']) assert.ok(labels.includes(tick), `tick ${tick} among ${labels.join(' ')}`);
  assert.ok(!labels.includes('3') && !labels.includes('30'), 'no label between 1-2-5 ticks');
  assert.ok(labels.includes('Concurrency, log scale'), 'the axis says it is logarithmic');
  // A sweep 1 to 50 whose synchronous step measured 0.98 in flight ran from 0.1: the axis is 1 to 100.
  const sweep = chart([0.98, 4.1, 15.8, 47.2]);
  assert.deepEqual(ticks(sweep), ['1', '2', '5', '10', '20', '50', '100']);
  assert.deepEqual([logScale([1, 50], 100).at(1), logScale([1, 50], 100).at(100), logScale([0.98, 50], 100).at(0.98)], [0, 100, 0]);
});

test('a category axis (a choice, on/off) has one named tick on each category and half a step of room either side', () => {
  const spec: ChartSpec = { kind: 'scatter', x: { title: 'mode', categories: ['off', 'on'] }, y: { title: 'tok/s' }, series: [{ label: 'trial', data: [{ x: 1, y: 5 }] }] };
  const x = (chartConfig(spec, THEME).options?.scales?.['x'] ?? {}) as unknown as {
    min: number;
    max: number;
    afterBuildTicks(scale: { ticks: { value: number }[] }): void;
    ticks: { callback(value: number): string };
  };
  assert.deepEqual([x.min, x.max], [-0.5, 1.5]);
  const scale = { ticks: [{ value: -0.5 }, { value: 0.5 }, { value: 1.5 }] };
  x.afterBuildTicks(scale);
  assert.deepEqual(scale.ticks, [{ value: 0 }, { value: 1 }]);
  assert.deepEqual(scale.ticks.map((t) => x.ticks.callback(t.value)), ['off', 'on']);
});

test('a tooltip is titled by what the point is (its step), then where it sits on the axis; never by a bare x value', () => {
  // Tooltips read "3.991": the measured concurrency, with nothing saying which step it was.
  const load: ChartSpec = {
    kind: 'line',
    x: { title: 'Concurrency (measured mean in flight)' },
    y: { title: 'TTFT (ms)' },
    series: [{ label: 'p50', data: [{ x: 0.998, y: 20 }, { x: 3.991, y: 80 }], pointLabels: ['synchronous', 'concurrency@4'], pointNotes: ['', '95% interval ± 3.1'] }],
  };
  const callbacks = (chartConfig(load, THEME).options?.plugins?.tooltip?.callbacks ?? {}) as unknown as {
    title: (items: { datasetIndex: number; dataIndex: number; parsed: { x: number } }[]) => string[];
    afterLabel: (item: { datasetIndex: number; dataIndex: number }) => string;
  };
  assert.deepEqual(callbacks.title([{ datasetIndex: 0, dataIndex: 1, parsed: { x: 3.991 } }]), ['concurrency@4', 'Concurrency (measured mean in flight): 3.991']);
  assert.equal(callbacks.afterLabel({ datasetIndex: 0, dataIndex: 1 }), '95% interval ± 3.1');
  // A series without names (a distribution, a time chart) is titled by its axis, with its unit when it has one.
  const time: ChartSpec = { ...load, x: { title: 'Run time (s)', unit: 's' }, series: [{ label: 'in flight', data: [{ x: 12.5, y: 3 }] }] };
  const timeTitle = (chartConfig(time, THEME).options?.plugins?.tooltip?.callbacks as unknown as typeof callbacks).title;
  assert.deepEqual(timeTitle([{ datasetIndex: 0, dataIndex: 0, parsed: { x: 12.5 } }]), ['12.5 s']);
});

test('the edges of a repeated run\'s 95% band draw no line of their own: only the fill between them shows, under the line of means', () => {
  // The low edge was drawn as a full-strength line, a second curve under the means that read as data.
  const spec: ChartSpec = {
    kind: 'line',
    x: { title: 'Concurrency (measured mean in flight)' },
    y: { title: 'TTFT (ms)' },
    series: [
      { label: 'p50 (mean of repeats)', data: [{ x: 1, y: 20 }, { x: 4, y: 40 }] },
      { label: 'p50 95% interval (low)', data: [{ x: 1, y: 18 }, { x: 4, y: 35 }], band: true, hideInLegend: true, pointRadius: 0 },
      { label: 'p50 95% interval', data: [{ x: 1, y: 22 }, { x: 4, y: 45 }], band: true, hideInLegend: true, pointRadius: 0, fillTo: 1 },
    ],
  };
  const datasets = chartConfig(spec, THEME).data.datasets;
  assert.deepEqual(datasets.map((d) => d.borderWidth), [2, 0, 0]);
  assert.equal(datasets[2]?.fill, 1, 'the upper edge fills down to the lower one');
});

test('a whole-number axis (trials) padded by half a step has a labelled tick on every whole number, none between', () => {
  // Trials 1 to 5 on an axis of 0.5 to 5.5: chart.js stepped from 0.5, so every tick fell between two trials and none was labelled.
  const spec: ChartSpec = { kind: 'scatter', x: { title: 'trial', integer: true, min: 0.5, max: 5.5 }, y: { title: 'tok/s' }, series: [{ label: 'trial', data: [{ x: 1, y: 5 }] }] };
  const x = (chartConfig(spec, THEME).options?.scales?.['x'] ?? {}) as unknown as {
    min: number;
    max: number;
    afterBuildTicks(scale: { min: number; max: number; ticks: { value: number }[] }): void;
    ticks: { callback(value: number): string };
  };
  assert.deepEqual([x.min, x.max], [0.5, 5.5]);
  const scale = { min: 0.5, max: 5.5, ticks: [0.5, 1.5, 2.5, 3.5, 4.5, 5.5].map((value) => ({ value })) };
  x.afterBuildTicks(scale);
  assert.deepEqual(scale.ticks.map((t) => t.value), [1, 2, 3, 4, 5]);
  assert.deepEqual(scale.ticks.map((t) => x.ticks.callback(t.value)), ['1', '2', '3', '4', '5']);
  // A scale not sized yet keeps its ticks rather than counting to infinity.
  const unsized = { min: 0.5, max: Infinity, ticks: [{ value: 0 }] };
  x.afterBuildTicks(unsized);
  assert.deepEqual(unsized.ticks, [{ value: 0 }]);
});

test('a time axis ticks at its step\'s multiples, whatever room chart.js thinks it has', () => {
  // chart.js spread 0 to 50 s over three spaces: ticks at 16.7 and 33.3.
  const time: ChartSpec = { kind: 'line', x: { title: 'Run time (s)', min: 0, max: 50, step: 10 }, y: { title: 'y' }, series: [{ label: 's', data: [{ x: 0, y: 1 }, { x: 47, y: 2 }] }] };
  const x = (chartConfig(time, THEME).options?.scales?.['x'] ?? {}) as unknown as { afterBuildTicks(scale: { ticks: { value: number }[] }): void };
  const scale = { ticks: [0, 16.67, 33.33, 50].map((value) => ({ value })) };
  x.afterBuildTicks(scale);
  assert.deepEqual(scale.ticks.map((t) => t.value), [0, 10, 20, 30, 40, 50]);
  assert.deepEqual(stepTicks(2, 5.2, 0.4).slice(0, 3), [2, 2.4, 2.8]);
  assert.deepEqual(stepTicks(0, 0.3, 0.1), [0, 0.1, 0.2, 0.3], 'no 0.30000000000000004');
});

test("compare's latency chart: A and B in two colour families, each run's p99 a dashed shade of its p50, B's points triangles, in the dark, light and high-contrast themes", () => {
  // The dark theme's four lines read as two: the p99, dotted, looked solid beside its p50.
  const captured = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'vscode-theme-colors.json'), 'utf8')) as { themes: Record<string, { bodyClass: string; variables: Record<string, string> }> };
  const view = buildCompareView(forReading(concurrencySweep(20, 1)), forReading(concurrencySweep(20, 2)), 'a.llmbench.json', 'b.llmbench.json');
  const latency = view.charts.find((c) => c.id === 'latency');
  assert.ok(latency);
  const hue = (color: string) => {
    const c = parseColor(color)!;
    const [r, g, b] = [c.r / 255, c.g / 255, c.b / 255];
    const max = Math.max(r, g, b);
    const d = max - Math.min(r, g, b);
    const h = d === 0 ? 0 : max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
    return (h * 60 + 360) % 360;
  };
  const apart = (x: number, y: number) => Math.min(Math.abs(x - y), 360 - Math.abs(x - y));
  for (const [name, theme] of Object.entries(captured.themes)) {
    const kind = theme.bodyClass.includes('high-contrast') ? 'high-contrast' : theme.bodyClass.includes('light') ? 'light' : 'dark';
    const resolved = themeFromVariables(kind, (variable) => theme.variables[variable] ?? '');
    const datasets = chartConfig(resultChartSpec(latency), resolved).data.datasets as { label: string; borderDash: number[]; borderColor: string; pointStyle?: string }[];
    const line = (label: string) => datasets.find((d) => d.label === label)!;
    const [a50, a99, b50, b99] = ['A p50', 'A p99', 'B p50', 'B p99'].map(line) as [typeof datasets[0], typeof datasets[0], typeof datasets[0], typeof datasets[0]];
    for (const d of [a50, b50]) assert.deepEqual(d.borderDash, [], `${name}: ${d.label} solid`);
    for (const d of [a99, b99]) assert.deepEqual(d.borderDash, [...DASH_PATTERNS[1]!], `${name}: ${d.label} dashed`);
    assert.equal(new Set(datasets.map((d) => d.borderColor)).size, 4, `${name}: four colours ${datasets.map((d) => d.borderColor).join(', ')}`);
    assert.ok(apart(hue(a50.borderColor), hue(a99.borderColor)) < 20 && apart(hue(b50.borderColor), hue(b99.borderColor)) < 20, `${name}: each run's p99 keeps its p50's hue`);
    assert.ok(apart(hue(a50.borderColor), hue(b50.borderColor)) >= 90, `${name}: A ${a50.borderColor} and B ${b50.borderColor} are two colour families`);
    assert.deepEqual([a50.pointStyle, b50.pointStyle, b99.pointStyle], [undefined, 'triangle', 'triangle']);
    for (const d of datasets) assert.ok(contrastOf(d.borderColor, resolved.background) >= MARK_CONTRAST, `${name}: ${d.label} ${d.borderColor} reads on ${resolved.background}`);
    // The legend draws each swatch as its line: chart.js's own entry (styled from a point) has no dash.
    const pointStyled = { text: 'B p99', lineDash: undefined, strokeStyle: '#000000', lineWidth: 0.5 };
    assert.deepEqual(withLineStyle(pointStyled, b99 as never), { text: 'B p99', lineDash: [...DASH_PATTERNS[1]!], strokeStyle: b99.borderColor, lineWidth: 2 });
    assert.deepEqual(withLineStyle(pointStyled, a50 as never).lineDash, []);
  }
});
