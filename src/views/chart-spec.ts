/**
 * Charts and tables described as plain data: what a view model (this folder) computes and the
 * webview's drawing layer (webview/shared/charts.ts, dom.ts) puts on screen: types, the one
 * threshold every time chart is decimated at, and the result view's compact charts as specs.
 */
import type { ViewChart } from '../format/messages/result';
import type { Translate } from './l10n';

/** Time series lines with more points than this are drawn decimated (LTTB). */
export const DECIMATE_ABOVE = 600;

/** Series colours a view can tell apart: the theme's palette in the webviews, the export's on its white page. */
export const PALETTE_SIZE = 8;

/** Line dashes by index (`SeriesSpec.dash`), as canvas and SVG take them: solid, dashed, dotted, dash-dot. */
export const DASH_PATTERNS: readonly (readonly number[])[] = [[], [7, 4], [2, 3], [9, 3, 2, 3]];

export interface Point {
  x: number;
  y: number;
}

export interface AxisSpec {
  title: string;
  /** Put after the value in tooltips ("12.5 s"). */
  unit?: string;
  log?: boolean;
  min?: number;
  max?: number;
  /** Distance between ticks, when the view fixes it (time axes, so that their labels are round). */
  step?: number;
  /** A category axis drawn on a linear one: the value i is labelled `categories[i]` (choices, on/off). */
  categories?: string[];
  /** Whole numbers only (trials): a tick at every whole number, no label between. */
  integer?: boolean;
}

export interface SeriesSpec {
  label: string;
  /** Sorted by x for lines (decimation and fast lookup rely on it). */
  data: Point[];
  /** A palette index, or a theme colour by role. Defaults to the series' position. */
  color?: number | 'error' | 'warning' | 'success' | 'muted';
  dashed?: boolean;
  /** A dash pattern by index into DASH_PATTERNS (overrides `dashed`). */
  dash?: number;
  /** A percentile line: p50 solid, p90 dotted, p99 dashed, each a shade of its own (overrides `dashed`). */
  percentile?: 'p50' | 'p90' | 'p99';
  /** false draws points only. */
  showLine?: boolean;
  /** Point radius; lines default to none (points cost time and hide the shape at scale). */
  pointRadius?: number;
  /** The points' shape (default circle): marks of different meaning differ by shape, not colour alone. */
  pointStyle?: 'circle' | 'triangle' | 'rect';
  /** Points drawn as outlines, so that one drawn over another point leaves it in view. */
  hollow?: boolean;
  /** Fills down to another series (by index in `series`, for percentile bands) or to zero. */
  fillTo?: number | 'origin';
  /** Band edges and other helpers stay out of the legend. */
  hideInLegend?: boolean;
  /** An edge of an interval band: no line of its own (it would read as another curve), only the fill to its pair. */
  band?: boolean;
  /** Plots against the right-hand axis (`spec.y2`). */
  rightAxis?: boolean;
  /** Drawn faintly: marks behind the figure that stands for them (each repeat behind the mean). */
  faint?: boolean;
  /** What each point is (by index in `data`): its tooltip's title, instead of the bare x value. */
  pointLabels?: string[];
  /** A line under each point's value in its tooltip. */
  pointNotes?: string[];
  /** Drawn under the other series (marks that must not hide the data). */
  behind?: boolean;
}

export interface ChartSpec {
  /** `bar`: one bar a category of the x axis (x is its index), a segment a series when `stacked`. */
  kind: 'line' | 'scatter' | 'bar';
  stacked?: boolean;
  x: AxisSpec;
  y: AxisSpec;
  y2?: AxisSpec;
  series: SeriesSpec[];
  /** Lines with more points than this are drawn with LTTB decimation; undefined never decimates. */
  decimateAbove?: number;
  /** Vertical marks on the x axis, each named at the top of the plot (where each step began). */
  markers?: { x: number; label: string }[];
  /** false: no legend on the chart (the page has one for all its charts). */
  legend?: boolean;
}

export interface TableColumn {
  /** Header text; `unit` is shown on a second line, as GuideLLM's tables do. */
  label: string;
  unit?: string;
  /** Right-aligned numbers. */
  numeric?: boolean;
  /** Shown on hover over the header: what the metric means. */
  description?: string;
}

