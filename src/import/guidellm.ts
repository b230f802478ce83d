/**
 * GuideLLM `benchmarks.json`: `{benchmarks: [...]}`, one benchmark per strategy of a profile
 * (a sweep: synchronous, throughput, then constant rates). Three layouts are read:
 *  - before 0.4: each benchmark has `args.strategy`, `run_stats` and `request_totals`;
 *  - 0.4 and later: a top-level `metadata` (report schema version, guidellm_version), and each
 *    benchmark has `config.strategy`, `scheduler_metrics` and `metrics.request_totals`;
 *  - report version 2: a top-level `config` instead of `args`.
 * Every metric is a `{successful, errored, incomplete, total}` block of distribution summaries.
 */
import { IMPORT_NOTE_TEXT } from '../format/import-note-text';
import * as z from 'zod';
import { describeZodError, type Stats, type Step, type StepProfile } from '../format/result';
import { importedResult, importedStep, importFailure, isoFromEpochSeconds, ratio, statsFrom, type ImportInput, type ImportOutcome } from './common';

export const GUIDELLM_TOOL = 'GuideLLM';

/** How GuideLLM's figures differ from ours, wherever they are read from (its JSON or a printed table). */
export const GUIDELLM_NOTES: readonly string[] = [IMPORT_NOTE_TEXT.guidellm.itl, IMPORT_NOTE_TEXT.guidellm.tpot, IMPORT_NOTE_TEXT.guidellm.statistics];

/** What only its JSON allows: our own requests/s beside GuideLLM's. */
const GUIDELLM_FILE_NOTES: readonly string[] = [IMPORT_NOTE_TEXT.guidellm.requestsPerSecond];

const DistributionSchema = z.looseObject({
  mean: z.number(),
  median: z.number().nullable().optional(),
  std_dev: z.number().nullable().optional(),
  min: z.number().nullable().optional(),
  max: z.number().nullable().optional(),
  count: z.number().nullable().optional(),
  percentiles: z.record(z.string(), z.number().nullable()).nullable().optional(),
});
const StatusDistributionSchema = z.looseObject({ successful: DistributionSchema.nullable().optional() });
const TotalsSchema = z.looseObject({
  successful: z.number(),
  errored: z.number(),
  incomplete: z.number(),
  total: z.number().nullable().optional(),
});
const StrategySchema = z.looseObject({
  type_: z.string(),
  rate: z.number().nullable().optional(),
  streams: z.number().nullable().optional(),
  max_concurrency: z.number().nullable().optional(),
});

const REQUIRED_METRICS = ['requests_per_second', 'request_latency', 'time_to_first_token_ms', 'inter_token_latency_ms'] as const;

const BenchmarkSchema = z.looseObject({
  args: z.looseObject({ strategy: StrategySchema }).optional(),
  config: z.looseObject({ strategy: StrategySchema }).optional(),
  metrics: z.record(z.string(), z.unknown()),
  request_totals: TotalsSchema.optional(),
  start_time: z.number().nullable().optional(),
  end_time: z.number().nullable().optional(),
  duration: z.number().nullable().optional(),
});

const ReportSchema = z.looseObject({
  metadata: z.looseObject({ version: z.number().optional(), guidellm_version: z.string().optional() }).optional(),
  benchmarks: z.array(z.unknown()),
});

export function looksLikeGuidellm(raw: unknown): boolean {
  const benchmarks = (raw as { benchmarks?: unknown } | null)?.benchmarks;
  return Array.isArray(benchmarks) && benchmarks.some((b) => typeof b === 'object' && b !== null && 'metrics' in b);
}

/** The strategy's name as GuideLLM prints it in its tables: `synchronous`, `concurrent@8`, `constant@1.90`, `poisson@2.00`. */
function strategyName(strategy: z.infer<typeof StrategySchema>): string {
  if (strategy.type_ === 'concurrent' && strategy.streams) return `concurrent@${strategy.streams}`;
  if ((strategy.type_ === 'constant' || strategy.type_ === 'poisson') && strategy.rate) return `${strategy.type_}@${strategy.rate.toFixed(2)}`;
  return strategy.type_;
}

function profileOf(strategy: z.infer<typeof StrategySchema>): StepProfile | string {
  switch (strategy.type_) {
    case 'synchronous':
      return { kind: 'synchronous' };
    case 'concurrent':
      return strategy.streams ? { kind: 'concurrency', concurrency: strategy.streams } : 'a concurrent strategy without streams';
    case 'throughput':
      return { kind: 'throughput', ...(strategy.max_concurrency ? { concurrency: strategy.max_concurrency } : {}) };
    case 'constant':
    case 'poisson':
      return strategy.rate && strategy.rate > 0
        ? { kind: 'rate', rate: strategy.rate, arrival: strategy.type_ }
        : `a ${strategy.type_} strategy without a rate`;
    default:
      return `the strategy type "${strategy.type_}"`;
  }
}

const successfulOf = (metric: unknown) => StatusDistributionSchema.safeParse(metric).data?.successful ?? null;

function statsOf(metric: unknown, scale = 1): Stats | null {
  const d = successfulOf(metric);
  if (!d) return null;
  const p = d.percentiles ?? {};
  return statsFrom(
    { count: d.count, mean: d.mean, std: d.std_dev, min: d.min, max: d.max, p50: p['p50'] ?? d.median, p75: p['p75'], p90: p['p90'], p95: p['p95'], p99: p['p99'] },
    scale,
  );
}

const meanOf = (metric: unknown): number | null => successfulOf(metric)?.mean ?? null;

