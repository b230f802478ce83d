/**
 * Line charts drawn as SVG text: the exported HTML report needs no script and no network to show
 * them, and any browser (or a mail client) renders them as they were saved.
 */
import { axisTitle } from '../views/axis';
import { DASH_PATTERNS } from '../views/chart-spec';
import { readableOn, TEXT_CONTRAST } from '../views/contrast';
import { formatTick } from '../views/number-format';
import { reportChartText, type ReportChart } from '../views/report';
import { english, type Translate } from '../views/l10n';

/** The exported page's background: every colour drawn on it is made readable there. */
export const PAGE_BACKGROUND = '#ffffff';

/**
 * Eight colours told apart in common colour-vision deficiencies (Okabe-Ito, yellow darkened),
 * each darkened as far as needed for 4.5:1 on the white page: curves (3:1 would do) and the
 * labels written in their colour. Sky blue and orange were 2.1:1 and 2.0:1 as they were.
 */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#56B4E9', '#E69F00', '#000000', '#8C7A00'].map((color) => readableOn(color, PAGE_BACKGROUND, TEXT_CONTRAST));

export const colorOf = (index: number): string => PALETTE[index % PALETTE.length] ?? '#000000';

/** A curve's dash as an SVG attribute (src/views/chart-spec.ts DASH_PATTERNS), empty when solid. */
export function dashAttribute(dash: number): string {
  const pattern = DASH_PATTERNS[dash % DASH_PATTERNS.length] ?? [];
  return pattern.length ? ` stroke-dasharray="${pattern.join(' ')}"` : '';
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Tick values 1, 2 or 5 times a power of ten, about `count` of them, covering [0, max]. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

interface Scale {
  ticks: number[];
  /** Distance from the axis start, in pixels. */
  at(value: number): number;
}

function linearScale(values: number[], length: number): Scale {
  const ticks = niceTicks(Math.max(0, ...values));
  const max = ticks.at(-1) ?? 1;
  return { ticks, at: (v) => (v / max) * length };
}

/**
 * How far (in decades) a value may stray past a power of ten and still be drawn at it: a
 * synchronous step measures 0.98 requests in flight, which is concurrency 1, not a reason to open
 * the axis at 0.1.
 */
const DECADE_SLACK = 0.02;

/**
 * The powers of ten the values span, labelled at 1, 2 and 5 times each (src/views/axis.ts):
 * concurrency 1 to 50 is 1 to 100. A value within DECADE_SLACK of an end is drawn at it.
 */
export function logScale(values: number[], length: number): Scale {
  const positive = values.filter((v) => v > 0);
  const lo = Math.floor(Math.log10(Math.min(...positive)) + DECADE_SLACK);
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...positive)) - DECADE_SLACK));
  const ticks: number[] = [];
  for (let power = lo; power <= hi; power++) for (const m of [1, 2, 5]) if (power < hi || m === 1) ticks.push(Number((m * 10 ** power).toPrecision(12)));
  const clamp = (v: number) => Math.min(hi, Math.max(lo, Math.log10(v)));
  return { ticks, at: (v) => ((clamp(v) - lo) / (hi - lo)) * length };
}

/** A rectangle on the chart, for placing labels where nothing else is written. */
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Width of a label in the charts' 11 px bold font, near enough to keep two apart. */
const labelWidth = (text: string) => text.length * 6.6;
const LABEL_HEIGHT = 11;

/**
 * Where to write a mark's label: the first of right-above, right-below, left-above, left-below of
 * the point that stays inside the plot and clear of every label placed before; null when none
 * does (the mark keeps its tooltip). Pure: tested with labels of knees on the same point.
 */
export function placeLabel(text: string, x: number, y: number, plot: Box, placed: Box[], gap = 8): Box | null {
  const width = labelWidth(text);
  const candidates: Box[] = [
    { x: x + gap, y: y - gap - LABEL_HEIGHT, width, height: LABEL_HEIGHT },
    { x: x + gap, y: y + gap, width, height: LABEL_HEIGHT },
    { x: x - gap - width, y: y - gap - LABEL_HEIGHT, width, height: LABEL_HEIGHT },
    { x: x - gap - width, y: y + gap, width, height: LABEL_HEIGHT },
  ];
  const inside = (b: Box) => b.x >= plot.x && b.y >= plot.y && b.x + b.width <= plot.x + plot.width && b.y + b.height <= plot.y + plot.height;
  const found = candidates.find((b) => inside(b) && !placed.some((p) => overlaps(p, b)));
  if (found) placed.push(found);
  return found ?? null;
}

const MARK_NAMES = { 'kv-cache-full': 'KV cache first at 95%', queueing: 'requests first kept waiting' } as const;

/**
 * A chart as SVG. The page lays two side by side and scales each to half its width: 560 units
 * wide, so that its 11-unit labels stay about 9 px at a 1000 px window.
 */
