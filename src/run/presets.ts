/**
 * The profile presets offered by "Run LLM Benchmark", as pure functions of the settings, and the
 * short description of a profile used in titles and logs. No `vscode` import: unit-tested in Node.
 */
import { basename } from 'node:path';
import * as z from 'zod';
import { english, type Translate } from '../format/translate';
import { ConcurrencyUnitSchema, parseDelayRange, RampStrategySchema, stepRequests, type RunConfig, type RunConfigInput, type RUN_PRESET_IDS } from '../format/config';

export const PresetSettingsSchema = z.object({
  requestsPerStep: z.number().int().positive().default(100),
  /**
   * The concurrency sweep's steps measure at least this many requests per concurrent slot: a step
   * with fewer than a few rounds of its slots spends its time filling up and draining, never at its
   * level (40 requests at concurrency 64 never have 64 in flight).
   */
  requestsPerConcurrency: z.number().int().positive().default(4),
  warmupRequests: z.number().int().nonnegative().default(2),
  inputTokens: z.number().int().positive().default(512),
  outputTokens: z.number().int().positive().default(128),
  /** vLLM's range ratio around each length; 0 keeps the lengths fixed. */
  inputTokensRange: z.number().min(0).lt(1).default(0),
  outputTokensRange: z.number().min(0).lt(1).default(0),
  sharedPrefixTokens: z.number().int().nonnegative().default(0),
  prefixCount: z.number().int().positive().default(1),
  concurrencyLevels: z.array(z.number().int().positive()).min(1).default([1, 2, 4, 8, 16, 32, 64]),
  requestRates: z.array(z.number().positive()).min(1).default([1, 2, 4, 8, 16]),
  rampStrategy: RampStrategySchema.default('linear'),
  rampStartRate: z.number().positive().default(1),
  rampEndRate: z.number().positive().default(16),
  /** Each preset's profile run this many times into one file (1: once). */
  repeatCount: z.number().int().positive().default(1),
  repeatPauseSec: z.number().nonnegative().default(0),
  /** Turns per synthetic conversation; 1 sends single requests. */
  sessionTurns: z.number().int().positive().default(1),
  thinkTimeMs: z.number().int().nonnegative().default(0),
  concurrencyUnit: ConcurrencyUnitSchema.default('sessions'),
  /** The trace preset's speed: 2 replays twice as fast as recorded. */
  traceTimeScale: z.number().positive().default(1),
  /** The trace preset skips bad rows (and counts them) instead of stopping at the first. */
  traceSkipBadRows: z.boolean().default(false),
  /** Share of the measured requests cancelled on purpose, `cancelAfterMs` after each was sent (`MS` or `MS-MS`); 0: none. */
  cancelRate: z.number().min(0).max(1).default(0),
  cancelAfterMs: z.string().refine((text) => parseDelayRange(text) !== null, 'must be milliseconds like 1000, or a range like 200-2000').default('1000'),
});
export type PresetSettings = z.infer<typeof PresetSettingsSchema>;

export type PresetId = (typeof RUN_PRESET_IDS)[number];

export interface Preset {
  id: PresetId;
  label: string;
  detail: string;
  /** Everything a run needs except the endpoint and labels. */
  config: Omit<RunConfigInput, 'endpoint' | 'labels'>;
}

/** Requests of the quick check: enough for stable medians, few enough to finish in a minute. */
const QUICK_CHECK_REQUESTS = 20;
const SWEEP_RATE_COUNT = 8;

