/**
 * Report model to what the page draws, as pure functions tested without a browser: chart specs
 * with each run's curve and its knee as a ringed point, and the ranking table's columns (its rows
 * come from src/report/model.ts, shared with the HTML export).
 */
import type { ReportChart } from '../../src/views/report';
import type { ChartSpec, SeriesSpec } from '../../src/views/chart-spec';

export function chartSpec(chart: ReportChart): ChartSpec {
  const series: SeriesSpec[] = chart.curves.flatMap((curve): SeriesSpec[] => {
    const line: SeriesSpec = {
      label: curve.name,
      data: curve.points.map(({ x, y }) => ({ x, y })),
      color: curve.color,
      dashed: curve.dashed,
      pointRadius: 3,
    };
    const knee: SeriesSpec[] = curve.knee
      ? [{ label: `${curve.name} knee (${curve.knee.step})`, data: [{ x: curve.knee.x, y: curve.knee.y }], color: curve.color, showLine: false, pointRadius: 8, hideInLegend: true }]
      : [];
    const marks = curve.marks.map((mark): SeriesSpec => ({
      label: `${curve.name} ${MARK_WORDS[mark.kind]} (${mark.point.step})`,
      data: [{ x: mark.point.x, y: mark.point.y }],
      color: curve.color,
      showLine: false,
      // Outlines larger than the knee's point, which may sit on the same step.
      pointRadius: mark.kind === 'kv-cache-full' ? 13 : 11,
      pointStyle: mark.kind === 'kv-cache-full' ? 'triangle' : 'rect',
      hollow: true,
      hideInLegend: true,
    }));
    return [line, ...knee, ...marks];
  });
  return { kind: 'line', x: { title: chart.xTitle, ...(chart.xLog ? { log: true } : {}) }, y: { title: chart.yTitle }, series };
}

const MARK_WORDS = { 'kv-cache-full': 'KV cache first at 95%', queueing: 'requests first kept waiting' } as const;

export const RANKING_COLUMNS = ['Rank', 'Run', 'Group', 'Step meeting the SLO', 'Load', 'Requests/s', 'Output tok/s', 'TTFT', 'TPOT', 'Latency', 'Goodput', 'Knee'];
