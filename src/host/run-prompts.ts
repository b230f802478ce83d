/**
 * The questions of "Run LLM Benchmark": endpoint, model, profile (a preset or a config file) and
 * labels, with the workers offered beside the labels (`llmBench.workers`, auto by default). Each answer is checked where it is typed; the result is a `RunPlan` that the run
 * session parses like any other run request (command argument, config file).
 */
import { availableParallelism } from 'node:os';
import { isAbsolute } from 'node:path';
import * as vscode from 'vscode';
import { isPlainObject, parseConfigFileText, RunInputError, unreadableConfigFile, type ConfigFile, type Settings } from '../run/prepare';
import { probeEndpointByFetch } from './fetch-probe';
import { PRESETS, DEFAULT_PRESET, type PresetName } from '../sim/index';
import { baseUrlProblem, parseEndpointSettings, type EndpointSetting } from './endpoint-settings';
import { editLabelFields } from './label-editor';
import { canonicalLabels } from '../format/config';
import { planOf, planText } from '../views/plan';
import { formatLabelsText } from '../views/labels';
import { PresetSettingsSchema, presetFieldSetting, presets, tracePreset } from '../run/presets';
import { WorkersSchema, type Workers } from '../format/config';
import { maxWorkers } from '../load/workers';
import type { RunArgs } from './run-arguments';

/** What the user asked for, before it means anything: src/run/prepare.ts decides that. */
export interface RunPlan {
  /** What the prompts, presets or command argument set: wins over the config file's settings. */
  overrides: Settings;
  file: ConfigFile | undefined;
  /** Options of the built-in simulator, when the run is against it. */
  simulator: Record<string, unknown> | undefined;
  openResult: boolean;
  /** How messages name the plan's own input: "the run settings", "the llmBench.run argument". */
  ownInput: string;
  /** The setting a field of `overrides` came from, for messages. */
  nameOf: (field: string) => string | undefined;
}

const noFieldNames = (): undefined => undefined;

/** A server still loading a model can be slow to list it; the user is waiting, not a run. */
const MODEL_LIST_TIMEOUT_MS = 5000;
const RECENT_URLS_KEY = 'llmBench.recentUrls';
const LABELS_KEY = 'llmBench.labels';

type EndpointChoice =
  | { kind: 'simulator'; preset: PresetName }
  | { kind: 'server'; endpoint: Omit<EndpointSetting, 'name'> & { name?: string } };

export function settings() {
  return vscode.workspace.getConfiguration('llmBench');
}

/** The results folder (setting llmBench.resultsDirectory, relative to `folder`), created if missing. */
export async function resultsDirectory(folder: vscode.WorkspaceFolder): Promise<vscode.Uri> {
  const directory = settings().get<string>('resultsDirectory', 'benchmarks').trim() || 'benchmarks';
  const dirUri = isAbsolute(directory) ? vscode.Uri.file(directory) : vscode.Uri.joinPath(folder.uri, directory);
  await vscode.workspace.fs.createDirectory(dirUri);
  return dirUri;
}

/** baseUrlProblem's verdict in the display language, for input boxes and notifications. */
export function urlProblem(text: string): string | undefined {
  return baseUrlProblem(text) === undefined ? undefined : vscode.l10n.t('Type a full URL that starts with http:// or https://, like {0}', 'http://127.0.0.1:8000/v1');
}

function endpointSettings(): EndpointSetting[] {
  const { endpoints, problems } = parseEndpointSettings(settings().get('endpoints'));
  if (problems.length > 0) void vscode.window.showWarningMessage(vscode.l10n.t('LLM Bench: some endpoints in your settings were skipped. {0}', problems.join(' ')));
  return endpoints;
}

function simulatorPreset(): PresetName {
  const value = settings().get<string>('simulator.preset');
  return value !== undefined && value in PRESETS ? (value as PresetName) : DEFAULT_PRESET;
}