/**
 * GuideLLM 0.4+ builds its TPOT ("ITL") distribution weighted by each request's output tokens - 1
 * and reads percentiles at the first point its cumulative weight reaches p (Percentiles.from_pdf:
 * a searchsorted, no interpolation); its count is that token weight. With few requests p90, p95
 * and p99 all land on the maximum. The values are kept as GuideLLM's, marked so.
 */
export const GUIDELLM_TOKEN_WEIGHTED =
  'GuideLLM 0.4+: token-weighted (each request counts output tokens - 1 times), percentiles nearest-rank on that weighted distribution (no interpolation); count is requests.';

/** One GuideLLM step; `tokenWeighted`: the file is 0.4+, whose TPOT statistics are weighted by tokens. */
function stepOf(raw: unknown, index: number, tokenWeighted: boolean): Step | string {
  const parsed = BenchmarkSchema.safeParse(raw);
  if (!parsed.success) return `benchmark ${index} has no metrics or no args/config.strategy (benchmarks.${index}: ${describeZodError(parsed.error)})`;
  const b = parsed.data;
  const strategy = b.config?.strategy ?? b.args?.strategy;
  if (!strategy) return `benchmark ${index} has neither args.strategy (before 0.4) nor config.strategy (0.4 and later)`;
  const profile = profileOf(strategy);
  if (typeof profile === 'string') return `benchmark ${index} uses ${profile}, which LLM Bench cannot map to a load profile`;
  const absent = REQUIRED_METRICS.filter((m) => successfulOf(b.metrics[m]) === null);
  if (absent.length) return `benchmark ${index} lacks metrics.${absent.join(', metrics.')}`;
  const totals = TotalsSchema.safeParse(b.metrics['request_totals']).data ?? b.request_totals;
  if (!totals) return `benchmark ${index} has neither request_totals (before 0.4) nor metrics.request_totals (0.4 and later)`;
  const duration = b.duration ?? (b.start_time && b.end_time ? b.end_time - b.start_time : null);
  const startedAt = isoFromEpochSeconds(b.start_time);
  const tpot = statsOf(b.metrics['inter_token_latency_ms']);
  return importedStep(
    profile,
    {
      requests: { total: totals.successful + totals.errored, completed: totals.successful, failed: totals.errored },
      durationSec: duration,
      requestsPerSecond: ratio(totals.successful, duration),
      outputTokensPerSecond: meanOf(b.metrics['output_tokens_per_second']),
      totalTokensPerSecond: meanOf(b.metrics['tokens_per_second']),
      achievedConcurrency: meanOf(b.metrics['request_concurrency']),
      ...(profile.rate !== undefined ? { targetRate: profile.rate } : {}),
      ttftMs: statsOf(b.metrics['time_to_first_token_ms']),
      tpotMs: tpot && tokenWeighted ? { ...tpot, count: totals.successful, definition: GUIDELLM_TOKEN_WEIGHTED } : tpot,
      latencyMs: statsOf(b.metrics['request_latency'], 1000),
      inputTokens: statsOf(b.metrics['prompt_token_count']),
      outputTokens: statsOf(b.metrics['output_token_count']),
      errors: totals.errored > 0 ? { other: totals.errored } : {},
    },
    [],
    startedAt,
    strategyName(strategy),
  );
}

/** The served model and target, wherever this layout keeps them. */
function endpointOf(report: Record<string, unknown>, first: unknown): { model: string; baseUrl?: string } {
  const pick = (...candidates: unknown[]) => candidates.find((c): c is string => typeof c === 'string' && c.length > 0);
  const b = (first ?? {}) as { worker?: Record<string, unknown>; config?: { backend?: Record<string, unknown> } };
  const args = (report['args'] ?? report['config'] ?? {}) as Record<string, unknown>;
  const model = pick(b.worker?.['backend_model'], b.config?.backend?.['model'], args['model']) ?? 'unknown';
  const baseUrl = pick(b.worker?.['backend_target'], b.config?.backend?.['target'], args['target']);
  return baseUrl ? { model, baseUrl } : { model };
}

export function importGuidellm(input: ImportInput, raw: unknown): ImportOutcome {
  const expected = 'a GuideLLM benchmarks.json (0.2 to 0.8, JSON output)';
  const report = ReportSchema.safeParse(raw);
  if (!report.success) return importFailure(`${input.path} is not ${expected}: there is no top-level "benchmarks" list.`);
  if (report.data.benchmarks.length === 0) return importFailure(`${input.path} is ${expected} with no benchmarks in it: nothing to import.`);
  const steps: Step[] = [];
  const metadata = report.data.metadata;
  for (const [index, benchmark] of report.data.benchmarks.entries()) {
    const step = stepOf(benchmark, index, metadata !== undefined);
    if (typeof step === 'string') return importFailure(`${input.path} is not readable as ${expected}: ${step}.`);
    steps.push(step);
  }
  const version = metadata?.guidellm_version ?? null;
  const notes = [...GUIDELLM_NOTES, ...GUIDELLM_FILE_NOTES];
  if (!metadata) notes.push(IMPORT_NOTE_TEXT.guidellm.noMetadata);
  notes.push(IMPORT_NOTE_TEXT.guidellm.sampled);
  const createdAt = steps[0]?.startedAt;
  return importedResult(
    {
      tool: GUIDELLM_TOOL,
      version,
      path: input.path,
      notes,
      ...endpointOf(raw as Record<string, unknown>, report.data.benchmarks[0]),
      ...(createdAt ? { createdAt } : {}),
      config: {
        reportVersion: metadata?.version ?? null,
        benchmarks: steps.length,
        guidellmRequestsPerSecond: Object.fromEntries(
          report.data.benchmarks.map((b, index) => [steps[index]?.name ?? String(index), meanOf((b as { metrics?: Record<string, unknown> }).metrics?.['requests_per_second'])]),
        ),
      },
    },
    steps,
  );
}