/** `t`: the report's language (src/views/l10n.ts); the chart's own words are English keys. */
export function svgLineChart(chart: ReportChart, width = 560, height = 300, t: Translate = english): string {
  const margin = { left: 64, right: 16, top: 28, bottom: 44 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const plot: Box = { x: margin.left, y: margin.top, width: plotW, height: plotH };
  const points = chart.curves.flatMap((c) => c.points);
  const x = chart.xLog ? logScale(points.map((p) => p.x), plotW) : linearScale(points.map((p) => p.x), plotW);
  const xTicks = x.ticks;
  const yTicks = niceTicks(Math.max(0, ...points.map((p) => p.y)));
  const yMax = yTicks.at(-1) ?? 1;
  const sx = (v: number) => margin.left + x.at(v);
  const sy = (y: number) => margin.top + plotH - (y / yMax) * plotH;
  const f = (n: number) => n.toFixed(1);

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(reportChartText(chart.title, chart, t))}" data-chart="${escapeXml(chart.id)}">`,
    `<text x="${margin.left}" y="18" class="chart-title">${escapeXml(reportChartText(chart.title, chart, t))}</text>`,
  ];
  for (const t of yTicks) {
    parts.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${f(sy(t))}" y2="${f(sy(t))}" class="grid"/>`);
    parts.push(`<text x="${margin.left - 6}" y="${f(sy(t) + 4)}" text-anchor="end" class="tick">${formatTick(t)}</text>`);
  }
  for (const t of xTicks) {
    parts.push(`<text x="${f(sx(t))}" y="${margin.top + plotH + 16}" text-anchor="middle" class="tick">${formatTick(t)}</text>`);
  }
  parts.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" class="axis"/>`);
  parts.push(`<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${margin.top + plotH}" class="axis"/>`);
  parts.push(`<text x="${margin.left + plotW / 2}" y="${height - 6}" text-anchor="middle" class="axis-title">${escapeXml(axisTitle(reportChartText(chart.xTitle, chart, t), chart.xLog === true, t))}</text>`);
  parts.push(`<text transform="translate(14 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle" class="axis-title">${escapeXml(t(chart.yTitle))}</text>`);
  if (points.length === 0) {
    parts.push(`<text x="${margin.left + plotW / 2}" y="${margin.top + plotH / 2}" text-anchor="middle" class="empty">no data in these runs</text>`);
  }
  const drawn = chart.curves.filter((curve) => curve.points.length > 0);
  // Knees and server marks first, small and outlined, so that the lines and their points are drawn over them.
  for (const curve of drawn) {
    const color = colorOf(curve.color);
    for (const mark of curve.marks) {
      const [mx, my] = [sx(mark.point.x), sy(mark.point.y)];
      // A triangle where the KV cache filled, a square where requests kept waiting: told apart by shape, not colour alone.
      const shape =
        mark.kind === 'kv-cache-full'
          ? `<path d="M${f(mx)},${f(my - 7)} l6,10.5 h-12 z" fill="none" stroke="${color}" stroke-width="1.5"/>`
          : `<rect x="${f(mx - 5)}" y="${f(my - 5)}" width="10" height="10" fill="none" stroke="${color}" stroke-width="1.5"/>`;
      parts.push(`<g class="server-mark" data-kind="${mark.kind}" data-run="${curve.run}"><title>${escapeXml(t('{0}: {1} in {2}', curve.name, t(MARK_NAMES[mark.kind]), mark.point.step))}</title>${shape}</g>`);
    }
    if (curve.knee) {
      parts.push(`<g class="knee" data-run="${curve.run}"><title>${escapeXml(t('{0}: knee at {1}', curve.name, curve.knee.step))}</title><circle cx="${f(sx(curve.knee.x))}" cy="${f(sy(curve.knee.y))}" r="5" fill="none" stroke="${color}" stroke-width="1.5"/></g>`);
    }
  }
  for (const curve of drawn) {
    const color = colorOf(curve.color);
    const path = curve.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${f(sx(p.x))},${f(sy(p.y))}`).join(' ');
    parts.push(
      `<g class="curve" data-run="${curve.run}"><title>${escapeXml(curve.name)}</title>` +
        `<path d="${path}" fill="none" stroke="${color}" stroke-width="2"${dashAttribute(curve.dash)}/>` +
        curve.points.map((p) => `<circle cx="${f(sx(p.x))}" cy="${f(sy(p.y))}" r="2.5" fill="${color}"><title>${escapeXml(`${curve.name}: ${p.step} (${formatTick(p.x)}, ${formatTick(p.y)})`)}</title></circle>`).join('') +
        '</g>',
    );
  }
  // Labels last, each where it overlaps no other; one that finds no room is left to the mark's tooltip.
  const placed: Box[] = [];
  const label = (text: string, px: number, py: number, color: string, kind: string, run: number) => {
    const box = placeLabel(text, px, py, plot, placed);
    if (box) parts.push(`<text x="${f(box.x)}" y="${f(box.y + LABEL_HEIGHT - 1)}" class="mark-label" data-kind="${kind}" data-run="${run}" fill="${color}">${text}</text>`);
  };
  for (const curve of drawn) {
    const color = colorOf(curve.color);
    if (curve.knee) label(escapeXml(t('knee')), sx(curve.knee.x), sy(curve.knee.y), color, 'knee', curve.run);
    for (const mark of curve.marks) label(mark.kind === 'kv-cache-full' ? 'KV 95%' : escapeXml(t('queue')), sx(mark.point.x), sy(mark.point.y), color, mark.kind, curve.run);
  }
  parts.push('</svg>');
  return parts.join('');
}