async function typeUrl(memento: vscode.Memento, title: string, value?: string): Promise<string | undefined> {
  const url = await vscode.window.showInputBox({
    title,
    prompt: vscode.l10n.t('Base URL of an OpenAI-compatible server, up to and including /v1'),
    placeHolder: 'http://127.0.0.1:8000/v1',
    ...(value ? { value } : {}),
    ignoreFocusOut: true,
    validateInput: (v) => urlProblem(v),
  });
  if (url === undefined) return undefined;
  const recent = [url.trim(), ...memento.get<string[]>(RECENT_URLS_KEY, []).filter((u) => u !== url.trim())].slice(0, 5);
  await memento.update(RECENT_URLS_KEY, recent);
  return url.trim();
}

interface Choice<T> extends vscode.QuickPickItem {
  value: T;
}

async function pick<T>(items: Array<Choice<T>>, title: string, placeHolder: string): Promise<T | undefined> {
  const chosen = await vscode.window.showQuickPick(items, { title, placeHolder, ignoreFocusOut: true, matchOnDetail: true });
  return chosen?.value;
}

const TYPE_URL = Symbol('type a URL');

async function pickEndpoint(memento: vscode.Memento, title: string): Promise<EndpointChoice | undefined> {
  const preset = simulatorPreset();
  const configured = endpointSettings();
  const recent = memento.get<string[]>(RECENT_URLS_KEY, []).filter((u) => !configured.some((e) => e.baseUrl === u));
  const choice = await pick<EndpointChoice | typeof TYPE_URL>(
    [
      ...configured.map((e) => ({ label: e.name, description: e.model, detail: e.baseUrl, value: { kind: 'server' as const, endpoint: e } })),
      ...recent.map((u) => ({ label: u, description: vscode.l10n.t('recently used'), value: { kind: 'server' as const, endpoint: { baseUrl: u, api: 'chat' as const, headers: {} } } })),
      {
        label: `$(beaker) ${vscode.l10n.t('Built-in simulator')}`,
        description: PRESETS[preset].model,
        detail: vscode.l10n.t('{0}: no server needed (setting llmBench.simulator.preset)', PRESETS[preset].description),
        value: { kind: 'simulator' as const, preset },
      },
      { label: `$(link) ${vscode.l10n.t('Enter a URL…')}`, detail: vscode.l10n.t('Any OpenAI-compatible server: vLLM, SGLang, TGI, llama.cpp, Ollama, ...'), value: TYPE_URL },
    ],
    title,
    vscode.l10n.t('Which server to benchmark?'),
  );
  if (choice !== TYPE_URL) return choice;
  const url = await typeUrl(memento, title);
  return url === undefined ? undefined : { kind: 'server', endpoint: { baseUrl: url, api: 'chat', headers: {} } };
}

/** For "Set API Key": an endpoint's base URL, from the settings or typed. */
export async function pickEndpointUrl(title: string): Promise<string | undefined> {
  const configured = endpointSettings();
  if (configured.length === 0) return vscode.window.showInputBox({ title, prompt: vscode.l10n.t('Base URL of the endpoint'), placeHolder: 'https://api.example.com/v1', validateInput: urlProblem, ignoreFocusOut: true });
  const chosen = await pick<string | typeof TYPE_URL>(
    [...configured.map((e) => ({ label: e.name, detail: e.baseUrl, value: e.baseUrl })), { label: `$(link) ${vscode.l10n.t('Enter a URL…')}`, value: TYPE_URL }],
    title,
    'Endpoint',
  );
  if (chosen !== TYPE_URL) return chosen;
  return vscode.window.showInputBox({ title, prompt: vscode.l10n.t('Base URL of the endpoint'), validateInput: urlProblem, ignoreFocusOut: true });
}

/** The model question's answer: a model, or the user's wish to correct the URL that did not answer. */
const CHANGE_URL = Symbol('change the URL');

