/**
 * Multi-turn runs: statistics by turn index. A conversation's later turns resend a longer history,
 * so their TTFT shows what the server's prefix cache saves (flat) or does not (rising with the turn).
 */
import { stepLabel } from '../format/step-name';
import { computeStats, isMeasured } from '../results/stats';
import type { ChartSeries, ViewChart } from '../format/messages/result';
import type { RequestRecord, Stats, Step } from '../format/result';

/** Charts hold a line per step up to this many; more would be unreadable. */
const MAX_TURN_SERIES = 8;

/** TTFT statistics of a step's measured, successful turns, by turn index (0-based); empty for single requests. */
export function ttftByTurn(requests: readonly RequestRecord[]): { turn: number; stats: Stats }[] {
  const byTurn = new Map<number, number[]>();
  for (const r of requests) {
    if (r.turn === null || r.turn === undefined || !isMeasured(r) || r.error !== null || r.firstTokenMs === null) continue;
    byTurn.set(r.turn, [...(byTurn.get(r.turn) ?? []), r.firstTokenMs - r.sentMs]);
  }
  return [...byTurn]
    .sort(([a], [b]) => a - b)
    .flatMap(([turn, values]) => {
      const stats = computeStats(values);
      return stats ? [{ turn, stats }] : [];
    });
}

/** "TTFT by turn": a p50 line per step (turn 1, 2, ... on x), for runs whose records carry turns; none otherwise. */
export function turnCharts(steps: readonly Step[]): ViewChart[] {
  const series: ChartSeries[] = steps
    .map((step) => ({ step, turns: ttftByTurn(step.requests) }))
    .filter(({ turns }) => turns.length > 0)
    .slice(0, MAX_TURN_SERIES)
    .map(({ step, turns }, i) => ({
      label: `${stepLabel(step)} p50`,
      points: turns.map(({ turn, stats }): [number, number] => [turn + 1, stats.p50 ?? stats.mean]),
      colorIndex: i,
    }));
  if (series.length === 0) return [];
  return [{ id: 'ttft-by-turn', title: 'TTFT by turn (p50)', metric: 'ttftMs', xLabel: 'Turn of the conversation', yLabel: 'TTFT (ms)', series }];
}
