/**
 * NVIDIA AIPerf (successor of GenAI-Perf): `profile_export_aiperf.json`, a summary
 * `{records: {metric: {unit, avg, min, max, p1..p99, std, count}}, input_config, ...}`, and
 * `profile_export.jsonl`, one record per request `{metadata: {timestamp_ns}, metrics: {name:
 * {value, unit}}, error}`, cancelled requests included.
 */
import * as z from 'zod';
import { describeZodError, type ErrorKind, type RequestRecord, type Stats, type Step, type StepProfile } from '../format/result';
import { errorCounts, summarizeStep } from '../results/stats';
import { IMPORT_NOTE_TEXT } from '../format/import-note-text';
import { importedRequest, importedResult, importedStep, importFailure, ratio, statsFrom, type ImportInput, type ImportOutcome } from './common';

export const AIPERF_TOOL = 'AIPerf';

const AIPERF_NOTES: readonly string[] = [IMPORT_NOTE_TEXT.aiperf.tpot, IMPORT_NOTE_TEXT.aiperf.outputTokens, IMPORT_NOTE_TEXT.aiperf.percentiles];

const MetricSchema = z.looseObject({
  unit: z.string(),
  avg: z.number().nullable(),
  min: z.number().nullable().optional(),
  max: z.number().nullable().optional(),
  p50: z.number().nullable().optional(),
  p75: z.number().nullable().optional(),
  p90: z.number().nullable().optional(),
  p95: z.number().nullable().optional(),
  p99: z.number().nullable().optional(),
  std: z.number().nullable().optional(),
  count: z.number().nullable().optional(),
});
type Metric = z.infer<typeof MetricSchema>;

/** The summary metrics this importer reads; the others may hold anything. */
const USED_METRICS = [
  'request_latency', 'request_count', 'benchmark_duration', 'error_request_count', 'request_throughput', 'output_token_throughput',
  'total_isl', 'total_osl', 'ttft', 'inter_token_latency', 'inter_chunk_latency', 'input_sequence_length', 'output_sequence_length',
] as const;
type UsedMetric = (typeof USED_METRICS)[number];

const SummarySchema = z.looseObject({
  records: z.record(z.string(), z.unknown()),
  input_config: z
    .looseObject({
      endpoint: z.looseObject({ model_names: z.array(z.string()).optional(), url: z.string().optional() }).optional(),
      loadgen: z.looseObject({ concurrency: z.number().nullable().optional(), request_rate: z.number().nullable().optional() }).optional(),
    })
    .optional(),
  start_time: z.string().nullable().optional(),
  error_summary: z
    .array(
      z.looseObject({
        error_details: z.looseObject({ code: z.number().nullable().optional(), type: z.string().nullable().optional(), message: z.string().nullable().optional() }).nullable(),
        count: z.number().int().nonnegative(),
      }),
    )
    .nullable()
    .optional(),
});

const RecordSchema = z.looseObject({
  metadata: z.looseObject({ timestamp_ns: z.number() }),
  metrics: z.record(z.string(), z.looseObject({ value: z.union([z.number(), z.array(z.number())]), unit: z.string() })),
  error: z.looseObject({ code: z.number().nullable().optional(), type: z.string().nullable().optional(), message: z.string().nullable().optional() }).nullable().optional(),
});

export function looksLikeAiperfSummary(raw: unknown): boolean {
  const records = (raw as { records?: unknown } | null)?.records;
  return typeof records === 'object' && records !== null && ('request_latency' in records || 'ttft' in records);
}

export function looksLikeAiperfRecords(text: string): boolean {
  const first = text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'));
  try {
    return RecordSchema.safeParse(JSON.parse(first)).success;
  } catch {
    return false;
  }
}

/** A summary metric as Stats in ms (AIPerf records time in ms already). */
function statsOf(metric: Metric | undefined): Stats | null {
  if (!metric) return null;
  return statsFrom({ ...metric, mean: metric.avg, count: metric.count });
}

const single = (metric: Metric | undefined): number | null => metric?.avg ?? null;

function profileOf(loadgen: { concurrency?: number | null | undefined; request_rate?: number | null | undefined } | undefined): StepProfile {
  if (loadgen?.request_rate) return { kind: 'rate', rate: loadgen.request_rate, arrival: 'poisson', ...(loadgen.concurrency ? { concurrency: loadgen.concurrency } : {}) };
  return loadgen?.concurrency ? { kind: 'concurrency', concurrency: loadgen.concurrency } : { kind: 'throughput' };
}

function errorKindOf(error: z.infer<typeof RecordSchema>['error']): ErrorKind {
  if (error?.type === 'RequestCancellationError') return 'cancelled';
  return typeof error?.code === 'number' && error.code >= 400 && error.code < 600 && error.code !== 499 ? 'http' : 'other';
}

