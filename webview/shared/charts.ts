/**
 * chart.js for every view, with only the parts we draw registered (line and scatter charts on
 * linear or logarithmic axes, legend, tooltip, fills for percentile bands, decimation). Charts are
 * described by a plain `ChartSpec`; `chartConfig` turns a spec and a theme into chart.js options as
 * a pure function, so views are tested without a canvas. Updates never animate and data is given
 * pre-parsed, which keeps charts smooth with tens of thousands of points.
 */
import {
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
import { isLogTickLabelled } from '../../src/views/axis';
import type { AxisSpec, ChartSpec, Point, SeriesSpec } from '../../src/views/chart-spec';
import { formatTick } from '../../src/views/number-format';
import { seriesColor, withAlpha, type Theme } from './theme';

Chart.register(LineController, ScatterController, LineElement, PointElement, LinearScale, LogarithmicScale, Legend, Tooltip, Filler, Decimation);

interface MarkerOptions {
  markers: { x: number; label: string }[];
  color: string;
  font: string;
}

/** Draws ChartSpec.markers: a dashed vertical line and its name, over the datasets. */
const markerPlugin = {
  id: 'llmBenchMarkers',
  afterDatasetsDraw(chart: Chart, _args: unknown, options: MarkerOptions) {
    const { ctx, chartArea, scales } = chart;
    const x = scales['x'];
    if (!x || !options.markers?.length) return;
    ctx.save();
    ctx.strokeStyle = options.color;
    ctx.fillStyle = options.color;
    ctx.font = options.font;
    ctx.setLineDash([3, 3]);
    ctx.lineWidth = 1;
    let lastLabelEnd = -Infinity;
    for (const marker of options.markers) {
      const px = x.getPixelForValue(marker.x);
      if (px < chartArea.left || px > chartArea.right) continue;
      ctx.beginPath();
      ctx.moveTo(px, chartArea.top);
      ctx.lineTo(px, chartArea.bottom);
      ctx.stroke();
      // Names that would run into the previous one are left to the tooltip's step line.
      const width = ctx.measureText(marker.label).width;
      if (px + 3 > lastLabelEnd && px + 3 + width <= chartArea.right) {
        ctx.fillText(marker.label, px + 3, chartArea.top + 10);
        lastLabelEnd = px + 3 + width + 6;
      }
    }
    ctx.restore();
  },
};

function colorOf(series: SeriesSpec, index: number, theme: Theme): string {
  const c = series.color ?? index;
  if (typeof c === 'number') return seriesColor(theme, c);
  return c === 'muted' ? theme.mutedForeground : theme[c];
}

/** Dash and strength of each percentile's line: told apart by both, not by colour alone. */
const PERCENTILE_STYLE = {
  p50: { dash: [] as number[], alpha: 1 },
  p90: { dash: [7, 4], alpha: 0.8 },
  p99: { dash: [2, 3], alpha: 0.6 },
};

/** At most this many legend entries; the rest are named by count ("+3 more"). */
export const LEGEND_LIMIT = 6;

/** A log axis labels 1, 2 and 5 times each power of ten only; its other grid lines stay unlabelled. */
function logTickLabel(value: number | string): string {
  const n = Number(value);
  return isLogTickLabelled(n) ? formatTick(n) : '';
}

/** Whole numbers only: a tick at each, labelled; none between (an axis of trials 1 to 1 ran 0 to 1.2 by 0.2). */
const integerTicks = { stepSize: 1, callback: (value: number | string) => (Number.isInteger(Number(value)) ? formatTick(Number(value)) : '') };

/**
 * The ticks of a whole-number axis, put on the whole numbers within it: padded by half a step
 * (0.5 to 5.5), chart.js steps from its minimum and every tick falls between two.
 */
function onWholeNumbers(scale: { min: number; max: number; ticks: { value: number }[] }): void {
  const first = Math.ceil(scale.min);
  const count = Math.floor(scale.max) - first + 1;
  // A scale not yet sized (no data, no room) keeps chart.js's ticks; so does one too long to label every number.
  if (!Number.isFinite(count) || count < 1 || count > MAX_WHOLE_TICKS) return;
  scale.ticks = Array.from({ length: count }, (_, i) => ({ value: first + i }));
}

/** More whole numbers than this on one axis are left to chart.js's spacing (its callback still labels only whole ones). */
const MAX_WHOLE_TICKS = 40;

/** One tick per category, on its index, named by it; the axis pads half a step either side. */
function categoryTicks(categories: string[]) {
  return { autoSkip: false, callback: (value: number | string) => categories[Number(value)] ?? '' };
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
        : { beginAtZero: true, grace: '5%', ...(axis.integer ? { afterBuildTicks: onWholeNumbers } : {}) }),
    title: { display: axis.title.length > 0, text: axis.title, color: theme.foreground },
    ticks: { color: theme.mutedForeground, maxRotation: 0, ...(axis.step !== undefined ? { stepSize: axis.step } : {}), ...(axis.integer ? integerTicks : {}), ...(axis.log ? { callback: logTickLabel, autoSkip: false } : {}), ...(axis.categories ? categoryTicks(axis.categories) : {}) },
    grid: { color: theme.gridLines, display: gridOn },
    border: { color: theme.border },
  } as unknown as ScaleOptionsByType<'linear'>;
}