async function pickModel(
  endpoint: { baseUrl: string; headers: Record<string, string> },
  apiKey: string | undefined,
  title: string,
  log: vscode.LogOutputChannel,
): Promise<string | typeof CHANGE_URL | undefined> {
  for (;;) {
    const probe = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Listing models at {0}', endpoint.baseUrl) }, () =>
      probeEndpointByFetch(endpoint.baseUrl, { headers: endpoint.headers, ...(apiKey ? { apiKey } : {}), timeoutMs: MODEL_LIST_TIMEOUT_MS }),
    );
    const ids = probe.models;
    const problem = probe.error ?? '';
    if (probe.error) log.warn(probe.error);
    if (probe.engine) log.info(`${endpoint.baseUrl}: ${probe.engine.name}${probe.engine.version ? ` ${probe.engine.version}` : ''} (${probe.engine.evidence}).`);
    const TYPE = Symbol('type');
    if (ids.length > 0) {
      const chosen = await pick<string | typeof TYPE>(
        [...ids.map((id) => ({ label: id, value: id })), { label: `$(edit) ${vscode.l10n.t('Type a model name…')}`, value: TYPE }],
        title,
        vscode.l10n.t('Which model?'),
      );
      if (chosen !== TYPE) return chosen;
    } else if (!probe.reachable) {
      // Nothing answered: say what was tried and what to check, and let the user correct the URL
      // rather than start a run that can only fail.
      const RETRY = Symbol('retry');
      const choice = await pick<typeof CHANGE_URL | typeof RETRY | typeof TYPE>(
        [
          { label: `$(link) ${vscode.l10n.t('Change the URL…')}`, description: endpoint.baseUrl, detail: vscode.l10n.t('Tried GET {0}: {1}', modelsUrlOf(endpoint.baseUrl), problem), value: CHANGE_URL },
          { label: `$(refresh) ${vscode.l10n.t('Try again')}`, detail: vscode.l10n.t('Once the server is up: check that it runs, listens on that host and port, and that the URL ends in /v1'), value: RETRY },
          { label: `$(edit) ${vscode.l10n.t('Type a model name anyway')}`, detail: vscode.l10n.t('The run fails at once unless the server answers by then'), value: TYPE },
        ],
        title,
        vscode.l10n.t('Nothing answered at {0}', endpoint.baseUrl),
      );
      if (choice === undefined || choice === CHANGE_URL) return choice;
      if (choice === RETRY) continue;
    }
    return vscode.window.showInputBox({
      title,
      prompt: `${problem} ${vscode.l10n.t('The served model name, as the server expects it in requests.')}`.trim(),
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? vscode.l10n.t('Type the model name') : undefined),
    });
  }
}

