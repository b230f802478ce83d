/**
 * EvalScope perf (`evalscope perf`) output: each load level writes a directory
 * `parallel_<N>_number_<M>/` (or `rate_...`) holding `benchmark_summary.json` (one object of
 * averages), `benchmark_percentile.json` (rows `{"Percentiles": "50%", "TTFT (s)": ...}`) and
 * `benchmark_args.json`. Two key sets exist: the long-standing one (`Average latency (s)`,
 * `TTFT (s)`, times in seconds) and the 2025 rename (`Avg Latency (s)`, `TTFT (ms)`).
 * Layouts learned from modelscope/evalscope `evalscope/perf/utils/` (db_util.py, perf_constants.py).
 */
import { fillPlaceholders } from '../format/warning-text';
import { IMPORT_NOTE_TEXT } from '../format/import-note-text';
import * as z from 'zod';
import type { Stats, StepProfile } from '../format/result';
import { importedResult, importedStep, importFailure, meanOnly, statsFrom, type ImportInput, type ImportOutcome, type PartialStats } from './common';

export const EVALSCOPE_TOOL = 'EvalScope perf';

const EVALSCOPE_NOTES: readonly string[] = [IMPORT_NOTE_TEXT.evalscope.tpot, IMPORT_NOTE_TEXT.evalscope.percentiles];

/** A summary key in the older and in the renamed key set, with the factor to our unit. */
export interface SummaryKey {
  legacy: [string, number];
  current: [string, number];
}
export const SUMMARY = {
  duration: { legacy: ['Time taken for tests (s)', 1], current: ['Test Duration (s)', 1] },
  concurrency: { legacy: ['Number of concurrency', 1], current: ['Concurrency', 1] },
  rate: { legacy: ['Request rate (req/s)', 1], current: ['Request Rate (req/s)', 1] },
  total: { legacy: ['Total requests', 1], current: ['Total Requests', 1] },
  succeeded: { legacy: ['Succeed requests', 1], current: ['Success Requests', 1] },
  failed: { legacy: ['Failed requests', 1], current: ['Failed Requests', 1] },
  requestsPerSecond: { legacy: ['Request throughput (req/s)', 1], current: ['Req Throughput (req/s)', 1] },
  outputTokensPerSecond: { legacy: ['Output token throughput (tok/s)', 1], current: ['Output Throughput (tok/s)', 1] },
  totalTokensPerSecond: { legacy: ['Total token throughput (tok/s)', 1], current: ['Total Throughput (tok/s)', 1] },
  latency: { legacy: ['Average latency (s)', 1000], current: ['Avg Latency (s)', 1000] },
  ttft: { legacy: ['Average time to first token (s)', 1000], current: ['TTFT (ms)', 1] },
  tpot: { legacy: ['Average time per output token (s)', 1000], current: ['TPOT (ms)', 1] },
  itl: { legacy: ['Average inter-token latency (s)', 1000], current: ['ITL (ms)', 1] },
  inputTokens: { legacy: ['Average input tokens per request', 1], current: ['Avg Input Tokens', 1] },
  outputTokens: { legacy: ['Average output tokens per request', 1], current: ['Avg Output Tokens', 1] },
} satisfies Record<string, SummaryKey>;

/** Percentile columns, older (seconds) and renamed (ms) spellings. */
const PERCENTILE_COLUMNS = {
  ttft: [['TTFT (s)', 1000], ['TTFT (ms)', 1]],
  tpot: [['TPOT (s)', 1000], ['TPOT (ms)', 1]],
  itl: [['ITL (s)', 1000], ['ITL (ms)', 1]],
  latency: [['Latency (s)', 1000]],
  inputTokens: [['Input tokens', 1]],
  outputTokens: [['Output tokens', 1]],
} as const satisfies Record<string, ReadonlyArray<readonly [string, number]>>;

const SummarySchema = z.record(z.string(), z.unknown());
const PercentileRowsSchema = z.union([
  z.array(z.record(z.string(), z.unknown())),
  // A transposed table, `{"Percentiles": ["10%", ...], "TTFT (s)": [...]}`, as some versions keep it.
  z.record(z.string(), z.array(z.unknown())).transform((columns) => {
    const labels = columns['Percentiles'] ?? [];
    return labels.map((_, i) => Object.fromEntries(Object.entries(columns).map(([k, v]) => [k, v[i]])));
  }),
]);

export function looksLikeEvalscopeSummary(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  return Object.values(SUMMARY.duration).some(([key]) => key in raw) && Object.values(SUMMARY.requestsPerSecond).some(([key]) => key in raw);
}

export function looksLikeEvalscopePercentiles(raw: unknown): boolean {
  const rows = PercentileRowsSchema.safeParse(raw);
  return rows.success && rows.data.length > 0 && rows.data.every((r) => 'Percentiles' in r);
}

export interface EvalscopeFiles {
  summary: ImportInput & { raw: unknown };
  percentiles?: unknown;
  args?: unknown;
}

type PercentileKey = 'p50' | 'p66' | 'p75' | 'p80' | 'p90' | 'p95' | 'p98' | 'p99' | 'min' | 'max';
const LABEL_TO_KEY: Record<string, PercentileKey> = {
  '50%': 'p50', '66%': 'p66', '75%': 'p75', '80%': 'p80', '90%': 'p90', '95%': 'p95', '98%': 'p98', '99%': 'p99', min: 'min', max: 'max',
};

