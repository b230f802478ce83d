/**
 * chart.js for every view, with only the parts we draw registered (line and scatter charts on
 * linear or logarithmic axes, stacked bars over categories, legend, tooltip, fills for percentile
 * bands, decimation). Charts are
 * described by a plain `ChartSpec`; `chartConfig` turns a spec and a theme into chart.js options as
 * a pure function, so views are tested without a canvas. Updates never animate and data is given
 * pre-parsed, which keeps charts smooth with tens of thousands of points.
 */
import {
  BarController,
  BarElement,
  Chart,
  Decimation,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Tooltip,
  type ChartConfiguration,
  type ChartDataset,
  type LegendItem,
  type ScaleOptionsByType,
} from 'chart.js';
import { axisTitle, isLogTickLabelled } from '../../src/views/axis';
import { t } from './l10n';
import { DASH_PATTERNS, localizedSpec, type AxisSpec, type ChartSpec, type Point, type SeriesSpec } from '../../src/views/chart-spec';
import { parseColor, toHex } from '../../src/views/contrast';
import { formatTick } from '../../src/views/number-format';
import { seriesColor, withAlpha, type Theme } from './theme';

Chart.register(LineController, ScatterController, BarController, BarElement, LineElement, PointElement, LinearScale, LogarithmicScale, Legend, Tooltip, Filler, Decimation);

interface MarkerOptions {
  markers: { x: number; label: string }[];
  color: string;
  background: string;
  font: string;
}

/** Marks closer than this (px) to the last one drawn are drawn as one: a run of short steps would be a solid bar. */
export const MARKER_MIN_GAP_PX = 6;

/** Rows of names at the top of the plot: a name that would run into the one before it takes the next row down. */
export const MARKER_LABEL_ROWS = 2;

/** Height of one row of marker names (px). */
const MARKER_ROW_PX = 14;

/** Where a mark is drawn and its name written (right of the line): `row` from the top; `name` null when no row has room. */
export interface PlacedMarker {
  px: number;
  name: string | null;
  row: number;
}

/** The name of marks drawn as one: both names for two, the first and last for more ("concurrency@1 \u2026 concurrency@64 (5)"). */
export function mergedMarkerName(names: string[]): string {
  if (names.length <= 2) return names.join(', ');
  return `${names[0]} \u2026 ${names.at(-1)} (${names.length})`;
}

/** A step's name as short as its neighbours let it be read: what follows its last @ ("@16" after "concurrency@4"). */
export function shortMarkerName(name: string): string {
  const at = name.lastIndexOf('@');
  return at > 0 ? name.slice(at) : name;
}

/**
 * Which marks of an axis to draw and where to write their names, always right of their line.
 * Marks outside the plot are left out; a mark within MARKER_MIN_GAP_PX of the last one kept is
 * drawn as that one, whose name becomes both (mergedMarkerName). A name goes on the first row where
 * it runs into no name before it and stays inside the plot, in full, else short (shortMarkerName):
 * two steps that start close together are both named, one above the other. A mark with no room
 * for even its short name (the last step, near the plot's right edge) has its name merged into the
 * one before ("@4, @16"), where that fits: the live panel left it unnamed. Pure: unit tested with
 * a measure of text width.
 */
export function placeMarkers(marks: { px: number; label: string }[], measure: (text: string) => number, left: number, right: number): PlacedMarker[] {
  const groups: { px: number; names: string[] }[] = [];
  for (const { px, label } of marks) {
    if (px < left || px > right) continue;
    const last = groups.at(-1);
    if (last && px - last.px < MARKER_MIN_GAP_PX) last.names.push(label);
    else groups.push({ px, names: [label] });
  }
  /** A name's forms, longest first: in full, then short. */
  const forms = (names: string[]) => [...new Set([mergedMarkerName(names), mergedMarkerName(names.map(shortMarkerName))])];
  const rowEnds = Array.from({ length: MARKER_LABEL_ROWS }, () => -Infinity);
  const placed = groups.map(({ px, names }): PlacedMarker & { names: string[] } => {
    for (const name of forms(names)) {
      const end = px + 3 + measure(name);
      for (let row = 0; row < MARKER_LABEL_ROWS; row += 1) {
        if (px + 3 > rowEnds[row]! && end <= right) {
          rowEnds[row] = end + 6;
          return { px, name, row, names };
        }
      }
    }
    return { px, name: null, row: 0, names };
  });
  placed.forEach((mark, i) => {
    if (mark.name !== null) return;
    const before = placed.slice(0, i).reverse().find((m) => m.name !== null);
    if (!before) return;
    // The next name on that row, which the longer name must not reach.
    const next = placed.slice(placed.indexOf(before) + 1).find((m) => m.name !== null && m.row === before.row);
    const limit = Math.min(right, next ? next.px + 3 - 6 : Infinity);
    const names = [...before.names, ...mark.names];
    const merged = forms(names).find((name) => before.px + 3 + measure(name) <= limit);
    if (merged) Object.assign(before, { name: merged, names });
  });
  return placed.map(({ px, name, row }) => ({ px, name, row }));
}

