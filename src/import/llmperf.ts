/**
 * Ray LLMPerf (`token_benchmark_ray.py`): `<name>_summary.json`, flat keys
 * `results_<metric>_quantiles_pNN`, `_mean`, `_min`, `_max`, `_stddev` with times in seconds, and
 * `<name>_individual_responses.json`, a list of per-request objects (ttft_s,
 * end_to_end_latency_s, inter_token_latency_s, token counts, error_code).
 */
import { IMPORT_NOTE_TEXT } from '../format/import-note-text';
import * as z from 'zod';
import { describeZodError, type RequestRecord, type Stats, type StepProfile } from '../format/result';
import { computeStats } from '../results/stats';
import {
  importedRequest,
  importedResult,
  importedStep,
  importFailure,
  isoFromEpochSeconds,
  ratio,
  statsFrom,
  type ImportInput,
  type ImportOutcome,
  type PartialStats,
} from './common';

export const LLMPERF_TOOL = 'LLMPerf';

const LLMPERF_NOTES: readonly string[] = [IMPORT_NOTE_TEXT.llmperf.itl, IMPORT_NOTE_TEXT.llmperf.tokens, IMPORT_NOTE_TEXT.llmperf.rate, IMPORT_NOTE_TEXT.llmperf.std];

const IndividualSchema = z.array(
  z.looseObject({
    error_code: z.union([z.number(), z.string()]).nullable().optional(),
    error_msg: z.string().nullable().optional(),
    ttft_s: z.number().nullable().optional(),
    end_to_end_latency_s: z.number().nullable().optional(),
    number_input_tokens: z.number().nullable().optional(),
    number_output_tokens: z.number().nullable().optional(),
  }),
);
type Individual = z.infer<typeof IndividualSchema>[number];

export function looksLikeLlmperfSummary(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'results_ttft_s_mean' in raw;
}

export function looksLikeLlmperfIndividual(raw: unknown): boolean {
  return Array.isArray(raw) && raw.length > 0 && typeof raw[0] === 'object' && raw[0] !== null && 'end_to_end_latency_s' in raw[0];
}

const numeric = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};

/** A sample std (pandas, ddof=1) of n values as the population std (numpy's default, ddof=0) that Stats holds. */
export function populationStd(sampleStd: number | null, n: number | null): number | null {
  if (sampleStd === null || n === null || n < 2) return null;
  return sampleStd * Math.sqrt((n - 1) / n);
}

/** `results_<metric>_...` keys as Stats; LLMPerf writes some min/max as strings ("550"). */
function summaryStats(s: Record<string, unknown>, metric: string, scale: number, count: number | null): Stats | null {
  const key = (suffix: string) => numeric(s[`results_${metric}_${suffix}`]);
  const values: PartialStats = { count, mean: key('mean'), std: populationStd(key('stddev'), count), min: key('min'), max: key('max') };
  for (const p of [50, 75, 90, 95, 99] as const) values[`p${p}`] = key(`quantiles_p${p}`);
  return statsFrom(values, scale);
}

const succeeded = (r: Individual) => r.error_code === null || r.error_code === undefined;

/** Our TPOT of one response: (latency - TTFT) / (output tokens - 1), in ms. */
function tpotMs(r: Individual): number | null {
  const out = r.number_output_tokens;
  if (!succeeded(r) || r.ttft_s == null || r.end_to_end_latency_s == null || out == null || out <= 1) return null;
  return ((r.end_to_end_latency_s - r.ttft_s) / (out - 1)) * 1000;
}

/** Individual responses as records; LLMPerf saves no send times, so each starts at 0 ms. */
function recordsOf(list: Individual[]): RequestRecord[] {
  return list.map((r, index) => {
    const ok = succeeded(r);
    return importedRequest({
      index,
      sentMs: 0,
      firstTokenMs: ok && r.ttft_s != null ? r.ttft_s * 1000 : null,
      chunkMs: [],
      endMs: ok && r.end_to_end_latency_s != null ? r.end_to_end_latency_s * 1000 : null,
      inputTokens: r.number_input_tokens ?? null,
      outputTokens: r.number_output_tokens ?? null,
      tokenSource: 'tokenizer',
      httpStatus: typeof r.error_code === 'number' ? r.error_code : null,
      error: ok ? null : { kind: typeof r.error_code === 'number' ? 'http' : 'other', message: r.error_msg || String(r.error_code) },
    });
  });
}

