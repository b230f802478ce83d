/**
 * vLLM `vllm bench serve` / `benchmarks/benchmark_serving.py` result files (`--save-result`):
 * one JSON object per run of one request rate. Aggregates are `mean_/median_/std_/pNN_<metric>_ms`
 * for ttft, tpot, itl and e2el; `--save-detailed` adds per-request lists.
 */
import { fillPlaceholders } from '../format/warning-text';
import { IMPORT_NOTE_TEXT } from '../format/import-note-text';
import * as z from 'zod';
import { describeZodError, type ErrorKind, type RequestRecord, type Stats, type StepProfile, type StepSummary } from '../format/result';
import { errorCounts } from '../results/stats';
import {
  importedRequest,
  importedResult,
  importedStep,
  importFailure,
  meanOnly,
  optionalCount,
  optionalNumber,
  optionalPositive,
  ratio,
  statsFrom,
  type ImportInput,
  type ImportOutcome,
  type PartialStats,
} from './common';

export const VLLM_TOOL = 'vllm bench serve';

const VLLM_NOTES: readonly string[] = [IMPORT_NOTE_TEXT.vllm.definitions, IMPORT_NOTE_TEXT.vllm.percentiles, IMPORT_NOTE_TEXT.vllm.throughput];

/** Keys vLLM itself writes; any other top-level string or number came from --metadata and becomes a label. */
const KNOWN_KEYS = new Set([
  'date', 'endpoint_type', 'backend', 'label', 'model_id', 'tokenizer_id', 'best_of', 'num_prompts', 'request_rate',
  'burstiness', 'max_concurrency', 'duration', 'completed', 'failed', 'total_input_tokens', 'total_output_tokens',
  'request_throughput', 'request_goodput:', 'request_goodput', 'output_throughput', 'total_token_throughput',
  'max_output_tokens_per_s', 'max_concurrent_requests', 'input_lens', 'output_lens', 'ttfts', 'itls',
  'generated_texts', 'errors', 'request_submit_times', 'request_complete_times', 'use_beam_search',
  // `vllm bench sweep` adds the run's number to each result it collects.
  'run_number',
]);

const METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const;

const numberList = z.array(z.number().nullable());
const VllmFileSchema = z.looseObject({
  date: z.string().nullish(),
  backend: z.string().nullish(),
  model_id: z.string().nullish(),
  num_prompts: optionalCount,
  request_rate: optionalNumber,
  burstiness: optionalPositive,
  max_concurrency: optionalCount.pipe(z.number().int().positive().nullable()),
  duration: optionalNumber,
  completed: optionalCount,
  failed: optionalCount,
  request_throughput: optionalNumber,
  'request_goodput:': optionalNumber,
  request_goodput: optionalNumber,
  output_throughput: optionalNumber,
  total_token_throughput: optionalNumber,
  total_input_tokens: optionalCount,
  total_output_tokens: optionalCount,
  max_output_tokens_per_s: optionalNumber,
  input_lens: numberList.optional(),
  output_lens: numberList.optional(),
  ttfts: numberList.optional(),
  itls: z.array(z.array(z.number()).nullable()).optional(),
  errors: z.array(z.string().nullable()).optional(),
  request_submit_times: numberList.optional(),
  request_complete_times: numberList.optional(),
});
type VllmFile = z.infer<typeof VllmFileSchema>;

export function looksLikeVllm(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const keys = Object.keys(raw);
  return keys.some((k) => /^(mean|median)_(ttft|tpot|itl|e2el)_ms$/.test(k)) || (keys.includes('ttfts') && keys.includes('itls'));
}

/** `vllm bench sweep`'s `summary.json`: a list of bench-serve results, one per run of a combination. */
export function looksLikeVllmSweep(raw: unknown): raw is unknown[] {
  return Array.isArray(raw) && raw.length > 0 && raw.every(looksLikeVllm);
}

/**
 * `mean_ttft_ms`, `median_ttft_ms`, `std_ttft_ms` and every `pNN_ttft_ms` we keep, as Stats in ms.
 * vLLM writes `np.mean(samples or 0)`: with no sample (no request completed, a non-streaming
 * endpoint, no response longer than one token) every figure is 0. A real TTFT, TPOT, ITL or
 * latency is never exactly 0, so an all-zero metric is read as "no samples": null.
 */