/** The presets, their labels and details said through `t` (the host's display language; English by default). */
export function presets(settings: PresetSettings, t: Translate = english): Preset[] {
  const length = (mean: number, rangeRatio: number) => (rangeRatio > 0 ? { mean, rangeRatio } : mean);
  const workload = {
    kind: 'synthetic' as const,
    inputTokens: length(settings.inputTokens, settings.inputTokensRange),
    outputTokens: length(settings.outputTokens, settings.outputTokensRange),
    sharedPrefixTokens: settings.sharedPrefixTokens,
    prefixCount: settings.prefixCount,
  };
  const limits = { requests: settings.requestsPerStep, warmup: settings.warmupRequests };
  const cancelAfterMs = parseDelayRange(settings.cancelAfterMs);
  const repeat = {
    ...(settings.repeatCount > 1 ? { repeat: { count: settings.repeatCount, pauseSec: settings.repeatPauseSec } } : {}),
    ...(settings.sessionTurns > 1 ? { sessions: { turns: settings.sessionTurns, thinkTimeMs: settings.thinkTimeMs, concurrencyUnit: settings.concurrencyUnit } } : {}),
    ...(settings.cancelRate > 0 && cancelAfterMs !== null ? { cancel: { rate: settings.cancelRate, afterMs: cancelAfterMs } } : {}),
  };
  const tokens = t('{0} in / {1} out tokens', settings.inputTokens, settings.outputTokens);
  return [
    {
      id: 'quick',
      label: t('Quick check'),
      detail: t('{0} requests one at a time: TTFT, ITL and latency without load ({1})', QUICK_CHECK_REQUESTS, tokens),
      config: { ...repeat, workload, profile: { kind: 'synchronous' }, limits: { requests: QUICK_CHECK_REQUESTS, warmup: 1 } },
    },
    {
      id: 'concurrency',
      label: t('Concurrency sweep'),
      detail: t(
        'A step per concurrency level {0}, {1} requests each or {2} per concurrent slot if more ({3}) ({4})',
        settings.concurrencyLevels.join(', '),
        settings.requestsPerStep,
        settings.requestsPerConcurrency,
        concurrencyRequests(settings, t),
        tokens,
      ),
      config: { ...repeat, workload, profile: { kind: 'concurrency', levels: settings.concurrencyLevels }, limits: { ...limits, requestsPerConcurrency: settings.requestsPerConcurrency } },
    },
    {
      id: 'rate',
      label: t('Rate sweep'),
      detail: t('A step per request rate {0} req/s with Poisson arrivals, {1} requests each', settings.requestRates.join(', '), settings.requestsPerStep),
      config: { ...repeat, workload, profile: { kind: 'rate', rates: settings.requestRates, arrival: 'poisson' }, limits },
    },
    {
      id: 'ramp',
      label: t('Rate ramp'),
      detail:
        settings.rampStrategy === 'linear'
          ? t("One step whose target rate rises linearly from {0} to {1} req/s over {2} requests, Poisson arrivals (vLLM's ramp-up)", settings.rampStartRate, settings.rampEndRate, settings.requestsPerStep)
          : t("One step whose target rate rises exponentially from {0} to {1} req/s over {2} requests, Poisson arrivals (vLLM's ramp-up)", settings.rampStartRate, settings.rampEndRate, settings.requestsPerStep),
      config: { ...repeat, workload, profile: { kind: 'rate', ramp: { strategy: settings.rampStrategy, startRate: settings.rampStartRate, endRate: settings.rampEndRate }, arrival: 'poisson' }, limits },
    },
    {
      id: 'throughput',
      label: t('Throughput'),
      detail: t('{0} requests sent at once: the most the server can do ({1})', settings.requestsPerStep, tokens),
      config: { ...repeat, workload, profile: { kind: 'throughput' }, limits },
    },
    {
      id: 'sweep',
      label: t('Full sweep'),
      detail: t("Synchronous, throughput, then {0} rates between them (GuideLLM's sweep), {1} requests per step", SWEEP_RATE_COUNT, settings.requestsPerStep),
      config: { ...repeat, workload, profile: { kind: 'sweep', rateCount: SWEEP_RATE_COUNT }, limits },
    },
  ];
}

/** "100 to 256 requests a step": the concurrency sweep's step sizes, each from its level (stepRequests). */
function concurrencyRequests(settings: PresetSettings, t: Translate): string {
  const counts = settings.concurrencyLevels.map((c) => stepRequests({ requests: settings.requestsPerStep, requestsPerConcurrency: settings.requestsPerConcurrency }, c) ?? settings.requestsPerStep);
  const [least, most] = [Math.min(...counts), Math.max(...counts)];
  return least === most ? t('{0} requests a step', least) : t('{0} to {1} requests a step', least, most);
}

/**
 * The trace preset: one step replaying `path` at its recorded times (scaled by the
 * `traceTimeScale` setting), prompts built to each row's lengths. Offered with a file picker, so
 * not among `presets`, whose configs need no file.
 */
export function tracePreset(settings: PresetSettings, path: string): { label: string; detail: string; config: Omit<RunConfigInput, 'endpoint' | 'labels'> } {
  const speed = settings.traceTimeScale === 1 ? 'at its recorded times' : `${settings.traceTimeScale}x as fast as recorded`;
  return {
    label: 'Trace replay',
    detail: `Each row of ${basename(path)} sent ${speed}, its prompt built to the row's lengths (Mooncake, Azure, BurstGPT)`,
    config: { profile: { kind: 'trace', path, timeScale: settings.traceTimeScale, skipBadRows: settings.traceSkipBadRows }, limits: { warmup: 0 } },
  };
}