const valuesOf = (list: Individual[], pick: (r: Individual) => number | null | undefined) =>
  list.filter(succeeded).map(pick).filter((v): v is number => typeof v === 'number');

export interface LlmperfFiles {
  summary?: ImportInput & { raw: unknown };
  individual?: ImportInput & { raw: unknown };
}

export function importLlmperf(files: LlmperfFiles): ImportOutcome {
  let individual: Individual[] = [];
  if (files.individual) {
    const parsed = IndividualSchema.safeParse(files.individual.raw);
    if (!parsed.success) return importFailure(`${files.individual.path} is not an LLMPerf individual_responses.json (a list of responses with end_to_end_latency_s): ${describeZodError(parsed.error)}.`);
    individual = parsed.data;
  }
  const notes = [...LLMPERF_NOTES];
  const fromIndividual = (pick: (r: Individual) => number | null | undefined, scale: number) => computeStats(valuesOf(individual, (r) => { const v = pick(r); return v == null ? null : v * scale; }));
  const requests = recordsOf(individual);
  if (individual.length) notes.push(IMPORT_NOTE_TEXT.llmperf.noSendTimes);
  const tpot = individual.length ? computeStats(individual.map(tpotMs).filter((v): v is number => v !== null)) : null;

  const summaryFile = files.summary;
  const s = summaryFile ? (summaryFile.raw as Record<string, unknown>) : null;
  if (summaryFile && (!s || !looksLikeLlmperfSummary(s))) {
    return importFailure(`${summaryFile.path} is not an LLMPerf summary (2023 and later): expected results_ttft_s_mean and the other results_* keys.`);
  }
  const completed = s ? numeric(s['results_num_completed_requests']) : individual.filter(succeeded).length;
  const failed = s ? (numeric(s['results_number_errors']) ?? 0) : individual.length - individual.filter(succeeded).length;
  const perMinute = s ? numeric(s['results_num_completed_requests_per_min']) : null;
  const requestsPerSecond = perMinute === null ? null : perMinute / 60;
  const concurrency = s ? numeric(s['num_concurrent_requests']) : null;
  const profile: StepProfile = concurrency ? { kind: 'concurrency', concurrency } : { kind: 'throughput' };
  if (!s) notes.push(IMPORT_NOTE_TEXT.llmperf.individualOnly);
  const step = importedStep(
    profile,
    {
      requests: { total: (completed ?? 0) + failed, completed: completed ?? 0, failed },
      durationSec: ratio(completed, requestsPerSecond),
      requestsPerSecond,
      outputTokensPerSecond: s ? numeric(s['results_mean_output_throughput_token_per_s']) : null,
      ttftMs: s ? summaryStats(s, 'ttft_s', 1000, completed) : fromIndividual((r) => r.ttft_s, 1000),
      tpotMs: tpot,
      latencyMs: s ? summaryStats(s, 'end_to_end_latency_s', 1000, completed) : fromIndividual((r) => r.end_to_end_latency_s, 1000),
      inputTokens: s ? summaryStats(s, 'number_input_tokens', 1, completed) : fromIndividual((r) => r.number_input_tokens, 1),
      outputTokens: s ? summaryStats(s, 'number_output_tokens', 1, completed) : fromIndividual((r) => r.number_output_tokens, 1),
      errors: failed > 0 ? { other: failed } : {},
    },
    requests,
  );
  const path = summaryFile?.path ?? files.individual?.path ?? '';
  const createdAt = isoFromEpochSeconds(s ? numeric(s['timestamp']) : null);
  const labels: Record<string, string> = {};
  for (const key of ['framework', 'model_size'] as const) if (typeof s?.[key] === 'string') labels[key] = s[key];
  return importedResult(
    {
      tool: LLMPERF_TOOL,
      version: typeof s?.['version'] === 'string' ? s['version'] : null,
      path,
      notes,
      model: typeof s?.['model'] === 'string' ? s['model'] : 'unknown',
      ...(createdAt ? { createdAt } : {}),
      config: s ? Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('results_'))) : {},
      labels,
    },
    [step],
  );
}
