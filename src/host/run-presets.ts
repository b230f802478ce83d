/**
 * The run choices offered by the extension, as pure functions of the settings: profile presets,
 * endpoint settings, the servers' model lists and run-command arguments. No `vscode` import, so
 * all of it is unit-tested in Node; the prompts in run-prompts.ts only ask and combine.
 */
import * as z from 'zod';
import { EndpointConfigSchema, type RunConfig, type RunConfigInput } from '../format/config';
import { describeZodError } from '../format/result';

export const PresetSettingsSchema = z.object({
  requestsPerStep: z.number().int().positive().default(100),
  warmupRequests: z.number().int().nonnegative().default(2),
  inputTokens: z.number().int().positive().default(512),
  outputTokens: z.number().int().positive().default(128),
  concurrencyLevels: z.array(z.number().int().positive()).min(1).default([1, 2, 4, 8, 16, 32, 64]),
  requestRates: z.array(z.number().positive()).min(1).default([1, 2, 4, 8, 16]),
});
export type PresetSettings = z.infer<typeof PresetSettingsSchema>;

export type PresetId = 'quick' | 'concurrency' | 'rate' | 'throughput' | 'sweep';

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

export function presets(settings: PresetSettings): Preset[] {
  const workload = { kind: 'synthetic' as const, inputTokens: settings.inputTokens, outputTokens: settings.outputTokens };
  const limits = { requests: settings.requestsPerStep, warmup: settings.warmupRequests };
  const tokens = `${settings.inputTokens} in / ${settings.outputTokens} out tokens`;
  return [
    {
      id: 'quick',
      label: 'Quick check',
      detail: `${QUICK_CHECK_REQUESTS} requests one at a time: TTFT, ITL and latency without load (${tokens})`,
      config: { workload, profile: { kind: 'synchronous' }, limits: { requests: QUICK_CHECK_REQUESTS, warmup: 1 } },
    },
    {
      id: 'concurrency',
      label: 'Concurrency sweep',
      detail: `A step per concurrency level ${settings.concurrencyLevels.join(', ')}, ${settings.requestsPerStep} requests each (${tokens})`,
      config: { workload, profile: { kind: 'concurrency', levels: settings.concurrencyLevels }, limits },
    },
    {
      id: 'rate',
      label: 'Rate sweep',
      detail: `A step per request rate ${settings.requestRates.join(', ')} req/s with Poisson arrivals, ${settings.requestsPerStep} requests each`,
      config: { workload, profile: { kind: 'rate', rates: settings.requestRates, arrival: 'poisson' }, limits },
    },
    {
      id: 'throughput',
      label: 'Throughput',
      detail: `${settings.requestsPerStep} requests sent at once: the most the server can do (${tokens})`,
      config: { workload, profile: { kind: 'throughput' }, limits },
    },
    {
      id: 'sweep',
      label: 'Full sweep',
      detail: `Synchronous, throughput, then ${SWEEP_RATE_COUNT} rates between them (GuideLLM's sweep), ${settings.requestsPerStep} requests per step`,
      config: { workload, profile: { kind: 'sweep', rateCount: SWEEP_RATE_COUNT }, limits },
    },
  ];
}

/**
 * One entry of the `llmBench.endpoints` setting: a run config's endpoint with a name, the model
 * optional (picked from the server's list), and no key variable (keys live in SecretStorage).
 */
export const EndpointSettingSchema = EndpointConfigSchema.omit({ apiKeyEnv: true, model: true }).extend({
  name: z.string().min(1, 'name must not be empty'),
  model: z.string().min(1).optional(),
});
export type EndpointSetting = z.infer<typeof EndpointSettingSchema>;

/** The valid entries of the setting, and a message for each invalid one (by position and field). */
export function parseEndpointSettings(raw: unknown): { endpoints: EndpointSetting[]; problems: string[] } {
  if (raw === undefined || raw === null) return { endpoints: [], problems: [] };
  if (!Array.isArray(raw)) return { endpoints: [], problems: ['llmBench.endpoints must be a list of endpoints.'] };
  const endpoints: EndpointSetting[] = [];
  const problems: string[] = [];
  raw.forEach((entry, i) => {
    const parsed = EndpointSettingSchema.safeParse(entry);
    if (parsed.success) endpoints.push(parsed.data);
    else problems.push(`llmBench.endpoints[${i}]: ${describeZodError(parsed.error)}`);
  });
  return { endpoints, problems };
}