/** Draws ChartSpec.markers: a dashed vertical line and its name on the plot's background, over the datasets. */
const markerPlugin = {
  id: 'llmBenchMarkers',
  afterDatasetsDraw(chart: Chart, _args: unknown, options: MarkerOptions) {
    const { ctx, chartArea, scales } = chart;
    const x = scales['x'];
    if (!x || !options.markers?.length) return;
    ctx.save();
    ctx.font = options.font;
    ctx.lineWidth = 1;
    const marks = options.markers.map((marker) => ({ px: x.getPixelForValue(marker.x), label: marker.label }));
    for (const { px, name, row } of placeMarkers(marks, (text) => ctx.measureText(text).width, chartArea.left, chartArea.right)) {
      ctx.strokeStyle = options.color;
      ctx.setLineDash([3, 3]);
      ctx.beginPath();
      ctx.moveTo(px, chartArea.top);
      ctx.lineTo(px, chartArea.bottom);
      ctx.stroke();
      if (name === null) continue;
      // The name on a patch of background, so that grid and data lines do not run through it.
      const width = ctx.measureText(name).width;
      const top = chartArea.top + 1 + row * MARKER_ROW_PX;
      ctx.fillStyle = options.background;
      ctx.fillRect(px + 1, top, width + 4, MARKER_ROW_PX - 1);
      ctx.fillStyle = options.color;
      ctx.fillText(name, px + 3, top + 10);
    }
    ctx.restore();
  },
};

function colorOf(series: SeriesSpec, index: number, theme: Theme): string {
  const c = series.color ?? index;
  if (typeof c === 'number') return seriesColor(theme, c);
  return c === 'muted' ? theme.mutedForeground : theme[c];
}

/**
 * Dash and shade of each percentile's line: told apart by both. The shade moves the series colour
 * toward the theme's text colour, so it keeps (and gains) contrast on the background. The p99, the
 * line every chart of two runs draws beside the p50, is the one dashed: a dotted line of 2 px read
 * as solid (compare's four latency lines in the dark theme), dashes do not.
 */
const PERCENTILE_STYLE = {
  p50: { dash: DASH_PATTERNS[0] as number[], shade: 0 },
  // Far enough to tell apart, near enough to keep the series' hue (two runs' p99 must not both turn white).
  p90: { dash: DASH_PATTERNS[2] as number[], shade: 0.25 },
  p99: { dash: DASH_PATTERNS[1] as number[], shade: 0.45 },
};

/** At most this many legend entries; the rest are named by count ("+3 more"). */
export const LEGEND_LIMIT = 6;

/** A log axis labels 1, 2 and 5 times each power of ten only; its other grid lines stay unlabelled. */
function logTickLabel(value: number | string): string {
  const n = Number(value);
  return isLogTickLabelled(n) ? formatTick(n) : '';
}

/** The ticks of a range at every multiple of `step` from `min` to `max` (both ends included, float noise rounded off). */
export function stepTicks(min: number, max: number, step: number): number[] {
  if (!(step > 0) || max < min) return [min, max];
  const count = Math.round((max - min) / step);
  return Array.from({ length: count + 1 }, (_, i) => Number((min + i * step).toPrecision(12)));
}

/** Whole numbers only: a tick at each, labelled; none between (an axis of trials 1 to 1 ran 0 to 1.2 by 0.2). */
const integerTicks = { stepSize: 1, callback: (value: number | string) => (Number.isInteger(Number(value)) ? formatTick(Number(value)) : '') };

/** More whole numbers than this on one axis are left to chart.js's spacing (its callback still labels only whole ones). */
const MAX_WHOLE_TICKS = 40;

/**
 * The ticks of a whole-number axis, put on the whole numbers within it: padded by half a step
 * (0.5 to 5.5), chart.js steps from its minimum and every tick falls between two.
 */