/** chart.js configuration for a spec on a theme. Pure: same input, same output. */
export function chartConfig(spec: ChartSpec, theme: Theme): ChartConfiguration<'line' | 'scatter', Point[]> {
  const datasets = spec.series.map((s, i): ChartDataset<'line', Point[]> => {
    const color = colorOf(s, i, theme);
    const showLine = s.showLine ?? spec.kind === 'line';
    const percentile = s.percentile ? PERCENTILE_STYLE[s.percentile] : undefined;
    const lineColor = percentile ? withAlpha(color, percentile.alpha) : s.faint ? withAlpha(color, FAINT_ALPHA) : color;
    return {
      label: s.label,
      data: s.data,
      borderColor: lineColor,
      backgroundColor: s.hollow ? 'transparent' : s.fillTo !== undefined ? withAlpha(color, 0.18) : lineColor,
      borderWidth: s.band || (s.fillTo !== undefined && s.hideInLegend) ? 0 : 2,
      borderDash: percentile ? percentile.dash : s.dashed ? [6, 4] : [],
      pointRadius: s.pointRadius ?? (showLine ? 0 : 3),
      ...(s.pointStyle ? { pointStyle: s.pointStyle } : {}),
      pointHoverRadius: 4,
      showLine,
      fill: s.fillTo === undefined ? false : s.fillTo === 'origin' ? 'origin' : s.fillTo,
      yAxisID: s.rightAxis ? 'y2' : 'y',
      tension: 0,
      spanGaps: false,
      // A point at the plot's edge (a one-step run, the last level of a sweep) is drawn whole.
      clip: 8,
    };
  });
  const scales: Record<string, ScaleOptionsByType<'linear'>> = {
    x: axisOptions(spec.x, theme, 'bottom', true),
    y: axisOptions(spec.y, theme, 'left', true),
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
      interaction: { mode: 'nearest', intersect: false, axis: 'x' },
      scales,
      plugins: {
        legend: {
          // A line swatch shows each series' dash, which a filled box blurs.
          labels: { color: theme.foreground, usePointStyle: true, pointStyle: 'line', pointStyleWidth: 24, generateLabels: (chart: Chart) => legendItems(chart, spec) },
          onClick: (event: unknown, item: LegendItem, legend: unknown) => {
            if ((item.datasetIndex ?? -1) >= 0) defaultLegendClick.call(legend as never, event as never, item, legend as never);
          },
        },
        llmBenchMarkers: { markers: spec.markers ?? [], color: theme.mutedForeground, font: `${theme.fontSize - 1}px ${theme.fontFamily}` },
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
  const where = spec.x.unit ? `${formatTick(x)} ${spec.x.unit}` : `${spec.x.title}: ${formatTick(x)}`;
  const names = [...new Set(items.flatMap((i) => spec.series[i.datasetIndex]?.pointLabels?.[i.dataIndex] ?? []))];
  return names.length ? [names.join(', '), where] : [where];
}

/**
 * The legend's entries: series with data that are not helpers, at most LEGEND_LIMIT of them, the
 * rest counted in a last entry, so that a chart of many runs stays mostly plot.
 */
function legendItems(chart: Chart, spec: ChartSpec): LegendItem[] {
  const shown = Chart.defaults.plugins.legend.labels.generateLabels(chart).filter((item) => {
    const series = spec.series[item.datasetIndex ?? -1];
    return series !== undefined && !series.hideInLegend && series.data.length > 0;
  });
  return capLegend(shown, (text) => ({ text, fillStyle: 'transparent', strokeStyle: 'transparent', lineWidth: 0, hidden: false, datasetIndex: -1 }));
}

/** At most LEGEND_LIMIT entries: past it, the first LEGEND_LIMIT - 1 and an entry "+N more" made by `more`. */
export function capLegend<T>(shown: T[], more: (text: string) => T): T[] {
  if (shown.length <= LEGEND_LIMIT) return shown;
  const hidden = shown.length - (LEGEND_LIMIT - 1);
  return [...shown.slice(0, LEGEND_LIMIT - 1), more(`+${hidden} more`)];
}

/** A chart on a canvas, redrawn from new specs or themes without animation. */
export class SpecChart {
  readonly chart: Chart<'line' | 'scatter', Point[]>;
  private spec: ChartSpec;
  private theme: Theme;

  constructor(canvas: HTMLCanvasElement, spec: ChartSpec, theme: Theme) {
    this.spec = spec;
    this.theme = theme;
    this.chart = new Chart(canvas, { ...chartConfig(spec, theme), plugins: [markerPlugin] } as ChartConfiguration<'line' | 'scatter', Point[]>);
  }

  update(spec: ChartSpec): void {
    this.spec = spec;
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