function percentileValues(rows: Record<string, unknown>[], columns: ReadonlyArray<readonly [string, number]>): PartialStats {
  const values: PartialStats = {};
  for (const row of rows) {
    const key = LABEL_TO_KEY[String(row['Percentiles'])];
    if (!key) continue;
    for (const [column, scale] of columns) {
      const v = row[column];
      if (typeof v === 'number') values[key] = v * scale;
    }
  }
  return values;
}

export function importEvalscope(files: EvalscopeFiles): ImportOutcome {
  const { summary: input } = files;
  const expected = 'an EvalScope perf benchmark_summary.json';
  const summary = SummarySchema.safeParse(input.raw);
  if (!summary.success || !looksLikeEvalscopeSummary(input.raw)) {
    return importFailure(`${input.path} is not ${expected}: expected "Time taken for tests (s)" (or "Test Duration (s)") and a request throughput.`);
  }
  const s = summary.data;
  const layout = SUMMARY.duration.legacy[0] in s ? 'legacy' : 'current';
  const read = (key: keyof typeof SUMMARY): number | null => {
    const [name, scale] = SUMMARY[key][layout];
    const v = s[name];
    return typeof v === 'number' && Number.isFinite(v) ? v * scale : null;
  };
  const rows = files.percentiles === undefined ? [] : (PercentileRowsSchema.safeParse(files.percentiles).data ?? null);
  if (rows === null) return importFailure(`The benchmark_percentile.json beside ${input.path} is not EvalScope's percentile table (rows with a "Percentiles" label).`);
  const count = read('succeeded');
  const stats = (key: keyof typeof PERCENTILE_COLUMNS, mean: number | null): Stats | null =>
    statsFrom({ ...percentileValues(rows, PERCENTILE_COLUMNS[key]), mean, count: key === 'itl' ? null : count });

  const directory = input.path.split(/[\\/]/).slice(-2, -1)[0] ?? '';
  const concurrency = read('concurrency') ?? Number(directory.match(/^parallel_(\d+)_/)?.[1] ?? NaN);
  const rate = read('rate');
  const profile: StepProfile =
    rate !== null && rate > 0
      ? { kind: 'rate', rate, arrival: 'poisson', ...(concurrency > 0 ? { concurrency } : {}) }
      : concurrency > 0
        ? { kind: 'concurrency', concurrency }
        : { kind: 'throughput' };
  const succeeded = count ?? 0;
  const failed = read('failed') ?? 0;
  const notes = [...EVALSCOPE_NOTES, layout === 'legacy' ? IMPORT_NOTE_TEXT.evalscope.legacyKeys : IMPORT_NOTE_TEXT.evalscope.currentKeys];
  // Before 2025 EvalScope counted its chunks per request: one means the reply came whole, not streamed,
  // and its "time to first token" is then the whole latency (first_chunk_latency = query_latency).
  const packages = s['Average package per request'];
  const streamed = !(typeof packages === 'number' && packages <= 1);
  if (!streamed) {
    notes.push(fillPlaceholders(IMPORT_NOTE_TEXT.evalscope.notStreamed, [String(packages)]));
  }
  // Before 2025, "Average time per output token" was the test's duration / all output tokens, 1 / output tokens/s.
  let tpot = read('tpot');
  const outputRate = read('outputTokensPerSecond');
  if (layout === 'legacy' && tpot !== null && outputRate !== null && concurrency >= 2 && Math.abs((tpot / 1000) * outputRate - 1) <= 0.02) {
    notes.push(fillPlaceholders(IMPORT_NOTE_TEXT.evalscope.legacyTpot, [tpot / 1000]));
    tpot = null;
  }
  const step = importedStep(profile, {
    requests: { total: read('total') ?? succeeded + failed, completed: succeeded, failed },
    durationSec: read('duration'),
    requestsPerSecond: read('requestsPerSecond'),
    outputTokensPerSecond: read('outputTokensPerSecond'),
    totalTokensPerSecond: read('totalTokensPerSecond'),
    ttftMs: streamed ? stats('ttft', read('ttft')) : null,
    tpotMs: tpot === null ? null : stats('tpot', tpot),
    itlMs: stats('itl', read('itl')),
    latencyMs: stats('latency', read('latency')),
    inputTokens: stats('inputTokens', read('inputTokens')) ?? meanOnly(read('inputTokens'), count),
    outputTokens: stats('outputTokens', read('outputTokens')) ?? meanOnly(read('outputTokens'), count),
    errors: failed > 0 ? { other: failed } : {},
  });
  const args = z.looseObject({ model: z.string().optional(), url: z.string().optional() }).safeParse(files.args).data;
  if (files.percentiles === undefined) notes.push(IMPORT_NOTE_TEXT.evalscope.noPercentileFile);
  return importedResult(
    {
      tool: EVALSCOPE_TOOL,
      version: null,
      path: input.path,
      notes,
      model: args?.model ?? 'unknown',
      ...(args?.url ? { baseUrl: args.url } : {}),
      config: { layout, directory },
    },
    [step],
  );
}