function onWholeNumbers(scale: { min: number; max: number; ticks: { value: number }[] }): void {
  const first = Math.ceil(scale.min);
  const last = Math.floor(scale.max);
  // A scale not yet sized (no data, no room) keeps chart.js's ticks; so does one too long to label every number.
  if (!Number.isFinite(first) || !Number.isFinite(last) || last < first || last - first + 1 > MAX_WHOLE_TICKS) return;
  scale.ticks = stepTicks(first, last, 1).map((value) => ({ value }));
}

/** One tick per category, on its index, named by it; the axis pads half a step either side. */
function categoryTicks(categories: string[]) {
  return { autoSkip: false, callback: (value: number | string) => categories[Number(value)] ?? '' };
}

/** `color` moved toward `toward` by `share` (0..1), for shades of one series colour. */
function mix(color: string, toward: string, share: number): string {
  const [a, b] = [parseColor(color), parseColor(toward)];
  if (!a || !b || share === 0) return color;
  return toHex({ r: a.r + (b.r - a.r) * share, g: a.g + (b.g - a.g) * share, b: a.b + (b.b - a.b) * share, a: 1 });
}

function axisOptions(axis: AxisSpec, theme: Theme, position: 'bottom' | 'left' | 'right', gridOn: boolean) {
  return {
    type: axis.log ? 'logarithmic' : 'linear',
    position,
    ...(axis.min !== undefined ? { min: axis.min } : {}),
    ...(axis.max !== undefined ? { max: axis.max } : {}),
    // Headroom above the highest value, so a line ending at the top is not cut by the plot's edge.
    ...(axis.categories
      ? {
          min: -0.5,
          max: axis.categories.length - 0.5,
          // Ticks built from -0.5 in steps fall between the categories: put them on the categories.
          afterBuildTicks: (scale: { ticks: { value: number }[] }) => {
            scale.ticks = (axis.categories ?? []).map((_, value) => ({ value }));
          },
        }
      : axis.log
        ? {}
        : axis.step !== undefined && axis.min !== undefined && axis.max !== undefined
          ? {
              // chart.js divides a fixed range into as many spaces as it thinks fit, ignoring the step
              // (0 to 50 by 10 came out 0, 16.7, 33.3, 50): the ticks are set to the step's multiples.
              afterBuildTicks: (scale: { ticks: { value: number }[] }) => {
                scale.ticks = stepTicks(axis.min as number, axis.max as number, axis.step as number).map((value) => ({ value }));
              },
            }
          : { beginAtZero: true, grace: '5%', ...(axis.integer ? { afterBuildTicks: onWholeNumbers } : {}) }),
    title: { display: axis.title.length > 0, text: axisTitle(axis.title, axis.log === true, t), color: theme.foreground },
    ticks: { color: theme.mutedForeground, maxRotation: 0, ...(axis.step !== undefined ? { stepSize: axis.step } : {}), ...(axis.integer ? integerTicks : {}), ...(axis.log ? { callback: logTickLabel, autoSkip: false } : {}), ...(axis.categories ? categoryTicks(axis.categories) : {}) },
    grid: { color: theme.gridLines, display: gridOn },
    border: { color: theme.border },
  } as unknown as ScaleOptionsByType<'linear'>;
}

/** A bar chart's datasets: one a series, its segments stacked on one bar a category when the spec stacks. */
function barDatasets(spec: ChartSpec, theme: Theme): ChartDataset<'bar', Point[]>[] {
  return spec.series.map((s, i) => {
    const color = colorOf(s, i, theme);
    return { type: 'bar', label: s.label, data: s.data, backgroundColor: color, borderColor: color, borderWidth: 0, barPercentage: 0.7, categoryPercentage: 0.9, ...(spec.stacked ? { stack: 'stack' } : {}) };
  });
}

