/**
 * A run over several endpoints (replicas of one model, `endpoints` in its config), endpoint by
 * endpoint: each step's figures per endpoint beside its total, which endpoint was slower, and what
 * failover did. For the result view, compare, the report and the command line alike. Pure.
 */
import type { ResultDocument, ResultOverview, Step, StepSummary } from '../format/result';
import { stepLabel } from '../format/step-name';
import { summarizeStep } from '../results/stats';
import { fixed } from './number-format';
import { english, type Translate } from './l10n';
import { sayWarning } from './step-warnings';

/** A column of a text table, as the result and compare views carry them. */
export interface EndpointTableColumn {
  label: string;
  unit?: string;
  numeric?: boolean;
  description?: string;
}

export interface EndpointTable {
  columns: EndpointTableColumn[];
  rows: string[][];
}

type AnyStep = Pick<Step, 'name' | 'profile' | 'summary'> & Partial<Pick<Step, 'repeat' | 'requests' | 'endpoints' | 'failovers'>>;
type AnyDoc = Pick<ResultOverview, 'endpoints' | 'config'> & { steps: readonly AnyStep[] };

/** How an endpoint is named where a person reads it: its index and its (redacted) URL. */
export function endpointName(doc: Pick<ResultDocument, 'endpoints'>, index: number): string {
  const url = doc.endpoints?.[index]?.baseUrl;
  return url === undefined ? `#${index}` : `#${index} ${url}`;
}

/**
 * Each endpoint's summary of a step: as the run wrote it, or (a step cut short, a file written
 * before its end) from the step's records. Empty for a run with one endpoint.
 */
export function stepEndpointSummaries(doc: AnyDoc, step: AnyStep): { endpoint: number; summary: StepSummary }[] {
  if (doc.endpoints === undefined) return [];
  if (step.endpoints !== undefined) return step.endpoints;
  const records = step.requests ?? [];
  const indexes = [...new Set(records.flatMap((r) => (r.endpoint === undefined ? [] : [r.endpoint])))].sort((a, b) => a - b);
  return indexes.map((endpoint) => ({ endpoint, summary: summarizeStep(records.filter((r) => r.endpoint === endpoint), step.profile) }));
}

const COLUMNS: EndpointTableColumn[] = [
  { label: 'Step' },
  { label: 'Endpoint' },
  { label: 'Requests', numeric: true, description: 'Measured requests sent to the endpoint (warm-up and cancelled ones left out).' },
  { label: 'Failed', numeric: true, description: 'Requests to the endpoint that failed, by kind when any did.' },
  { label: 'Requests/s', unit: 'req/s', numeric: true, description: "Completed requests per second over the endpoint's own span in the step (first send to last completion)." },
  { label: 'Output tok/s', unit: 'tok/s', numeric: true },
  { label: 'TTFT p50', unit: 'ms', numeric: true },
  { label: 'TTFT p99', unit: 'ms', numeric: true },
  { label: 'TPOT p50', unit: 'ms', numeric: true },
  { label: 'Latency p50', unit: 's', numeric: true },
];

function cells(summary: StepSummary | null): string[] {
  if (summary === null) return COLUMNS.slice(2).map(() => '–');
  const errors = Object.entries(summary.errors).filter(([kind, n]) => n > 0 && kind !== 'cancelled');
  return [
    String(summary.requests.total),
    summary.requests.failed === 0 ? '0' : `${summary.requests.failed} (${errors.map(([kind, n]) => `${n} ${kind}`).join(', ')})`,
    fixed(summary.requestsPerSecond),
    fixed(summary.outputTokensPerSecond),
    fixed(summary.ttftMs?.p50),
    fixed(summary.ttftMs?.p99),
    fixed(summary.tpotMs?.p50),
    fixed(summary.latencyMs?.p50 === undefined || summary.latencyMs?.p50 === null ? null : summary.latencyMs.p50 / 1000),
  ];
}

/** One row per step and endpoint, after the step's total; null for a run with one endpoint. */
export function endpointTable(doc: AnyDoc, t: Translate = english): EndpointTable | null {
  if (doc.endpoints === undefined) return null;
  const rows: string[][] = [];
  for (const step of doc.steps) {
    rows.push([stepLabel(step), t('all'), ...cells(step.summary)]);
    for (const { endpoint, summary } of stepEndpointSummaries(doc, step)) rows.push([stepLabel(step), endpointName(doc, endpoint), ...cells(summary)]);
  }
  return { columns: COLUMNS, rows };
}

/** An endpoint this much slower than the quickest (TTFT p50, or output tokens/s per request in flight) is named. */
export const SLOWER_RATIO = 1.25;

/**
 * What stands out per endpoint: an endpoint whose median TTFT or TPOT is SLOWER_RATIO or more
 * times the quickest one's in a step, an endpoint with failures, failover events.
 */
export function endpointNotes(doc: AnyDoc, t: Translate = english): string[] {
  if (doc.endpoints === undefined) return [];
  const notes: string[] = [];
  for (const step of doc.steps) {
    const per = stepEndpointSummaries(doc, step);
    for (const metric of ['ttftMs', 'tpotMs'] as const) {
      const figures = per.flatMap(({ endpoint, summary }) => {
        const p50 = summary[metric]?.p50;
        return p50 === null || p50 === undefined || p50 <= 0 ? [] : [{ endpoint, p50 }];
      });
      if (figures.length < 2) continue;
      const quickest = figures.reduce((a, b) => (b.p50 < a.p50 ? b : a));
      for (const f of figures) {
        if (f.p50 >= SLOWER_RATIO * quickest.p50) {
          const what = metric === 'ttftMs' ? 'TTFT' : 'TPOT';
          notes.push(t('{0}: endpoint {1} is slower: {2} p50 {3} ms, {4}x that of {5} ({6} ms).', stepLabel(step), endpointName(doc, f.endpoint), what, fixed(f.p50), fixed(f.p50 / quickest.p50), endpointName(doc, quickest.endpoint), fixed(quickest.p50)));
        }
      }
    }
    for (const { endpoint, summary } of per) {
      const failed = summary.requests.failed;
      if (failed > 0) notes.push(t('{0}: {1} of {2} requests to endpoint {3} failed.', stepLabel(step), failed, summary.requests.total, endpointName(doc, endpoint)));
    }
    for (const event of step.failovers ?? []) {
      const took = event.event === 'out' ? '{0}: at {1} s failover took endpoint {2} out: {3}.' : '{0}: at {1} s failover took endpoint {2} back: {3}.';
      notes.push(t(took, stepLabel(step), (event.atMs / 1000).toFixed(1), endpointName(doc, event.endpoint), sayWarning(event.reason, t)));
    }
  }
  return notes;
}

/** Lines for a terminal: the per-endpoint table aligned, then its notes; empty for a run with one endpoint. */
export function endpointLines(doc: AnyDoc, align: (rows: string[][]) => string[]): string[] {
  const table = endpointTable(doc);
  if (table === null) return [];
  const header = table.columns.map((c) => (c.unit && !c.label.endsWith("/s") ? `${c.label} (${c.unit})` : c.label));
  const [headerLine = '', ...body] = align([header, ...table.rows]);
  const strategy = (doc.config['endpointStrategy'] as string | undefined) ?? 'round-robin';
  return [`Per endpoint (${strategy}${doc.config['failover'] ? ', failover' : ''}):`, headerLine, '-'.repeat(headerLine.length), ...body, ...endpointNotes(doc)];
}