/** A short description of a profile for titles and logs: "concurrency 1,2,4", "sweep of 8 rates". */
export function describeProfile(profile: RunConfig['profile']): string {
  switch (profile.kind) {
    case 'synchronous':
      return 'synchronous';
    case 'concurrency':
      return `concurrency ${profile.levels.join(',')}`;
    case 'rate':
      if (profile.ramp) return `${profile.ramp.strategy} ramp ${profile.ramp.startRate}-${profile.ramp.endRate} req/s (${profile.arrival})`;
      return `rate ${(profile.rates ?? []).join(',')} req/s (${profile.arrival})`;
    case 'schedule':
      return `schedule of ${profile.times.length} requests`;
    case 'throughput':
      return 'throughput';
    case 'sweep':
      return `sweep of ${profile.rateCount} rates`;
    case 'trace':
      return `trace ${basename(profile.path)}${profile.timeScale !== 1 ? ` at ${profile.timeScale}x` : ''}`;
  }
}

/** The settings behind the profile presets' fields. */
const PRESET_FIELD_SETTINGS: Readonly<Record<string, string>> = {
  'limits.requests': 'llmBench.requestsPerStep',
  'limits.warmup': 'llmBench.warmupRequests',
  'limits.requestsPerConcurrency': 'llmBench.requestsPerConcurrency',
  'workload.inputTokens': 'llmBench.inputTokens',
  'workload.outputTokens': 'llmBench.outputTokens',
  'workload.inputTokens.rangeRatio': 'llmBench.inputTokensRange',
  'workload.outputTokens.rangeRatio': 'llmBench.outputTokensRange',
  'workload.sharedPrefixTokens': 'llmBench.sharedPrefixTokens',
  'workload.prefixCount': 'llmBench.prefixCount',
  'profile.levels': 'llmBench.concurrencyLevels',
  'profile.rates': 'llmBench.requestRates',
  'profile.ramp.strategy': 'llmBench.rampStrategy',
  'profile.ramp.startRate': 'llmBench.rampStartRate',
  'profile.ramp.endRate': 'llmBench.rampEndRate',
  'repeat.count': 'llmBench.repeatCount',
  'repeat.pauseSec': 'llmBench.repeatPauseSec',
  'sessions.turns': 'llmBench.sessionTurns',
  'sessions.thinkTimeMs': 'llmBench.thinkTimeMs',
  'sessions.concurrencyUnit': 'llmBench.concurrencyUnit',
  'profile.path': 'the trace file',
  'profile.timeScale': 'llmBench.traceTimeScale',
  'profile.skipBadRows': 'llmBench.traceSkipBadRows',
  'cancel.rate': 'llmBench.cancelRate',
  'cancel.afterMs': 'llmBench.cancelAfterMs',
  'workload.embeddingBatch': 'llmBench.embeddingBatch',
  'endpoint.api': 'llmBench.endpoints (api)',
  'endpoint.reasoningTags': 'llmBench.endpoints (reasoningTags)',
  'endpoint.baseUrl': 'llmBench.endpoints (baseUrl)',
  'endpoint.headers': 'llmBench.endpoints (headers)',
  'serverMetrics.url': 'llmBench.serverMetrics.url',
  'serverMetrics.intervalMs': 'llmBench.serverMetrics.intervalMs',
  'serverMetrics.allowList': 'llmBench.serverMetrics.allowList',
  workers: 'llmBench.workers',
};
export const presetFieldSetting = (field: string): string | undefined => PRESET_FIELD_SETTINGS[field];

/**
 * The settings that apply to every run, as run settings (RunRequest.defaults): a config file's own
 * values win over them. An empty URL setting leaves the default (the endpoint's /metrics).
 */
export function runDefaultsFromSettings(setting: (key: string) => unknown): Record<string, unknown> {
  const workers = setting('workers');
  // 'auto' is what a config without the field means: left out, the extension prepares the very config the command line does.
  const defaults: Record<string, unknown> = workers === undefined || workers === null || workers === 'auto' ? {} : { workers };
  const url = setting('serverMetrics.url');
  const serverMetrics: Record<string, unknown> = {};
  if (typeof url === 'string' && url.trim() !== '') serverMetrics.url = url.trim();
  for (const key of ['intervalMs', 'allowList'] as const) {
    const value = setting(`serverMetrics.${key}`);
    if (value !== undefined && value !== null) serverMetrics[key] = value;
  }
  return Object.keys(serverMetrics).length > 0 ? { ...defaults, serverMetrics } : defaults;
}