/** chart.js configuration for a spec on a theme. Pure: same input, same output. */
export function chartConfig(spec: ChartSpec, theme: Theme): ChartConfiguration<'line' | 'scatter', Point[]> {
  const bar = spec.kind === 'bar';
  const datasets = bar ? barDatasets(spec, theme) : spec.series.map((s, i): ChartDataset<'line', Point[]> => {
    const color = colorOf(s, i, theme);
    const showLine = s.showLine ?? spec.kind === 'line';
    const percentile = s.percentile ? PERCENTILE_STYLE[s.percentile] : undefined;
    const lineColor = percentile ? mix(color, theme.foreground, percentile.shade) : s.faint ? withAlpha(color, FAINT_ALPHA) : color;
    return {
      label: s.label,
      data: s.data,
      borderColor: lineColor,
      backgroundColor: s.hollow ? 'transparent' : s.fillTo !== undefined ? withAlpha(lineColor, 0.18) : lineColor,
      borderWidth: s.band || (s.fillTo !== undefined && s.hideInLegend) ? 0 : s.hollow ? 1.5 : 2,
      borderDash: percentile ? percentile.dash : s.dash !== undefined ? [...(DASH_PATTERNS[s.dash % DASH_PATTERNS.length] ?? [])] : s.dashed ? [6, 4] : [],
      pointRadius: s.pointRadius ?? (showLine ? 0 : 3),
      ...(s.pointStyle ? { pointStyle: s.pointStyle } : {}),
      pointHoverRadius: 4,
      showLine,
      fill: s.fillTo === undefined ? false : s.fillTo === 'origin' ? 'origin' : s.fillTo,
      yAxisID: s.rightAxis ? 'y2' : 'y',
      // chart.js draws the highest order first: marks behind the lines.
      order: s.behind ? 1 : 0,
      tension: 0,
      spanGaps: false,
      // A point at the plot's edge (a one-step run, the last level of a sweep) is drawn whole.
      clip: 8,
    };
  });
  const scales: Record<string, ScaleOptionsByType<'linear'>> = {
    x: { ...axisOptions(spec.x, theme, 'bottom', !bar), ...(spec.stacked ? { stacked: true } : {}) },
    y: { ...axisOptions(spec.y, theme, 'left', true), ...(spec.stacked ? { stacked: true } : {}) },
  };
  if (spec.y2) scales['y2'] = axisOptions(spec.y2, theme, 'right', false);
  return {
    type: spec.kind,
    data: { datasets },
    options: {
      animation: false,
      parsing: false,
      normalized: true,
      responsive: true,
      maintainAspectRatio: false,
      color: theme.foreground,
      font: { family: theme.fontFamily, size: theme.fontSize },
      // A bar's tooltip lists every segment of the bar under the pointer.
      interaction: bar ? { mode: 'index', intersect: false, axis: 'x' } : { mode: 'nearest', intersect: false, axis: 'x' },
      scales,
      plugins: {
        legend: {
          display: spec.legend !== false,
          // A line swatch shows each series' dash, which a filled box blurs.
          labels: { color: theme.foreground, usePointStyle: true, pointStyle: bar ? 'rect' : 'line', pointStyleWidth: bar ? 14 : 24, generateLabels: (chart: Chart) => legendItems(chart, spec) },
          onClick: (event: unknown, item: LegendItem, legend: unknown) => {
            if ((item.datasetIndex ?? -1) >= 0) defaultLegendClick.call(legend as never, event as never, item, legend as never);
          },
        },
        llmBenchMarkers: { markers: spec.markers ?? [], color: theme.mutedForeground, background: theme.background, font: `${theme.fontSize - 1}px ${theme.fontFamily}` },
        tooltip: {
          callbacks: { title: (items: TooltipPoint[]) => tooltipTitle(spec, items), afterLabel: (item: TooltipPoint) => spec.series[item.datasetIndex]?.pointNotes?.[item.dataIndex] ?? '' },
          backgroundColor: theme.background,
          titleColor: theme.foreground,
          bodyColor: theme.foreground,
          borderColor: theme.border,
          borderWidth: 1,
          filter: (item) => !spec.series[item.datasetIndex]?.hideInLegend,
        },
        decimation: {
          enabled: spec.decimateAbove !== undefined,
          algorithm: 'lttb',
          threshold: spec.decimateAbove ?? 0,
        },
      },
    },
  } as ChartConfiguration<'line' | 'scatter', Point[]>;
}

const defaultLegendClick = Chart.defaults.plugins.legend.onClick;

/** Each repeat's point behind the mean it makes: this strong. */
const FAINT_ALPHA = 0.45;

interface TooltipPoint {
  datasetIndex: number;
  dataIndex: number;
  parsed: { x: number | null };
}

/**
 * A tooltip's title: what the point is (its step, when the series names its points), then where it
 * sits on x with the axis' name or unit; never a bare number.
 */