function metricStats(raw: Record<string, unknown>, metric: string, count: number | null): Stats | null {
  if (count === 0) return null;
  const value = (key: string) => {
    const v = raw[`${key}_${metric}_ms`];
    return typeof v === 'number' ? v : null;
  };
  // vLLM writes no min or max; SGLang's printout (read through this importer) gives a max.
  const values: PartialStats = { count, mean: value('mean'), std: value('std'), min: value('min'), max: value('max'), p50: value('median') ?? value('p50') };
  for (const p of [66, 75, 80, 90, 95, 98, 99] as const) values[`p${p}`] = value(`p${p}`);
  const stored = Object.entries(raw).filter(([key, v]) => key.endsWith(`_${metric}_ms`) && typeof v === 'number');
  if (stored.length > 0 && stored.every(([, v]) => v === 0)) return null;
  return statsFrom(values);
}

/**
 * The kind of a vLLM per-request error. vLLM stores the HTTP reason phrase of a non-200 answer
 * ("Not Found") or the Python traceback of an exception (aiohttp's exception names).
 */
export function vllmErrorKind(message: string): ErrorKind {
  if (/ClientConnectorError|Cannot connect to host|Connection refused/i.test(message)) return 'connect';
  if (/TimeoutError|timed out/i.test(message)) return 'timeout-total';
  if (/ServerDisconnectedError|ClientPayloadError|Connection reset|ClientOSError/i.test(message)) return 'reset';
  const reasonPhrase = /^(Bad Request|Unauthorized|Forbidden|Not Found|Method Not Allowed|Request Timeout|Payload Too Large|Unprocessable (Entity|Content)|Too Many Requests|Internal Server Error|Not Implemented|Bad Gateway|Service Unavailable|Gateway Timeout)$/i;
  return reasonPhrase.test(message.trim()) ? 'http' : 'other';
}

function profileOf(file: VllmFile): StepProfile {
  const cap = file.max_concurrency ?? undefined;
  if (file.request_rate !== null && file.request_rate > 0) {
    const burstiness = file.burstiness ?? 1;
    return {
      kind: 'rate',
      rate: file.request_rate,
      arrival: burstiness === 1 ? 'poisson' : 'gamma',
      burstiness,
      ...(cap !== undefined ? { concurrency: cap } : {}),
    };
  }
  // An infinite rate sends everything at once: with a concurrency cap that is a closed loop at the cap.
  return cap !== undefined ? { kind: 'concurrency', concurrency: cap } : { kind: 'throughput' };
}

/** `--save-detailed` lists as request records. Without submit times every request starts at 0 ms. */
function requestsOf(file: VllmFile): RequestRecord[] {
  const ttfts = file.ttfts;
  if (!ttfts) return [];
  const submits = file.request_submit_times;
  const firstSubmit = submits ? Math.min(...submits.filter((t): t is number => t !== null)) : 0;
  return ttfts.map((ttftSec, index) => {
    const message = file.errors?.[index];
    const failed = typeof message === 'string' && message.length > 0;
    const submitted = submits?.[index];
    const sentMs = typeof submitted === 'number' ? (submitted - firstSubmit) * 1000 : 0;
    const firstTokenMs = !failed && ttftSec !== null && ttftSec > 0 ? sentMs + ttftSec * 1000 : null;
    const chunkMs: number[] = [];
    if (firstTokenMs !== null) {
      chunkMs.push(firstTokenMs);
      for (const gap of file.itls?.[index] ?? []) chunkMs.push((chunkMs.at(-1) ?? firstTokenMs) + gap * 1000);
    }
    const completed = file.request_complete_times?.[index];
    const endMs = failed ? null : typeof completed === 'number' ? (completed - firstSubmit) * 1000 : (chunkMs.at(-1) ?? null);
    return importedRequest({
      index,
      sentMs,
      firstTokenMs,
      chunkMs,
      endMs,
      inputTokens: file.input_lens?.[index] ?? null,
      outputTokens: file.output_lens?.[index] ?? null,
      tokenSource: null,
      error: failed ? { kind: vllmErrorKind(message), message } : null,
    });
  });
}

