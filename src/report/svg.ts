/**
 * Line charts drawn as SVG text: the exported HTML report needs no script and no network to show
 * them, and any browser (or a mail client) renders them as they were saved.
 */
import { formatTick } from '../views/number-format';
import type { ReportChart } from '../views/report';

/** Eight colours distinguishable on white and in common colour-vision deficiencies (Okabe-Ito, darkened yellow). */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#56B4E9', '#E69F00', '#000000', '#8C7A00'];

export const colorOf = (index: number): string => PALETTE[index % PALETTE.length] ?? '#000000';

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

/** Powers of ten around the values, labelled at 1, 2 and 5 times each (src/views/axis.ts). */
function logScale(values: number[], length: number): Scale {
  const positive = values.filter((v) => v > 0);
  const lo = Math.floor(Math.log10(Math.min(...positive)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...positive))));
  const ticks: number[] = [];
  for (let power = lo; power <= hi; power++) for (const m of [1, 2, 5]) if (power < hi || m === 1) ticks.push(Number((m * 10 ** power).toPrecision(12)));
  return { ticks, at: (v) => ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * length };
}


export function svgLineChart(chart: ReportChart, width = 640, height = 320): string {
  const margin = { left: 64, right: 16, top: 28, bottom: 44 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const points = chart.curves.flatMap((c) => c.points);
  const x = chart.xLog ? logScale(points.map((p) => p.x), plotW) : linearScale(points.map((p) => p.x), plotW);
  const xTicks = x.ticks;
  const yTicks = niceTicks(Math.max(0, ...points.map((p) => p.y)));
  const yMax = yTicks.at(-1) ?? 1;
  const sx = (v: number) => margin.left + x.at(v);
  const sy = (y: number) => margin.top + plotH - (y / yMax) * plotH;
  const f = (n: number) => n.toFixed(1);

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(chart.title)}" data-chart="${escapeXml(chart.id)}">`,
    `<text x="${margin.left}" y="18" class="chart-title">${escapeXml(chart.title)}</text>`,
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
  parts.push(`<text x="${margin.left + plotW / 2}" y="${height - 6}" text-anchor="middle" class="axis-title">${escapeXml(chart.xTitle)}</text>`);
  parts.push(`<text transform="translate(14 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle" class="axis-title">${escapeXml(chart.yTitle)}</text>`);
  if (points.length === 0) {
    parts.push(`<text x="${margin.left + plotW / 2}" y="${margin.top + plotH / 2}" text-anchor="middle" class="empty">no data in these runs</text>`);
  }
  for (const curve of chart.curves) {
    if (curve.points.length === 0) continue;
    const color = colorOf(curve.color);
    const path = curve.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${f(sx(p.x))},${f(sy(p.y))}`).join(' ');
    parts.push(
      `<g class="curve" data-run="${curve.run}"><title>${escapeXml(curve.name)}</title>` +
        `<path d="${path}" fill="none" stroke="${color}" stroke-width="2"${curve.dashed ? ' stroke-dasharray="6 4"' : ''}/>` +
        curve.points.map((p) => `<circle cx="${f(sx(p.x))}" cy="${f(sy(p.y))}" r="3" fill="${color}"><title>${escapeXml(`${curve.name}: ${p.step} (${formatTick(p.x)}, ${formatTick(p.y)})`)}</title></circle>`).join('') +
        '</g>',
    );
    for (const mark of curve.marks) {
      const [mx, my] = [sx(mark.point.x), sy(mark.point.y)];
      // A triangle above the point where the KV cache filled, a square below where requests kept waiting: told apart by shape, not colour alone.
      const shape =
        mark.kind === 'kv-cache-full'
          ? `<path d="M${f(mx)},${f(my - 21)} l6,10 h-12 z" fill="none" stroke="${color}" stroke-width="2"/>`
          : `<rect x="${f(mx - 5)}" y="${f(my + 10)}" width="10" height="10" fill="none" stroke="${color}" stroke-width="2"/>`;
      // Clear of the knee's ring (radius 7), which may sit on the same point.
      const label = mark.kind === 'kv-cache-full' ? 'KV 95%' : 'queue';
      const labelY = mark.kind === 'kv-cache-full' ? my - 12 : my + 20;
      parts.push(`<g class="server-mark" data-kind="${mark.kind}" data-run="${curve.run}"><title>${escapeXml(`${curve.name}: ${mark.kind === 'kv-cache-full' ? 'KV cache first at 95%' : 'requests first kept waiting'} in ${mark.point.step}`)}</title>${shape}<text x="${f(mx - 9)}" y="${f(labelY)}" text-anchor="end" class="knee-label" fill="${color}">${label}</text></g>`);
    }
    if (curve.knee) {
      const { x, y } = curve.knee;
      parts.push(
        `<g class="knee" data-run="${curve.run}"><circle cx="${f(sx(x))}" cy="${f(sy(y))}" r="7" fill="none" stroke="${color}" stroke-width="2"/>` +
          `<text x="${f(sx(x) + 9)}" y="${f(sy(y) - 8)}" class="knee-label" fill="${color}">knee</text></g>`,
      );
    }
  }
  parts.push('</svg>');
  return parts.join('');
}
