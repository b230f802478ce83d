/**
 * How a run is prepared, once for both front ends: the command line (flags, --config) and the
 * extension (prompts, settings, config files, command arguments) each turn their own input into a
 * `RunRequest`; this module decides what it means (merging, relative paths, the simulator
 * endpoint, the API key, warnings) and words every problem the same way, naming each field by the
 * front end's own name for it (a flag, a setting) or by the config file it came from.
 */
import { accessSync, constants } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type * as z from 'zod';
import { endpointsOf, redactHeaders, redactUrl, RunConfigSchema, withoutSchemaKey, type EndpointConfig, type RunConfig } from '../format/config';
import { messageOf } from '../format/errors';

export type Settings = Record<string, unknown>;

export const isPlainObject = (value: unknown): value is Settings =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What kind of input was wrong: front ends map every kind to "bad input" (exit 2, a settings or config message). */
export type RunInputProblem = 'config' | 'file' | 'api-key';

export class RunInputError extends Error {
  override readonly name = 'RunInputError';
  constructor(
    readonly problem: RunInputProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface ConfigFile {
  /** Absolute path: relative paths inside the file resolve against its folder. */
  path: string;
  /** How the front end names the file in messages: `--config bench.json`, `bench/rate.json`. */
  shownAs: string;
  settings: Settings;
}

export interface StartedSimulator {
  baseUrl: string;
  model: string;
  preset: string;
}

export interface RunRequest {
  /** What the front end itself asked for (flags, prompts, presets): wins over the file, key by key. */
  overrides: Settings;
  /**
   * What the front end's settings say for every run (the extension's `llmBench.serverMetrics.*`):
   * under the config file, which says more about its own run, and under `overrides`.
   */
  defaults?: Settings;
  file?: ConfigFile;
  /** Where relative paths among `overrides` resolve: the working directory, the workspace folder. */
  workingDir: string;
  /** The built-in simulator, already started, when the run is against it. */
  simulator?: StartedSimulator;
  /** Where `endpoint.apiKeyEnv` is looked up. */
  env: Readonly<Record<string, string | undefined>>;
  /** A key the front end keeps for this base URL (the extension's secret storage). */
  storedApiKey?: (baseUrl: string) => string | undefined;
  /**
   * The front end's own name for a config field (a flag such as `--concurrency`, a setting such as
   * `llmBench.concurrencyLevels`), used in messages when the field did not come from the file.
   */
  nameOf: (field: string) => string | undefined;
  /** How the front end names its own input as a whole, for fields it has no name for: `the flags`, `the run settings`. */
  ownInput: string;
}

export interface PreparedRun {
  config: RunConfig;
  /** Sent as a Bearer token; never written anywhere. */
  apiKey: string | undefined;
  /** A run over several endpoints: each one's key, in their order (the first is `apiKey`). */
  apiKeys?: (string | undefined)[];
  /** Things worth saying that do not stop the run. */
  warnings: string[];
}

/** Fields that hold file paths, resolved against the folder of whoever wrote them. */
const PATH_FIELDS: readonly (readonly string[])[] = [['workload', 'path'], ['tokenizer'], ['profile', 'path']];

/**
 * The prepared configuration as a dry run shows it (printed, returned to a script): credentials in
 * the URL and secret header values left out, like everywhere else a configuration is shown.
 */
export function shownConfig(config: RunConfig): RunConfig {
  const { baseUrl } = config.endpoint;
  // A URL with nothing to hide is shown as written (redactUrl also normalises, adding a final /).
  const shownUrl = redactUrl(baseUrl) === new URL(baseUrl).href ? baseUrl : redactUrl(baseUrl);
  const metricsUrl = config.serverMetrics.url;
  const serverMetrics = metricsUrl === undefined || metricsUrl === 'off' ? config.serverMetrics : { ...config.serverMetrics, url: redactUrl(metricsUrl) === new URL(metricsUrl).href ? metricsUrl : redactUrl(metricsUrl) };
  const shown = (endpoint: EndpointConfig): EndpointConfig => {
    // A URL with nothing to hide is shown as written (redactUrl also normalises, adding a final /).
    const url = redactUrl(endpoint.baseUrl) === new URL(endpoint.baseUrl).href ? endpoint.baseUrl : redactUrl(endpoint.baseUrl);
    return { ...endpoint, baseUrl: url, headers: redactHeaders(endpoint.headers) };
  };
  return {
    ...config,
    endpoint: { ...config.endpoint, baseUrl: shownUrl, headers: redactHeaders(config.endpoint.headers) },
    ...(config.endpoints !== undefined ? { endpoints: config.endpoints.map(shown) } : {}),
    serverMetrics,
  };
}

/** VS Code's file system error codes as Node names them, so that both front ends word a failure alike. */
const ERRNO_OF_VSCODE_CODE: Readonly<Record<string, string>> = { FileNotFound: 'ENOENT', FileIsADirectory: 'EISDIR', NoPermissions: 'EACCES' };

/** Why a file could not be read, as short as the platform says it: `ENOENT`, `EISDIR`, ... */
const readFailure = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code) return ERRNO_OF_VSCODE_CODE[code] ?? code;
  return messageOf(error);
};