/** The view's chart (compact [x, y] pairs) as a shared chart spec. */
export function resultChartSpec(chart: ViewChart): ChartSpec {
  if (chart.kind === 'stacked-bar') {
    return {
      kind: 'bar',
      stacked: true,
      x: { title: chart.xLabel, categories: chart.categories ?? [] },
      y: { title: chart.yLabel },
      series: chart.series.map((s) => ({ label: s.label, data: s.points.map(([x, y]) => ({ x, y })), color: s.colorIndex })),
    };
  }
  const xMax = chart.xMax ?? Math.max(0, ...chart.series.flatMap((s) => s.points.map(([x]) => x)));
  return {
    kind: 'line',
    x: {
      title: chart.xLabel,
      ...(chart.xLog ? { log: true } : {}),
      // Run time from 0, ticked at round times; a log axis ends at its last level; a linear one at a round number past it.
      ...(chart.timeAxis && xMax > 0
        ? { min: 0, ...timeTicks(0, xMax) }
        : chart.xMax !== undefined
          ? { max: chart.xLog ? chart.xMax : niceCeiling(chart.xMax) }
          : {}),
    },
    y: { title: chart.yLabel, ...(chart.yMax !== undefined ? { max: niceCeiling(chart.yMax) } : {}) },
    ...(chart.markers ? { markers: chart.markers } : {}),
    // A series over a long run's time has thousands of scrapes: drawn decimated, as the live panel's are.
    ...(chart.series.some((s) => s.points.length > DECIMATE_ABOVE) ? { decimateAbove: DECIMATE_ABOVE } : {}),
    series: chart.series.map((s, i) => ({
      label: s.label,
      data: s.points.map(([x, y]) => ({ x, y })),
      color: s.colorIndex,
      ...(s.dashed ? { dashed: true } : {}),
      ...(s.percentile ? { percentile: s.percentile } : {}),
      // A load curve has a handful of points: show them; a distribution curve is a line; a band's edge is neither.
      pointRadius: s.bandEdge ? 0 : s.points.length <= 20 ? 3 : 0,
      ...(s.fillToPrevious && i > 0 ? { fillTo: i - 1 } : {}),
      ...(s.bandEdge ? { hideInLegend: true, band: true } : {}),
      ...(s.eachRepeat ? { showLine: false, faint: true, hollow: true } : {}),
      ...(s.pointStyle ? { pointStyle: s.pointStyle } : {}),
      ...(s.pointLabels ? { pointLabels: s.pointLabels } : {}),
      ...(s.pointNotes ? { pointNotes: s.pointNotes } : {}),
    })),
  };
}

/**
 * The spec in the display language: its axis titles and series names looked up by their English
 * text (a name that is data, a step's or a run's, is no key and stays as it is). Every chart of every
 * webview is drawn through this (webview/shared/charts.ts).
 */
export function localizedSpec(spec: ChartSpec, t: Translate): ChartSpec {
  const axis = (a: AxisSpec): AxisSpec => ({ ...a, title: t(a.title) });
  return { ...spec, x: axis(spec.x), y: axis(spec.y), ...(spec.y2 ? { y2: axis(spec.y2) } : {}), series: spec.series.map((s) => ({ ...s, label: t(s.label) })) };
}

/** The chart without each repeat's faint points, unless the reader asked for them (the result and compare views' toggle). */
export function withRepeatPoints(chart: ViewChart, shown: boolean): ViewChart {
  return shown || !chart.series.some((s) => s.eachRepeat) ? chart : { ...chart, series: chart.series.filter((s) => !s.eachRepeat) };
}

/** A round axis maximum at or above `value` (1, 2, 2.5, 5 times a power of ten), as chart.js would pick. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  // A round value is its own ceiling (KV-cache usage ends at 100%, not 200%); float noise just above one is not.
  const step = [1, 2, 2.5, 5, 10].find((m) => m * power >= value * (1 - 1e-9)) ?? 10;
  return step * power;
}

/**
 * Ticks of a time axis: a step of 1, 2 or 5 times a power of ten (about six ticks), and the end
 * rounded up to a whole step, so that every label is a round time and none crowds the last.
 */
export function timeTicks(min: number, max: number): { max: number; step: number } {
  const raw = (max - min) / 6;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  return { max: min + Math.ceil((max - min) / step - 1e-9) * step, step };
}