/** Where the model list is asked for: the base URL's /models. */
function modelsUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/models`;
}

/**
 * The endpoint's model: its configured one, or asked (src/host/run-prompts.ts pickModel); a URL that
 * did not answer may be corrected there, and the model asked again at the new URL. Answers the
 * endpoint as corrected with its model, or undefined when the user leaves.
 */
async function endpointWithModel(
  memento: vscode.Memento,
  choice: Extract<EndpointChoice, { kind: 'server' }>,
  apiKeyFor: (baseUrl: string) => Promise<string | undefined>,
  title: string,
  log: vscode.LogOutputChannel,
): Promise<{ endpoint: Extract<EndpointChoice, { kind: 'server' }>; model: string } | undefined> {
  let endpoint = choice;
  for (;;) {
    if (endpoint.endpoint.model) return { endpoint, model: endpoint.endpoint.model };
    const model = await pickModel(endpoint.endpoint, await apiKeyFor(endpoint.endpoint.baseUrl), vscode.l10n.t('{0}: model at {1}', title, endpoint.endpoint.baseUrl), log);
    if (model === undefined || model === '') return undefined;
    if (model !== CHANGE_URL) return { endpoint, model };
    const url = await typeUrl(memento, vscode.l10n.t('{0}: the server\'s URL', title), endpoint.endpoint.baseUrl);
    if (url === undefined) return undefined;
    endpoint = { kind: 'server', endpoint: { ...endpoint.endpoint, baseUrl: url } };
  }
}

const CONFIG_FILE = Symbol('config file');
const TRACE_FILE = Symbol('trace file');

/** A trace file to replay, picked in the file dialog. */
async function pickTraceFile(title: string): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title,
    canSelectMany: false,
    openLabel: vscode.l10n.t('Replay this trace'),
    filters: { [vscode.l10n.t('Traces (JSONL, CSV)')]: ['jsonl', 'csv', 'json'], [vscode.l10n.t('All files')]: ['*'] },
    ...(vscode.workspace.workspaceFolders?.[0] ? { defaultUri: vscode.workspace.workspaceFolders[0].uri } : {}),
  });
  return picked?.[0]?.fsPath;
}

async function pickConfigFile(title: string): Promise<vscode.Uri | undefined> {
  const files = await vscode.workspace.findFiles('**/*.json', '{**/node_modules/**,**/*.llmbench.json,**/.vscode/**,**/package*.json,**/tsconfig*.json}', 500);
  if (files.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('LLM Bench: no JSON files in this workspace. A config file holds a run configuration (see the README).'));
    return undefined;
  }
  return pick(
    files.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), value: uri })),
    title,
    'A JSON file with a run configuration (endpoint, profile, limits, workload)',
  );
}

/** Reads a config file; what is wrong with it is a RunInputError in the wording both front ends share. */
async function loadConfigFile(uri: vscode.Uri): Promise<ConfigFile> {
  const shownAs = vscode.workspace.asRelativePath(uri);
  let text: string;
  try {
    text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch (error) {
    throw unreadableConfigFile(shownAs, uri.fsPath, error);
  }
  return { path: uri.fsPath, shownAs, settings: parseConfigFileText(text, shownAs) };
}

/** Reads a config file; shows what is wrong with it (and returns undefined) when it cannot be used. */
export async function readConfigFile(uri: vscode.Uri): Promise<ConfigFile | undefined> {
  try {
    return await loadConfigFile(uri);
  } catch (error) {
    if (!(error instanceof RunInputError)) throw error;
    void showConfigError(error.message, uri);
    return undefined;
  }
}

/** A plan from the `llmBench.run` command argument (see RunArgsSchema); a config file it cannot use is a RunInputError. */
export async function planFromArgument(args: RunArgs): Promise<RunPlan> {
  let file: ConfigFile | undefined;
  if (args.configFile !== undefined) {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const uri = isAbsolute(args.configFile) || !folder ? vscode.Uri.file(args.configFile) : vscode.Uri.joinPath(folder, args.configFile);
    file = await loadConfigFile(uri);
  }
  return { overrides: args.config, file, simulator: args.simulator, openResult: args.openResult, ownInput: 'the llmBench.run argument', nameOf: noFieldNames };
}

export async function showConfigError(message: string, file?: vscode.Uri): Promise<void> {
  const open = file ? vscode.l10n.t('Open File') : undefined;
  const answer = await vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: {0}', message), ...(open ? [open] : []));
  if (answer === open && file) await vscode.window.showTextDocument(file);
}

/** `llmBench.workers`, or auto when it is not a valid value. */
function workersSetting(): Workers {
  const parsed = WorkersSchema.safeParse(settings().get('workers'));
  return parsed.success ? parsed.data : 'auto';
}

/** The workers to run with: auto, or a number up to this machine's cores less one (or the setting's, if higher). */
async function chooseWorkers(title: string, current: Workers): Promise<Workers | undefined> {
  const most = maxWorkers();
  const numbers = Array.from({ length: Math.max(most, typeof current === 'number' ? current : 1) }, (_, i) => i + 1);
  const choices: Choice<Workers>[] = [
    { label: 'auto', detail: vscode.l10n.t('One worker unless the load needs more; at most {0} here ({1} cores less one)', most, availableParallelism()), value: 'auto' },
    ...numbers.map((n) => ({ label: String(n), detail: n === 1 ? vscode.l10n.t("The run's own thread sends every request") : vscode.l10n.t('{0} worker threads split every step', n), value: n })),
  ];
  // The current choice first, so that Enter keeps it.
  const ordered = [...choices.filter((c) => c.value === current), ...choices.filter((c) => c.value !== current)];
  return pick(ordered, vscode.l10n.t('{0}: workers', title), vscode.l10n.t('Threads that send the requests; a step whose client was the bottleneck says so'));
}

/**
 * The last question: the labels, field by field, and the workers, with the run's plan in one line
 * on the Start item (steps, requests, what can be said of the time beforehand).
 */
async function editLabels(memento: vscode.Memento, title: string, plan: string | null, workers: { value: Workers }): Promise<Record<string, string> | undefined> {
  const defaults = settings().get<Record<string, string>>('defaultLabels', {});
  const remembered = { ...canonicalLabels(defaults), ...canonicalLabels(memento.get<Record<string, string>>(LABELS_KEY, {})) };
  const labels = await editLabelFields(remembered, {
    title,
    placeHolder: vscode.l10n.t('Set labels (optional), then Start'),
    done: { label: `$(play) ${vscode.l10n.t('Start the benchmark')}` },
    // The plan alone on its line (VS Code cuts a long detail at the widget's 600 px: the plan's time
    // was cut behind the labels and workers); those go beside the label.
    doneDescription: (current) => [formatLabelsText(current) ? vscode.l10n.t('Labels: {0}', formatLabelsText(current)) : vscode.l10n.t('No labels'), vscode.l10n.t('Workers: {0}', String(workers.value))].join(' · '),
    ...(plan ? { doneDetail: () => plan } : {}),
    extra: () => ({
      label: vscode.l10n.t('Workers'),
      description: String(workers.value),
      detail: vscode.l10n.t('Threads that send the requests (auto: more than one only for a load one cannot keep)'),
      choose: async () => {
        workers.value = (await chooseWorkers(title, workers.value)) ?? workers.value;
      },
    }),
  });
  if (!labels) return undefined;
  await memento.update(LABELS_KEY, labels);
  return labels;
}

function endpointConfig(choice: Extract<EndpointChoice, { kind: 'server' }>, model: string): Record<string, unknown> {
  const { baseUrl, api, headers, reasoningTags } = choice.endpoint;
  return { baseUrl, api, headers, model, ...(reasoningTags !== undefined ? { reasoningTags } : {}) };
}

/**
 * What an endpoint's API adds to a preset's run: embeddings take `llmBench.embeddingBatch` inputs
 * per request (the presets' workload is every API's).
 */
function workloadForApi(overrides: Settings, api: string | undefined): Settings {
  if (api !== 'embeddings') return overrides;
  const batch = settings().get<number>('embeddingBatch');
  const workload = isPlainObject(overrides['workload']) ? overrides['workload'] : undefined;
  return workload && typeof batch === 'number' && batch > 1 ? { ...overrides, workload: { ...workload, embeddingBatch: batch } } : overrides;
}

/** The simulator as the settings describe it: its preset, and its reasoning when asked for. */
function simulatorOptions(preset: PresetName): Record<string, unknown> {
  const tokens = settings().get<number>('simulator.reasoningTokens');
  const field = settings().get<string>('simulator.reasoningField');
  return { preset, ...(typeof tokens === 'number' && tokens > 0 ? { reasoning: { tokens, ...(field ? { field } : {}) } } : {}) };
}

/** The whole interactive flow; undefined when the user stops at any question. */
export async function promptRunPlan(
  memento: vscode.Memento,
  apiKeyFor: (baseUrl: string) => Promise<string | undefined>,
  log: vscode.LogOutputChannel,
): Promise<RunPlan | undefined> {
  const title = vscode.l10n.t('Run LLM Benchmark');
  // Three questions; the model of a server is part of the first (a simulator or a configured model has none to ask).
  const picked = await pickEndpoint(memento, vscode.l10n.t('{0} (1/3): endpoint', title));
  if (!picked) return undefined;
  let endpoint: EndpointChoice = picked;
  let model: string | undefined;
  if (picked.kind === 'server') {
    const withModel = await endpointWithModel(memento, picked, apiKeyFor, vscode.l10n.t('{0} (1/3)', title), log);
    if (!withModel) return undefined;
    ({ endpoint, model } = withModel);
  }
  // Every preset setting is named as its field, under llmBench.
  const presetSettings = PresetSettingsSchema.safeParse(Object.fromEntries(Object.keys(PresetSettingsSchema.shape).map((key) => [key, settings().get(key)])));
  const choices = presets(presetSettings.success ? presetSettings.data : PresetSettingsSchema.parse({}), (key, ...args) => vscode.l10n.t(key, ...args));
  if (!presetSettings.success) void vscode.window.showWarningMessage(vscode.l10n.t('LLM Bench: some preset settings are invalid; using the defaults for them.'));
  const profile = await pick<(typeof choices)[number] | typeof CONFIG_FILE | typeof TRACE_FILE>(
    [
      ...choices.map((p) => ({ label: p.label, detail: p.detail, value: p })),
      {
        label: `$(history) ${vscode.l10n.t('Replay a trace…')}`,
        detail: vscode.l10n.t('A production trace (Mooncake JSONL, Azure or BurstGPT CSV), each request at its recorded time (settings llmBench.traceTimeScale, llmBench.traceSkipBadRows)'),
        value: TRACE_FILE,
      },
      { label: `$(file) ${vscode.l10n.t('From a config file…')}`, detail: vscode.l10n.t('A JSON run configuration in the workspace'), value: CONFIG_FILE },
    ],
    vscode.l10n.t('{0} (2/3): profile', title),
    vscode.l10n.t('What load to apply?'),
  );
  if (!profile) return undefined;
  let overrides: Settings = {};
  let file: ConfigFile | undefined;
  if (profile === CONFIG_FILE) {
    const uri = await pickConfigFile(vscode.l10n.t('{0} (2/3): config file', title));
    if (!uri) return undefined;
    file = await readConfigFile(uri);
    if (!file) return undefined;
  } else if (profile === TRACE_FILE) {
    const path = await pickTraceFile(vscode.l10n.t('{0} (2/3): trace file', title));
    if (!path) return undefined;
    overrides = { ...tracePreset(presetSettings.success ? presetSettings.data : PresetSettingsSchema.parse({}), path).config };
  } else {
    overrides = { ...profile.config };
  }
  // A config file's own workers stand unless the user picks other ones here.
  const fileWorkers = file?.settings['workers'];
  const workers = { value: (fileWorkers === undefined ? workersSetting() : WorkersSchema.safeParse(fileWorkers).data) ?? workersSetting() };
  const initialWorkers = workers.value;
  const planned = planOf((file ? { ...file.settings, ...overrides } : overrides) as Parameters<typeof planOf>[0]);
  const labels = await editLabels(memento, vscode.l10n.t('{0} (3/3): labels', title), planned ? planText(planned, (key, ...args) => vscode.l10n.t(key, ...args)) : null, workers);
  if (!labels) return undefined;
  if (workers.value !== initialWorkers) overrides['workers'] = workers.value;
  // Labels typed now are remembered defaults; a file's own labels say more about its run.
  const fileLabels = isPlainObject(file?.settings['labels']) ? file.settings['labels'] : {};
  overrides['labels'] = Object.fromEntries(Object.entries(labels).filter(([key]) => !(key in fileLabels)));
  const plan = { file, openResult: true, ownInput: 'the run settings', nameOf: presetFieldSetting };
  if (endpoint.kind === 'simulator') return { ...plan, overrides, simulator: simulatorOptions(endpoint.preset) };
  return { ...plan, overrides: { ...workloadForApi(overrides, endpoint.endpoint.api), endpoint: endpointConfig(endpoint, model ?? '') }, simulator: undefined };
}

/** From a config file's context menu: runs it as is, asking only for an endpoint it lacks. */
export async function planFromConfigFile(
  file: vscode.Uri,
  memento: vscode.Memento,
  apiKeyFor: (baseUrl: string) => Promise<string | undefined>,
  log: vscode.LogOutputChannel,
): Promise<RunPlan | undefined> {
  const config = await readConfigFile(file);
  if (!config) return undefined;
  const plan = { file: config, openResult: true, ownInput: 'the run settings', nameOf: presetFieldSetting, simulator: undefined };
  if (config.settings['endpoint'] !== undefined) return { ...plan, overrides: {} };
  const endpoint = await pickEndpoint(memento, `Run ${config.shownAs}: endpoint (the file names none)`);
  if (!endpoint) return undefined;
  if (endpoint.kind === 'simulator') return { ...plan, overrides: {}, simulator: simulatorOptions(endpoint.preset) };
  const withModel = await endpointWithModel(memento, endpoint, apiKeyFor, vscode.l10n.t('Run {0}', config.shownAs), log);
  if (!withModel) return undefined;
  return { ...plan, overrides: { endpoint: endpointConfig(withModel.endpoint, withModel.model) } };
}
