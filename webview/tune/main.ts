/**
 * The custom editor of `*.llmtune.json`: the tune's objective, best trial (with its command line to
 * copy), trials table (a row opens the trial's result), the objective per trial, the Pareto front
 * of throughput against the SLO metric, and the objective against each parameter. A file that
 * cannot be read shows the reason and an "Open as Text" button.
 */
import '../shared/zod-csp';
import { HostToTuneMessageSchema, type HostToTuneMessage } from '../../src/format/messages/tune';
import type { TuneRequest } from '../../src/format/messages/from-views';
import { byId, el, errorBanner, replaceChildren } from '../shared/dom';
import { onThemeChange } from '../shared/theme';
import { statusBadge, button } from '../shared/toolkit';
import { connectToHost } from '../shared/vscode-api';
import { notesSection, toolbar } from '../result/render';
import { bestSection, objectiveList, trialsTable, TuneCharts } from './render';
import { t } from '../shared/l10n';

const host = connectToHost<HostToTuneMessage, TuneRequest>({ events: HostToTuneMessageSchema });
const app = byId('app');
const charts = new TuneCharts((chartId) => void host.ask({ type: 'save-png', chartId }));
onThemeChange((theme) => charts.setTheme(theme));
host.charts((chartId) => charts.pngOf(chartId));

host.start((message) => {
  app.setAttribute('aria-busy', 'false');
  if (message.type === 'error') {
    replaceChildren(app, [
      el('section', { className: 'load-error' }, [
        el('h1', { text: message.fileName }),
        errorBanner(t('This file cannot be shown as an LLM Bench tune.'), message.message),
        toolbar([button(t('Open as Text'), () => void host.ask({ type: 'open-as-text' }), 'primary', 'open-as-text')]),
      ]),
    ]);
    return;
  }
  const { view } = message;
  replaceChildren(app, [
    el('section', { className: 'tune-summary' }, [
      el('h1', {}, [view.fileName, ' ', statusBadge(view.status)]),
      el('p', { className: 'headline', attrs: { id: 'tune-headline' }, text: view.headline }),
      objectiveList(view),
    ]),
    notesSection(view.notes),
    bestSection(view.best, () => void host.ask({ type: 'copy-best-command' })),
    el('h2', { text: t('Trials') }),
    trialsTable(view, (trial) => void host.ask({ type: 'open-trial', trial })),
    el('h2', { text: t('Charts') }),
    ...charts.sections(view),
  ]);
  // The table paints first; the charts follow on the next frame.
  requestAnimationFrame(() => charts.show(view, true));
});
