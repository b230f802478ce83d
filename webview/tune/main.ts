/**
 * The custom editor of `*.llmtune.json`: the tune's objective, best trial (with its command line to
 * copy), trials table (a row opens the trial's result), the objective per trial, the Pareto front
 * of throughput against the SLO metric, and the objective against each parameter. A file that
 * cannot be read shows the reason and an "Open as Text" button.
 */
import '../shared/zod-csp';
import { HostToTuneMessageSchema, TuneToHostMessageSchema, type HostToTuneMessage, type TuneToHostMessage } from '../../src/format/messages/tune';
import { byId, el, errorBanner, replaceChildren } from '../shared/dom';
import { onThemeChange } from '../shared/theme';
import { badge, button } from '../shared/toolkit';
import { connectToHost } from '../shared/vscode-api';
import { notesSection, toolbar } from '../result/render';
import { bestSection, objectiveList, trialsTable, TuneCharts } from './render';

const host = connectToHost<HostToTuneMessage, TuneToHostMessage>({ incoming: HostToTuneMessageSchema, outgoing: TuneToHostMessageSchema });
const app = byId('app');
const charts = new TuneCharts((chartId, dataUrl) => host.post({ type: 'png', chartId, dataUrl }));
onThemeChange((theme) => charts.setTheme(theme));

// The host posts a view as soon as it has one and again when this page says `ready`: drawn once.
let lastDrawn: string | undefined;

host.listen(
  (message) => {
    const key = JSON.stringify(message);
    if (key === lastDrawn) return;
    lastDrawn = key;
    app.setAttribute('aria-busy', 'false');
    if (message.type === 'error') {
      replaceChildren(app, [
        el('section', { className: 'load-error' }, [
          el('h1', { text: message.fileName }),
          errorBanner('This file cannot be shown as an LLM Bench tune.', message.message),
          toolbar([button('Open as Text', () => host.post({ type: 'open-as-text' }), 'primary', 'open-as-text')]),
        ]),
      ]);
      return;
    }
    const { view } = message;
    replaceChildren(app, [
      el('section', { className: 'tune-summary' }, [
        el('h1', {}, [view.fileName, ' ', badge(view.status)]),
        el('p', { className: 'headline', attrs: { id: 'tune-headline' }, text: view.headline }),
        objectiveList(view),
      ]),
      notesSection(view.notes),
      bestSection(view.best, () => host.post({ type: 'copy-best-command' })),
      el('h2', { text: 'Trials' }),
      trialsTable(view, (trial) => host.post({ type: 'open-trial', trial })),
      el('h2', { text: 'Charts' }),
      ...charts.sections(view),
    ]);
    // The table paints first; the charts follow on the next frame.
    requestAnimationFrame(() => charts.show(view, true));
  },
  (reason) => app.prepend(errorBanner('A message from LLM Bench could not be read.', reason)),
);
host.post({ type: 'ready' });