/** The one wording of a config file that cannot be read, for both front ends (each names the file its way). */
export function unreadableConfigFile(shownAs: string, path: string, error: unknown): RunInputError {
  return new RunInputError('file', `${shownAs}: cannot read '${path}' (${readFailure(error)}); check the path`);
}

/** Reads a config file's text: a JSON object of run settings, without its `$schema` key. */
export function parseConfigFileText(text: string, shownAs: string): Settings {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RunInputError('config', `${shownAs} is not valid JSON (${(error as Error).message}); fix the file and run it again`);
  }
  if (!isPlainObject(parsed)) throw new RunInputError('config', `${shownAs} must hold a JSON object of run settings, like {"profile": {"kind": "synchronous"}, "limits": {"requests": 20}}`);
  return withoutSchemaKey(parsed);
}

export function prepareRun(request: RunRequest): PreparedRun {
  const fromFile = request.file ? withAbsolutePaths(request.file.settings, dirname(request.file.path)) : {};
  const own = withAbsolutePaths(request.overrides, request.workingDir);
  let merged = mergeSettings(mergeSettings(request.defaults ?? {}, fromFile), own) as Settings;
  if (request.simulator) {
    if (merged.endpoints !== undefined) throw new RunInputError('config', `${fieldName('endpoints', request, fromFile)}: the built-in simulator is one endpoint; to spread a run over several, start simulators with \`llmbench sim\` and give each URL`);
    merged = onSimulator(merged, request.simulator);
  }
  merged = withEndpointDefaults(merged);

  for (const [field, what] of [
    ['endpoint.baseUrl', "the server's base URL up to /v1, like http://127.0.0.1:8000/v1 (or the built-in simulator)"],
    ['endpoint.model', 'the name the server serves the model under (see GET /v1/models)'],
  ] as const) {
    if (valueAt(merged, field) === undefined) throw new RunInputError('config', `${fieldName(field, request, fromFile)} is required: ${what}`);
  }
  const parsed = RunConfigSchema.safeParse(merged);
  if (!parsed.success) {
    throw new RunInputError('config', parsed.error.issues.slice(0, 3).map((issue) => describeIssue(issue, request, fromFile)).join('\n'));
  }
  const config = parsed.data;
  checkReadableFiles(config, request, fromFile);
  if (config.endpoints === undefined) return { config, apiKey: apiKeyFor(config.endpoint, 'endpoint', request, fromFile), warnings: warningsFor(config) };
  const apiKeys = config.endpoints.map((endpoint, i) => apiKeyFor(endpoint, `endpoints.${i}`, request, fromFile));
  return { config, apiKey: apiKeys[0], apiKeys, warnings: warningsFor(config) };
}

/**
 * `endpoints` given: the fields of `endpoint` (model, api, headers, key variable) apply to every
 * entry that does not set its own, and `endpoint` becomes the first entry (what a run has one of:
 * the probe, the result's head). A list that is not one of objects is left for the schema to word.
 */
function withEndpointDefaults(settings: Settings): Settings {
  const list = settings.endpoints;
  if (!Array.isArray(list) || list.length === 0 || !list.every(isPlainObject)) return settings;
  const shared = isPlainObject(settings.endpoint) ? settings.endpoint : {};
  const { baseUrl: _firstUrl, ...defaults } = shared;
  const endpoints = list.map((entry) => mergeSettings(defaults, entry) as Settings);
  return { ...settings, endpoints, endpoint: endpoints[0] };
}

/**
 * Settings over settings: objects merge key by key, anything else is replaced. A profile or
 * workload of another kind replaces the other whole, since their fields differ by kind.
 */
export function mergeSettings(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
  if ('kind' in base && 'kind' in over && base.kind !== over.kind) return over;
  const merged: Settings = { ...base };
  for (const [key, value] of Object.entries(over)) merged[key] = mergeSettings(base[key], value);
  return merged;
}