export function tooltipTitle(spec: ChartSpec, items: TooltipPoint[]): string[] {
  const item = items[0];
  if (!item) return [];
  const x = item.parsed.x ?? 0;
  const where = spec.x.categories ? (spec.x.categories[x] ?? '') : spec.x.unit ? `${formatTick(x)} ${spec.x.unit}` : `${spec.x.title}: ${formatTick(x)}`;
  const names = [...new Set(items.flatMap((i) => spec.series[i.datasetIndex]?.pointLabels?.[i.dataIndex] ?? []))];
  return [...(names.length ? [names.join(', ')] : []), ...(where ? [where] : [])];
}

/**
 * The legend's entries: series with data that are not helpers, at most LEGEND_LIMIT of them, the
 * rest counted in a last entry, so that a chart of many runs stays mostly plot.
 */
function legendItems(chart: Chart, spec: ChartSpec): LegendItem[] {
  const shown = Chart.defaults.plugins.legend.labels.generateLabels(chart)
    .filter((item) => {
      const series = spec.series[item.datasetIndex ?? -1];
      return series !== undefined && !series.hideInLegend && series.data.length > 0;
    })
    .map((item) => (spec.kind === 'bar' ? item : withLineStyle(item, chart.data.datasets[item.datasetIndex ?? -1] as LineStyle | undefined)));
  return capLegend(shown, (text) => ({ text, fillStyle: 'transparent', strokeStyle: 'transparent', lineWidth: 0, hidden: false, datasetIndex: -1 }));
}

/** What a legend swatch takes from its dataset's line. */
type LineStyle = Pick<ChartDataset<'line', Point[]>, 'borderDash' | 'borderColor' | 'borderWidth'>;

/**
 * A legend entry drawn as its series' line: its dash, colour and width. chart.js styles a
 * point-style swatch from the dataset's first point, which has no dash: every swatch was solid, and
 * a dashed p99 or run B read like the solid line beside it in the legend.
 */
export function withLineStyle<T extends { lineDash?: number[]; strokeStyle?: unknown; lineWidth?: number }>(item: T, line: LineStyle | undefined): T {
  if (!line) return item;
  const dash = Array.isArray(line.borderDash) ? [...line.borderDash] : [];
  const width = typeof line.borderWidth === 'number' && line.borderWidth > 0 ? line.borderWidth : item.lineWidth;
  return { ...item, lineDash: dash, ...(typeof line.borderColor === 'string' ? { strokeStyle: line.borderColor } : {}), ...(width !== undefined ? { lineWidth: width } : {}) };
}

/** At most LEGEND_LIMIT entries: past it, the first LEGEND_LIMIT - 1 and an entry "+N more" made by `more`. */
export function capLegend<T>(shown: T[], more: (text: string) => T): T[] {
  if (shown.length <= LEGEND_LIMIT) return shown;
  const hidden = shown.length - (LEGEND_LIMIT - 1);
  return [...shown.slice(0, LEGEND_LIMIT - 1), more(t('+{0} more', hidden))];
}

/** A chart on a canvas, redrawn from new specs or themes without animation. */
export class SpecChart {
  readonly chart: Chart<'line' | 'scatter', Point[]>;
  private spec: ChartSpec;
  private theme: Theme;

  constructor(canvas: HTMLCanvasElement, spec: ChartSpec, theme: Theme) {
    spec = localizedSpec(spec, t);
    this.spec = spec;
    this.theme = theme;
    this.chart = new Chart(canvas, { ...chartConfig(spec, theme), plugins: [markerPlugin] } as ChartConfiguration<'line' | 'scatter', Point[]>);
  }

  update(spec: ChartSpec): void {
    this.spec = localizedSpec(spec, t);
    this.redraw();
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.redraw();
  }

  /** The chart as a PNG data URL on the theme's background (a canvas alone is transparent). */
  toPngDataUrl(): string {
    return canvasToPngDataUrl(this.chart.canvas, this.theme.background);
  }

  destroy(): void {
    this.chart.destroy();
  }

  private redraw(): void {
    const config = chartConfig(this.spec, this.theme);
    this.chart.data.datasets = config.data.datasets;
    if (config.options) this.chart.options = config.options;
    this.chart.update('none');
  }
}

export function canvasToPngDataUrl(source: HTMLCanvasElement, background: string): string {
  const canvas = document.createElement('canvas');
  canvas.width = source.width;
  canvas.height = source.height;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('This webview cannot draw on a canvas.');
  context.fillStyle = background;
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(source, 0, 0);
  return canvas.toDataURL('image/png');
}
