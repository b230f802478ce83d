/**
 * A trace replay as the views show it: per trace step, what was replayed (file, slice, time scale,
 * rows left out) and how late the requests went out (send lateness p50/p99/max: sent minus the
 * recorded time, scaled), and over the step's time the load the trace recorded against the load
 * sent, in requests per second per bucket. For the result view, the report and the command line. Pure.
 */
import type { RequestRecord, Step, TraceReplay } from '../format/result';
import { stepLabel } from '../format/step-name';
import { fixed } from './number-format';
import { english, type Translate } from './l10n';
import { LATE_REPLAY_MS } from '../format/trace';

type TraceStep = Pick<Step, 'name' | 'profile' | 'summary'> & Partial<Pick<Step, 'repeat' | 'requests'>>;

/** Buckets of a load-over-time chart, at most: longer steps get wider buckets. */
export const LOAD_BUCKETS = 600;

export const isTraceStep = (step: Pick<Step, 'profile'>): boolean => step.profile.kind === 'trace' && step.profile.trace !== undefined;

export interface TraceTable {
  columns: { label: string; unit?: string; numeric?: boolean; description?: string }[];
  rows: string[][];
}

const COLUMNS: TraceTable['columns'] = [
  { label: 'Step' },
  { label: 'Trace' },
  { label: 'Requests', numeric: true, description: 'Rows replayed (after the window, the request limits and the rows left out).' },
  { label: 'Left out', description: 'Bad rows skipped (--skip-bad-rows) and rows recording failed requests (BurstGPT), by reason.' },
  { label: 'Span', unit: 's', numeric: true, description: 'From the first row replayed to the last: as recorded, and as replayed after the time scale.' },
  { label: 'Lateness p50', unit: 'ms', numeric: true, description: 'Send lateness: when a request went out minus when the trace (scaled) said to send it.' },
  { label: 'Lateness p99', unit: 'ms', numeric: true },
  { label: 'Lateness max', unit: 'ms', numeric: true },
  { label: 'Prompts late', numeric: true, description: 'Requests whose prompt was built after their send time: the client could not keep up, so they went out late.' },
];

function leftOut(trace: TraceReplay): string {
  const parts = Object.entries(trace.skipped).map(([reason, c]) => `${c.count} ${reason} (line ${c.firstLine})`);
  if (trace.failedRequests) parts.push(`${trace.failedRequests.count} failed when recorded`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** The trace's file name without its folders: a table cell (its path is in the run's configuration). */
function fileName(path: string): string {
  return path.split(/[\\/]/).at(-1) || path;
}

/** Requests of a step whose prompt was built late; null when the step has no records to count (an overview). */
function promptsLate(step: TraceStep): number | null {
  if (step.requests === undefined || (step.requests.length === 0 && (step.summary?.requests.total ?? 0) > 0)) return null;
  return step.requests.reduce((n, r) => n + (r.trace?.promptLate ? 1 : 0), 0);
}

/** One row per trace step; null when the run replayed no trace. */
export function traceTable(steps: readonly TraceStep[]): TraceTable | null {
  const traced = steps.filter(isTraceStep);
  if (traced.length === 0) return null;
  return {
    columns: COLUMNS,
    rows: traced.map((step) => {
      const trace = step.profile.trace as TraceReplay;
      const lateness = step.summary?.queueMs ?? null;
      const late = promptsLate(step);
      return [
        stepLabel(step),
        `${fileName(trace.path)} (${trace.format}${trace.timeScale !== 1 ? `, ${trace.timeScale}x` : ''}${trace.window ? `, ${trace.window.startSec}-${trace.window.endSec ?? 'end'} s` : ''})`,
        String(trace.requests),
        leftOut(trace),
        trace.timeScale === 1 ? fixed(trace.recordedSpanSec, 1) : `${fixed(trace.recordedSpanSec, 1)} → ${fixed(trace.scaledSpanSec, 1)}`,
        fixed(lateness?.p50),
        fixed(lateness?.p99),
        fixed(lateness?.max),
        late === null ? 'n/a' : String(late),
      ];
    }),
  };
}

/** Notes on trace steps that did not replay their trace as recorded: late sends, late prompts. */
export function traceNotes(steps: readonly TraceStep[], t: Translate = english): string[] {
  return steps.filter(isTraceStep).flatMap((step) => {
    const notes: string[] = [];
    const p99 = step.summary?.queueMs?.p99;
    if (p99 !== null && p99 !== undefined && p99 > LATE_REPLAY_MS) {
      notes.push(t('{0}: the replay fell behind its trace (send lateness p99 {1} ms): its load over time was later and lighter than recorded.', stepLabel(step), fixed(p99, 1)));
    }
    const late = promptsLate(step);
    if (late !== null && late > 0) notes.push(t('{0}: {1} prompts were built after their send time; those requests went out late.', stepLabel(step), late));
    return notes;
  });
}

export interface LoadOverTime {
  /** Seconds per bucket. */
  bucketSec: number;
  /** [seconds from the step start, requests per second] at each bucket's start. */
  recorded: [number, number][];
  sent: [number, number][];
}

/**
 * Requests per second per bucket over a trace step: as the trace asked (each record's due time,
 * its recorded time scaled) and as sent (its send time). Without records (an overview), the
 * recorded load the scan kept and no sent line.
 */
export function loadOverTime(step: TraceStep): LoadOverTime | null {
  const trace = step.profile.trace;
  if (trace === undefined) return null;
  const records = step.requests ?? [];
  if (records.length === 0) {
    const width = trace.recordedRates.length > 1 ? (trace.recordedRates[1]?.atSec ?? 1) - (trace.recordedRates[0]?.atSec ?? 0) : 1;
    return { bucketSec: width, recorded: trace.recordedRates.map((p) => [p.atSec, p.rate]), sent: [] };
  }
  let lastMs = 0;
  for (const r of records) lastMs = Math.max(lastMs, r.scheduledMs, r.sentMs);
  const bucketSec = Math.max(1, Math.ceil(lastMs / 1000 / LOAD_BUCKETS));
  const buckets = Math.floor(lastMs / 1000 / bucketSec) + 1;
  const count = (at: (r: RequestRecord) => number): [number, number][] => {
    const counts = new Array<number>(buckets).fill(0);
    for (const r of records) {
      const b = Math.min(buckets - 1, Math.max(0, Math.floor(at(r) / 1000 / bucketSec)));
      counts[b] = (counts[b] ?? 0) + 1;
    }
    return counts.map((n, b) => [b * bucketSec, n / bucketSec]);
  };
  return { bucketSec, recorded: count((r) => r.scheduledMs), sent: count((r) => r.sentMs) };
}