/** The value at a dotted field path (`profile.levels.0`), through objects and arrays. */
export function valueAt(settings: unknown, field: string): unknown {
  return field.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Settings)[key] : undefined), settings);
}

function withAbsolutePaths(settings: Settings, baseDir: string): Settings {
  let result = settings;
  for (const path of PATH_FIELDS) {
    const value = valueAt(result, path.join('.'));
    if (typeof value !== 'string' || value === '' || isAbsolute(value)) continue;
    result = mergeSettings(result, path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), resolve(baseDir, value))) as Settings;
  }
  return result;
}

/**
 * The simulator serves the run: its URL replaces the endpoint's, its model is used unless one was
 * named, and the rest of the endpoint (api, headers) is kept so that it can be tested too.
 */
function onSimulator(settings: Settings, simulator: StartedSimulator): Settings {
  const endpoint = isPlainObject(settings.endpoint) ? settings.endpoint : {};
  const labels = isPlainObject(settings.labels) ? settings.labels : {};
  return {
    ...settings,
    endpoint: { ...endpoint, baseUrl: simulator.baseUrl, model: endpoint.model ?? simulator.model },
    labels: { simulator: simulator.preset, ...labels },
  };
}

/** The longest field path that has a value in the file or a name in the front end. */
function fieldName(field: string, request: RunRequest, fromFile: Settings): string {
  const inFile = request.file && valueAt(fromFile, field) !== undefined && valueAt(request.overrides, field) === undefined;
  if (inFile) return `${request.file!.shownAs}: field ${field}`;
  for (let prefix = field; prefix !== ''; prefix = prefix.includes('.') ? prefix.slice(0, prefix.lastIndexOf('.')) : '') {
    const name = request.nameOf(prefix);
    if (name !== undefined) return prefix === field ? name : `${name} (at ${field})`;
  }
  return request.file ? `${request.file.shownAs}: field ${field || '(top level)'}` : `${request.ownInput}: field ${field || '(top level)'}`;
}

function describeIssue(issue: z.core.$ZodIssue, request: RunRequest, fromFile: Settings): string {
  const field = issue.path.join('.');
  if (/received undefined/.test(issue.message)) {
    const kind = field.startsWith('profile.') ? parsedKind(request, fromFile) : undefined;
    const profileName = request.nameOf('profile.kind') ?? 'profile kind';
    return `${fieldName(field, request, fromFile)} is required${kind ? ` with ${profileName} ${kind}` : ''}`;
  }
  return `${fieldName(field, request, fromFile)}: ${issue.message}`;
}

function parsedKind(request: RunRequest, fromFile: Settings): string | undefined {
  const kind = valueAt(mergeSettings(fromFile, request.overrides), 'profile.kind');
  return typeof kind === 'string' ? kind : undefined;
}

function checkReadableFiles(config: RunConfig, request: RunRequest, fromFile: Settings): void {
  const files: Array<[string, string | undefined]> = [
    ['workload.path', config.workload.kind === 'dataset' ? config.workload.path : undefined],
    ['tokenizer', config.tokenizer],
    ['profile.path', config.profile.kind === 'trace' ? config.profile.path : undefined],
  ];
  for (const [field, path] of files) {
    if (path === undefined) continue;
    try {
      accessSync(path, constants.R_OK);
    } catch (error) {
      throw new RunInputError('file', `${fieldName(field, request, fromFile)}: cannot read '${path}' (${readFailure(error)})`);
    }
  }
}

/** An endpoint's key: a key named by `apiKeyEnv` must be there; otherwise the front end's stored key, if any. `field` names the endpoint in messages. */
function apiKeyFor(endpoint: EndpointConfig, field: string, request: RunRequest, fromFile: Settings): string | undefined {
  const variable = endpoint.apiKeyEnv;
  if (variable === undefined) return request.storedApiKey?.(endpoint.baseUrl);
  const key = request.env[variable];
  if (!key) {
    throw new RunInputError('api-key', `${fieldName(`${field}.apiKeyEnv`, request, fromFile)}: the environment variable ${variable} is empty or not set; export the key in it first`);
  }
  return key;
}

function warningsFor(config: RunConfig): string[] {
  const warnings: string[] = [];
  for (const endpoint of endpointsOf(config)) {
    if (!/\/v1\/?$/.test(new URL(endpoint.baseUrl).pathname)) {
      const route = endpoint.api === 'chat' ? 'chat/completions' : 'completions';
      warnings.push(`The base URL usually ends in /v1; requests go to ${redactUrl(endpoint.baseUrl).replace(/\/$/, '')}/${route}`);
    }
  }
  return warnings;
}
