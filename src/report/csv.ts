/** One CSV row per step of every run, labels as columns: for spreadsheets and scripts. */
import type { Stats, StepSummary } from '../format/result';
import type { ReportRun } from '../views/report';
import { stepWarnings } from '../views/step-warnings';
import { countShares } from '../views/token-counts';

const STAT_COLUMNS = ['mean', 'p50', 'p90', 'p99'] as const;
const METRICS = [
  ['ttft_ms', 'ttftMs'],
  ['tpot_ms', 'tpotMs'],
  ['itl_ms', 'itlMs'],
  ['latency_ms', 'latencyMs'],
  // Reasoning models (empty for a step without reasoning; TTFO is then the TTFT above).
  ['ttfo_ms', 'ttfoMs'],
  ['reasoning_ms', 'reasoningMs'],
  ['reasoning_tokens', 'reasoningTokens'],
  ['answer_tokens', 'answerTokens'],
] as const;

/** A spreadsheet reads a cell starting with one of these as a formula (`=HYPERLINK(...)`, `@SUM(...)`). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180 quoting: fields with a comma, quote or line break are quoted, quotes doubled. Text that
 * a spreadsheet would run as a formula gets a leading `'`, which shows it as text (numbers stay numbers).
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return '';
  const text = typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * What a step's rates are over: `steady` (its steady window), `span` (first send to last completion,
 * a step without a steady window or a file written before them), or the importing tool's name.
 */
function rateWindowOf(run: ReportRun, summary: StepSummary | null): string {
  if (run.doc.importedFrom) return run.doc.importedFrom.tool;
  return summary?.rateWindow?.definition ?? 'span';
}

export function formatStepsCsv(runs: ReportRun[]): string {
  const labelKeys = [...new Set(runs.flatMap((r) => Object.keys(r.doc.labels)))].sort();
  const header = [
    'run', 'source', 'tool', 'model', ...labelKeys.map((k) => `label:${k}`),
    'step', 'profile', 'concurrency', 'rate', 'requests_total', 'requests_completed', 'requests_failed',
    'duration_s', 'requests_per_s', 'output_tokens_per_s', 'total_tokens_per_s', 'goodput_req_per_s', 'target_rate_req_per_s',
    ...METRICS.flatMap(([name]) => STAT_COLUMNS.map((s) => `${name}_${s}`)),
    // Shares (0 to 1) of the completed requests whose token count is not the server's; empty when the file does not say.
    'input_tokens_estimated_share', 'input_tokens_tokenizer_share', 'output_tokens_estimated_share', 'output_tokens_tokenizer_share',
    'embeddings_per_s', 'input_tokens_per_s', 'cancelled_by_design',
    'rate_window', 'warnings',
  ];
  const stat = (stats: Stats | null | undefined, key: (typeof STAT_COLUMNS)[number]) => stats?.[key] ?? null;
  const rows = runs.flatMap((run) =>
    run.doc.steps.map((step) => {
      const s = step.summary;
      return [
        run.name, run.source ?? '', run.doc.importedFrom?.tool ?? run.doc.tool.name, run.doc.endpoint.model,
        ...labelKeys.map((k) => run.doc.labels[k] ?? ''),
        step.name, step.profile.kind, step.profile.concurrency ?? null, step.profile.rate ?? null,
        s?.requests.total ?? null, s?.requests.completed ?? null, s?.requests.failed ?? null,
        s?.durationSec ?? null, s?.requestsPerSecond ?? null, s?.outputTokensPerSecond ?? null, s?.totalTokensPerSecond ?? null, s?.goodput ?? null, s?.targetRate ?? null,
        ...METRICS.flatMap(([, key]) => STAT_COLUMNS.map((c) => stat(s?.[key], c))),
        ...(['input', 'output'] as const).flatMap((side) => {
          const shares = countShares(s?.tokenSources?.[side]);
          return [shares?.estimated ?? null, shares?.tokenizer ?? null];
        }),
        s?.embeddingsPerSecond ?? null, s?.inputTokensPerSecond ?? null, s?.cancelledByDesign?.requests ?? null,
        rateWindowOf(run, s), stepWarnings(step, run.doc.importedFrom !== undefined).map((w) => `${w.kind}: ${w.message}`).join(' | '),
      ];
    }),
  );
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}