/** Per-request records, with times in ms from the earliest request's send. */
export function aiperfRequests(text: string, path: string): RequestRecord[] | string {
  const parsed: z.infer<typeof RecordSchema>[] = [];
  for (const [line, content] of text.split('\n').entries()) {
    if (!content.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(content);
    } catch {
      return `${path} line ${line + 1} is not JSON (expected AIPerf profile_export.jsonl records)`;
    }
    const record = RecordSchema.safeParse(json);
    if (!record.success) return `${path} line ${line + 1} is not an AIPerf record: it needs metadata.timestamp_ns and metrics`;
    parsed.push(record.data);
  }
  const start = Math.min(...parsed.map((r) => r.metadata.timestamp_ns));
  return parsed.map((r, index) => {
    const value = (name: string): number | null => {
      const v = r.metrics[name]?.value;
      return typeof v === 'number' ? v : null;
    };
    const sentMs = (r.metadata.timestamp_ns - start) / 1e6;
    const ttft = value('ttft');
    const firstTokenMs = ttft === null ? null : sentMs + ttft;
    const gaps = r.metrics['inter_chunk_latency']?.value;
    const chunkMs = firstTokenMs === null ? [] : [firstTokenMs];
    for (const gap of Array.isArray(gaps) ? gaps : []) chunkMs.push((chunkMs.at(-1) ?? 0) + gap);
    const latency = value('request_latency');
    const failed = r.error !== null && r.error !== undefined;
    const kind = errorKindOf(r.error);
    return importedRequest({
      index,
      sentMs,
      firstTokenMs,
      chunkMs,
      endMs: failed || latency === null ? null : sentMs + latency,
      inputTokens: value('input_sequence_length'),
      outputTokens: value('output_sequence_length'),
      tokenSource: 'tokenizer',
      httpStatus: kind === 'http' ? (r.error?.code ?? null) : null,
      error: failed ? { kind, message: r.error?.message ?? r.error?.type ?? 'error' } : null,
    });
  });
}

export interface AiperfFiles {
  summary?: ImportInput & { raw: unknown };
  records?: ImportInput;
}

export function importAiperf(files: AiperfFiles): ImportOutcome {
  const requests = files.records ? aiperfRequests(files.records.text, files.records.path) : [];
  if (typeof requests === 'string') return importFailure(requests);
  const notes = [...AIPERF_NOTES];
  const summaryInput = files.summary;
  if (!summaryInput) {
    const profile: StepProfile = { kind: 'throughput' };
    notes.push(IMPORT_NOTE_TEXT.aiperf.recordsOnly);
    const step: Step = { name: 'imported', profile, summary: summarizeStep(requests, profile, undefined, 'span'), requests };
    return importedResult({ tool: AIPERF_TOOL, version: null, path: files.records?.path ?? '', notes, model: 'unknown', config: {} }, [step]);
  }
  const parsed = SummarySchema.safeParse(summaryInput.raw);
  if (!parsed.success) {
    return importFailure(`${summaryInput.path} is not an AIPerf profile_export_aiperf.json (0.1 and later): ${describeZodError(parsed.error)}.`);
  }
  const { input_config: config } = parsed.data;
  const records: Partial<Record<UsedMetric, Metric>> = {};
  for (const name of USED_METRICS) {
    const value = parsed.data.records[name];
    if (value === undefined || value === null) continue;
    const metric = MetricSchema.safeParse(value);
    if (!metric.success) return importFailure(`${summaryInput.path}: the AIPerf metric records.${name} is not {unit, avg, ...}: ${describeZodError(metric.error)}.`);
    records[name] = metric.data;
  }
  const absent = (['request_latency', 'request_count', 'benchmark_duration'] as const).filter((m) => !records[m]);
  if (absent.length) return importFailure(`${summaryInput.path} is an AIPerf summary without the metrics ${absent.join(', ')}: nothing to import.`);
  const profile = profileOf(config?.loadgen);
  const completed = single(records['request_count']) ?? 0;
  const duration = single(records['benchmark_duration']);
  const totalTokens = (single(records['total_isl']) ?? 0) + (single(records['total_osl']) ?? 0);
  // Errors by kind: from the per-request records, else from the summary's error_summary. AIPerf
  // counts cancelled requests (--request-cancellation-rate) in error_request_count; we count them
  // as cancelled, neither completed nor failed.
  const errors = files.records ? errorCounts(requests) : {};
  if (!files.records) {
    for (const entry of parsed.data.error_summary ?? []) {
      const kind = errorKindOf(entry.error_details);
      errors[kind] = (errors[kind] ?? 0) + entry.count;
    }
  }
  const errored = single(records['error_request_count']) ?? 0;
  const described = Object.values(errors).reduce((sum, n) => sum + n, 0);
  if (errored > described) errors['other'] = (errors['other'] ?? 0) + errored - described;
  const failed = Math.max(errored, described) - (errors['cancelled'] ?? 0);
  notes.push(IMPORT_NOTE_TEXT.aiperf.totalTokens);
  const step = importedStep(
    profile,
    {
      requests: { total: completed + failed, completed, failed },
      durationSec: duration,
      requestsPerSecond: single(records['request_throughput']),
      outputTokensPerSecond: single(records['output_token_throughput']),
      totalTokensPerSecond: records['total_isl'] && records['total_osl'] ? ratio(totalTokens, duration) : null,
      ttftMs: statsOf(records['ttft']),
      tpotMs: statsOf(records['inter_token_latency']),
      itlMs: statsOf(records['inter_chunk_latency']),
      latencyMs: statsOf(records['request_latency']),
      inputTokens: statsOf(records['input_sequence_length']),
      outputTokens: statsOf(records['output_sequence_length']),
      errors,
    },
    requests,
  );
  const endpoint = config?.endpoint;
  const createdAt = parsed.data.start_time ? `${parsed.data.start_time}Z` : undefined;
  return importedResult(
    {
      tool: AIPERF_TOOL,
      version: null,
      path: summaryInput.path,
      notes,
      model: endpoint?.model_names?.[0] ?? 'unknown',
      ...(endpoint?.url ? { baseUrl: endpoint.url } : {}),
      ...(createdAt && !Number.isNaN(Date.parse(createdAt)) ? { createdAt: new Date(createdAt).toISOString() } : {}),
      config: (summaryInput.raw as { input_config?: Record<string, unknown> }).input_config ?? {},
    },
    [step],
  );
}
