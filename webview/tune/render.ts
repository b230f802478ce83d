/**
 * DOM of the tune views (the `*.llmtune.json` editor and the live tune panel): the trials table,
 * the best command line, and the chart boards. Every string from the file (parameter values,
 * reasons, commands) is set as text only.
 */
import type { BestView, TuneChart, TuneView } from '../../src/format/messages/tune';
import { tuneChartSpec } from '../../src/views/tune';
import { el, scrollBox, type Child } from '../shared/dom';
import { button } from '../shared/toolkit';
import { ChartBoard, type BoardChart } from '../result/render';
import { t } from '../shared/l10n';

// A long parameter name (max_num_batched_tokens) wraps after an underscore rather than being cut.
const boardChart = (chart: TuneChart): BoardChart => ({ id: chart.id, title: chart.title.replace(/_/g, '_\u200b'), hint: chart.description, spec: tuneChartSpec(chart) });

/**
 * The trials table. A row whose trial measured something opens its result file on click (or Enter);
 * the best trial's row is marked. Reasons wrap rather than widen the table.
 */
export function trialsTable(view: TuneView, onOpenTrial: (trial: number) => void): HTMLElement {
  const head = el('tr', {}, view.columns.map((c) =>
    el('th', { className: c.numeric ? 'num' : '', attrs: { scope: 'col' }, ...(c.description ? { title: t(c.description) } : {}) }, [
      // Long parameter names (max_num_batched_tokens) may wrap after an underscore, so the table fits a narrow editor.
      t(c.label).replace(/_/g, '_\u200b'),
      c.unit ? el('span', { className: 'unit', text: t(c.unit) }) : null,
    ]),
  ));
  const body = view.rows.map((row) => {
    const cells = row.cells.map((cell, i) => {
      const column = view.columns[i];
      return el('td', { className: [column?.numeric ? 'num' : '', column?.wrap ? 'wrap' : '', column?.breaks ? 'breaks' : ''].filter(Boolean).join(' '), text: cell });
    });
    const opens = row.resultFile !== null;
    const tr = el(
      'tr',
      {
        className: [`trial-${row.status}`, row.best ? 'best-trial' : '', row.tie ? 'tie-trial' : '', opens ? 'opens' : ''].filter(Boolean).join(' '),
        attrs: { 'data-trial': String(row.trial), ...(opens ? { tabindex: '0', role: 'link' } : {}) },
        ...(opens ? { title: row.tie ? t("Open trial {0}'s result (within noise of the best)", row.trial) : t("Open trial {0}'s result", row.trial) } : {}),
      },
      cells,
    );
    if (opens) {
      tr.addEventListener('click', () => onOpenTrial(row.trial));
      tr.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') onOpenTrial(row.trial);
      });
    }
    return tr;
  });
  return scrollBox(el('table', { className: 'data-table trials-table' }, [el('thead', {}, [head]), el('tbody', {}, body)]));
}

/**
 * The best trial: its figure (with its interval once re-measured) and how it was measured, the
 * trials tied with it within noise, the noise, its parameters, its command line as the user wrote
 * it and (with `onCopy`) a Copy button.
 */
export function bestSection(best: BestView | null, onCopy?: () => void): HTMLElement {
  if (!best) return el('section', { className: 'best', attrs: { id: 'best' } }, [el('h2', { text: t('Best') }), el('p', { className: 'muted', text: t('No trial has met the SLOs yet.') })]);
  const tied = best.ties.length > 0 ? (best.ties.length === 1 ? t(', tied with trial {0}', best.ties.join(', ')) : t(', tied with trials {0}', best.ties.join(', '))) : '';
  return el('section', { className: 'best', attrs: { id: 'best' } }, [
    el('h2', { text: `${t('Best: trial {0}', best.trial)}${tied}` }),
    el('p', {}, [el('strong', { text: best.objective }), ` ${t('({0}) with {1}', best.measured, best.params)}`]),
    best.tieText ? el('p', { className: 'tie-note', attrs: { id: 'best-ties' }, text: best.tieText }) : null,
    best.noise ? el('p', { className: 'muted', attrs: { id: 'best-noise' }, text: best.noise }) : null,
    el('div', { className: 'command-line' }, [
      el('pre', { attrs: { id: 'best-command' } }, [el('code', { text: best.commandLine })]),
      onCopy ? button(t('Copy'), onCopy, 'secondary', 'copy-best-command') : null,
    ]),
  ]);
}

/** The charts of a tune view: objective per trial and the Pareto front first, then one small chart per parameter. */
export class TuneCharts {
  readonly main: ChartBoard;
  readonly effects: ChartBoard;

  constructor(onSavePng?: (chartId: string) => void) {
    this.main = new ChartBoard(onSavePng);
    this.effects = new ChartBoard(onSavePng, 'chart-grid effects-grid');
  }

  show(view: TuneView, withPareto: boolean): void {
    this.main.showCharts([view.progress, ...(withPareto && view.pareto ? [view.pareto] : [])].map(boardChart));
    this.effects.showCharts(view.effects.map(boardChart));
  }

  sections(view: TuneView): Child[] {
    const hasEffects = view.effects.some((chart) => chart.series.some((s) => s.points.length > 0));
    return [
      this.main.element,
      el('h2', { text: t('Parameter effects'), title: t('The objective of each trial against each parameter') }),
      hasEffects ? null : el('p', { className: 'muted', text: t('No trial has an objective yet: each parameter\'s chart appears once one has.') }),
      this.effects.element,
    ];
  }

  pngOf(chartId: string): string | undefined {
    return this.main.pngOf(chartId) ?? this.effects.pngOf(chartId);
  }

  setTheme(...args: Parameters<ChartBoard['setTheme']>): void {
    this.main.setTheme(...args);
    this.effects.setTheme(...args);
  }
}

/** The tune's objective and SLOs as a key-value list. */
export function objectiveList(view: TuneView): HTMLElement {
  return el('dl', { className: 'kv' }, [
    el('dt', { text: t('Maximizes') }),
    el('dd', { text: view.objective }),
    el('dt', { text: t('SLOs') }),
    el('dd', { text: view.slo.length > 0 ? view.slo.join(' · ') : t('none') }),
  ]);
}