function summaryOf(file: VllmFile, raw: Record<string, unknown>, requests: RequestRecord[]): Partial<StepSummary> {
  const failedFromList = file.errors ? file.errors.filter((e) => typeof e === 'string' && e.length > 0).length : null;
  const completed = file.completed;
  const failed = failedFromList ?? file.failed ?? (completed !== null && file.num_prompts !== null ? file.num_prompts - completed : null);
  // Without a completed count the file says nothing about counts: zero totals mark them unknown.
  const counts = completed === null ? { total: 0, completed: 0, failed: 0 } : { total: completed + (failed ?? 0), completed, failed: failed ?? 0 };
  const goodput = file['request_goodput:'] ?? file.request_goodput;
  // Without per-request messages the kind of a failure is unknown.
  const errors = requests.length ? errorCounts(requests) : counts.failed > 0 ? { other: counts.failed } : {};
  return {
    requests: counts,
    durationSec: file.duration,
    requestsPerSecond: file.request_throughput,
    outputTokensPerSecond: file.output_throughput,
    totalTokensPerSecond: file.total_token_throughput,
    ...(file.max_output_tokens_per_s !== null ? { peakOutputTokensPerSecond: file.max_output_tokens_per_s } : {}),
    ttftMs: metricStats(raw, 'ttft', completed),
    tpotMs: metricStats(raw, 'tpot', completed),
    itlMs: metricStats(raw, 'itl', null),
    latencyMs: metricStats(raw, 'e2el', completed),
    inputTokens: meanOnly(ratio(file.total_input_tokens, completed), completed),
    outputTokens: meanOnly(ratio(file.total_output_tokens, completed), completed),
    goodput,
    errors,
  };
}

/** vLLM's `date` is `YYYYMMDD-HHMMSS` in the machine's local time, which the file does not name. */
function dateOf(date: string | undefined): string | undefined {
  const m = date?.match(/^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : undefined;
}

export function importVllm(input: ImportInput, raw: unknown): ImportOutcome {
  const parsed = VllmFileSchema.safeParse(raw);
  if (!parsed.success || !looksLikeVllm(raw)) {
    const problem = parsed.success ? 'expected an object with mean_ttft_ms-style statistics' : describeZodError(parsed.error);
    return importFailure(`${input.path} is not a vLLM benchmark result (bench serve / benchmark_serving.py --save-result, any version): ${problem}.`);
  }
  const file = parsed.data;
  const record = raw as Record<string, unknown>;
  const requests = requestsOf(file);
  const profile = profileOf(file);
  const notes = [...VLLM_NOTES];
  const missing = ['duration', 'completed', 'request_throughput', 'output_throughput'].filter((k) => record[k] === undefined);
  if (missing.length) notes.push(fillPlaceholders(IMPORT_NOTE_TEXT.vllm.missing, [missing.join(', ')]));
  const absentMetrics = METRICS.filter((m) => record[`mean_${m}_ms`] === undefined);
  if (absentMetrics.length) {
    notes.push(fillPlaceholders(IMPORT_NOTE_TEXT.vllm.noStatistics, [absentMetrics.join(', ')]));
  }
  if (requests.length && !file.request_submit_times) {
    notes.push(IMPORT_NOTE_TEXT.vllm.noSendTimes);
  }
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(record)) {
    if (!KNOWN_KEYS.has(key) && !/_ms$/.test(key) && (typeof value === 'string' || typeof value === 'number')) labels[key] = String(value);
  }
  const model = file.model_id ?? 'unknown';
  const createdAt = dateOf(file.date ?? undefined);
  return importedResult(
    {
      tool: VLLM_TOOL,
      version: null,
      path: input.path,
      notes,
      model,
      ...(createdAt ? { createdAt } : {}),
      config: Object.fromEntries(Object.entries(record).filter(([k]) => KNOWN_KEYS.has(k) && !Array.isArray(record[k]))),
      labels,
    },
    [importedStep(profile, summaryOf(file, record, requests), requests)],
  );
}

/** Parameters of a `vllm bench sweep` combination, from its folder name `SERVE--k=v-k=v-BENCH--k=v`. */
export interface SweepParameters {
  /** The server's part of the folder name as written: results of one server configuration form one run. */
  serveKey: string;
  labels: Record<string, string>;
}

/** `k=v-k=v` (the sweep's `as_text(sep="-")`) or a `_benchmark_name`, as labels. */
function sweepNameLabels(name: string, side: 'serve' | 'bench'): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const part of name.split(/-(?=[A-Za-z_][\w.]*=)/)) {
    const eq = part.indexOf('=');
    if (eq > 0) labels[part.slice(0, eq)] = part.slice(eq + 1);
    else if (part) labels[side] = part;
  }
  return labels;
}

export function sweepParameters(path: string): SweepParameters | null {
  const folder = path.split(/[\\/]/).find((segment) => /^(SERVE|BENCH)--/.test(segment));
  const m = folder?.match(/^(?:SERVE--(.*?))?(?:-?BENCH--(.*))?$/);
  if (!m) return null;
  const [, serve = '', bench = ''] = m;
  return { serveKey: serve, labels: { ...sweepNameLabels(bench, 'bench'), ...sweepNameLabels(serve, 'serve') } };
}