/** The key under which an endpoint's API key is kept: one key per base URL, however it is spelled. */
export function apiKeySecretName(baseUrl: string): string {
  return `llmBench.apiKey:${normalizeBaseUrl(baseUrl)}`;
}

export function normalizeBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl.trim());
  url.hash = '';
  url.search = '';
  return url.toString().replace(/\/+$/, '');
}

/** Checks a URL typed by the user; returns a message to show, or undefined when it is fine. */
export function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return 'Type a full URL, like http://127.0.0.1:8000/v1';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The URL must start with http:// or https://';
  return undefined;
}

/**
 * What `llmBench.run` accepts from other extensions, tasks and tests: a complete run config, or
 * `{ config, simulator }` to run a config (without endpoint) against the built-in simulator.
 */
export const RunArgsSchema = z
  .object({
    /** Run settings; `endpoint` may be left out when `simulator` is given. They win over `configFile`'s. */
    config: z.record(z.string(), z.unknown()).default({}),
    /** A config file to run (absolute, or relative to the first workspace folder). */
    configFile: z.string().min(1).optional(),
    /** Options of the built-in simulator (its preset, speedup, faults...). */
    simulator: z.record(z.string(), z.unknown()).optional(),
    /** Open the result in the result view when the run ends (default true). */
    openResult: z.boolean().default(true),
    /** Prepare the run and answer its configuration (or what is wrong) without running it. */
    dryRun: z.boolean().default(false),
  })
  .strict();
export type RunArgs = z.infer<typeof RunArgsSchema>;

/** Reads the command argument: `{ config?, configFile?, simulator?, openResult?, dryRun? }` or a bare run config. */
export function parseRunArgument(arg: unknown): { ok: true; args: RunArgs } | { ok: false; error: string } {
  if (typeof arg !== 'object' || arg === null || Array.isArray(arg)) {
    return { ok: false, error: 'llmBench.run takes a run configuration object, { config, simulator }, or a config file Uri.' };
  }
  const wrapped = 'config' in arg || 'configFile' in arg ? arg : { config: arg };
  const parsed = RunArgsSchema.safeParse(wrapped);
  if (!parsed.success) return { ok: false, error: `llmBench.run argument: ${describeZodError(parsed.error)}` };
  return { ok: true, args: parsed.data };
}

/** A short description of a profile for titles and logs: "concurrency 1,2,4", "sweep of 8 rates". */
export function describeProfile(profile: RunConfig['profile']): string {
  switch (profile.kind) {
    case 'synchronous':
      return 'synchronous';
    case 'concurrency':
      return `concurrency ${profile.levels.join(',')}`;
    case 'rate':
      return `rate ${profile.rates.join(',')} req/s (${profile.arrival})`;
    case 'schedule':
      return `schedule of ${profile.times.length} requests`;
    case 'throughput':
      return 'throughput';
    case 'sweep':
      return `sweep of ${profile.rateCount} rates`;
  }
}

/** Labels remembered between runs, as asked for in the run flow. */
export const LABEL_KEYS = ['engine', 'hardware', 'gpus', 'quantization'] as const;
export const LABEL_PROMPTS: Record<(typeof LABEL_KEYS)[number], string> = {
  engine: 'Inference engine and version, e.g. vLLM 0.11.0',
  hardware: 'Hardware, e.g. 1x A100 80GB',
  gpus: 'Number of GPUs (tensor/pipeline parallel), e.g. 2 (TP=2)',
  quantization: 'Quantization, e.g. bf16, fp8, AWQ int4',
};

/** Keeps non-empty labels only, trimmed. */
export function cleanLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [k.trim(), v.trim()]).filter(([k, v]) => k !== '' && v !== ''));
}
