/**
 * Reading a tune config: the schema first, then what the schema cannot say alone. Every parameter
 * must reach the command (a `{name}` placeholder or its `args`), every placeholder must name a
 * parameter or the port, a bool's placeholder must be a whole argument, rules must name
 * parameters of the space, and the benchmark must be a valid run config once it has an endpoint.
 * Each problem is worded with the field it is in and what to do.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { RUN_PRESET_IDS, withoutSchemaKey } from '../format/config';
import { describeZodError } from '../format/result';
import { TuneConfigSchema, type Comparison, type LoadSearch, type TuneConfig } from '../format/tune';
import { isPlainObject, mergeSettings, parseConfigFileText, prepareRun, RunInputError, type PreparedRun, type Settings } from '../run/prepare';
import { PresetSettingsSchema, presets } from '../run/presets';
import { containerRunOf } from './container';
import { placeholdersOf } from './space';
import { messageOf } from '../format/errors';

export class TuneConfigError extends Error {
  override readonly name = 'TuneConfigError';
}

/** Parses a tune config file's text; `shownAs` names the file in messages (`--config tune.json`). */
export function parseTuneConfigText(text: string, shownAs: string): TuneConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new TuneConfigError(`${shownAs} is not valid JSON (${(error as Error).message}); fix the file and run it again`);
  }
  if (!isPlainObject(raw)) throw new TuneConfigError(`${shownAs} must hold a JSON object with server, space, benchmark, objective and budget`);
  const parsed = TuneConfigSchema.safeParse(withoutSchemaKey(raw));
  if (!parsed.success) throw new TuneConfigError(`${shownAs}: ${describeZodError(parsed.error)}`);
  checkConsistency(parsed.data, shownAs);
  return parsed.data;
}

export function readTuneConfigFile(path: string, shownAs: string): { config: TuneConfig; configDir: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new TuneConfigError(`${shownAs}: cannot read '${resolve(path)}' (${(error as NodeJS.ErrnoException).code ?? String(error)}); check the path`);
  }
  const config = parseTuneConfigText(text, shownAs);
  const configDir = dirname(resolve(path));
  benchmarkSource(config, configDir, shownAs, process.env);
  return { config, configDir };
}

function checkConsistency(config: TuneConfig, shownAs: string): void {
  const fail = (message: string): never => {
    throw new TuneConfigError(`${shownAs}: ${message}`);
  };
  const names = Object.keys(config.space);
  const used = placeholdersOf(config.server.command);
  for (const name of used) {
    if (name !== 'port' && !names.includes(name)) fail(`server.command uses {${name}}, which is not a parameter of space (${names.join(', ')}); add it to space or fix the name`);
  }
  for (const [name, spec] of Object.entries(config.space)) {
    if (spec.type === 'bool') {
      if (used.has(name) && !config.server.command.includes(`{${name}}`)) {
        fail(`space.${name} is a bool: its placeholder {${name}} must be a whole argument of server.command (it becomes its arguments, or none)`);
      }
    } else if (!used.has(name) && !spec.args) {
      fail(`space.${name} never reaches the server: put {${name}} in server.command (like "--flag", "{${name}}") or give it "args": ["--flag", "{value}"]`);
    }
  }
  if (!used.has('port')) fail('server.command has no {port}: the tuner picks a free port per trial and benchmarks the server there; add "--port", "{port}"');
  if (containerRunOf(config.server.command)?.detached) {
    fail('server.command runs its container detached (-d): the tuner follows a server through its command until it stops it; drop -d (the tuner names the container and stops it with docker stop)');
  }
  config.constraints.forEach((constraint, i) => {
    if (typeof constraint === 'string') return;
    for (const comparison of [...constraint.when, constraint.require] as Comparison[]) {
      for (const operand of [comparison[0], comparison[2]]) {
        if (typeof operand === 'string' && !names.includes(operand)) {
          fail(`constraints.${i} (${constraint.name}) names '${operand}', which is not a parameter of space; for a text value write {"value": "${operand}"}`);
        }
      }
    }
  });
  if (config.objective.mode === 'maximize' && config.objective.maximize === 'goodput' && typeof config.benchmark !== 'string' && !config.benchmark.slo) {
    fail('objective.maximize goodput needs benchmark.slo (ttftMs, tpotMs and/or e2eMs): goodput counts the requests that meet it');
  }
}

/** A benchmark's run settings without an endpoint's base URL, and the folder their relative paths resolve against. */
export interface BenchmarkSource {
  settings: Settings;
  dir: string;
  shownAs: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** The benchmark's run settings (a config file read when it is a path), checked against a stand-in endpoint. */
export function benchmarkSource(config: TuneConfig, configDir: string, shownAs: string, env: BenchmarkSource['env']): BenchmarkSource {
  let settings: Settings;
  let fileDir = configDir;
  if (typeof config.benchmark === 'string') {
    const path = resolve(configDir, config.benchmark);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new TuneConfigError(`${shownAs}: benchmark: cannot read '${path}' (${(error as NodeJS.ErrnoException).code ?? String(error)}); check the path`);
    }
    try {
      settings = parseConfigFileText(text, `${shownAs}: benchmark ${config.benchmark}`);
    } catch (error) {
      throw new TuneConfigError(messageOf(error));
    }
    fileDir = dirname(path);
  } else if ('preset' in config.benchmark) {
    const { preset, ...over } = config.benchmark;
    const base = presets(PresetSettingsSchema.parse({})).find((candidate) => candidate.id === preset);
    if (!base) throw new TuneConfigError(`${shownAs}: benchmark.preset '${String(preset)}' is not a preset; choose ${RUN_PRESET_IDS.join(', ')}, or give a run config`);
    settings = mergeSettings(base.config, over) as Settings;
  } else {
    settings = config.benchmark as Settings;
  }
  const source = { settings, dir: fileDir, shownAs: `${shownAs}: benchmark`, env };
  // Checked once now, against a stand-in endpoint, so that a bad benchmark fails before any launch;
  // for max-load-within-slo, the probes at both ends of the load searched are what runs.
  if (config.objective.mode === 'max-load-within-slo') {
    const { load } = config.objective;
    const { low, high } = loadBounds(load);
    for (const [end, value] of [['load.min', low], ['load.max', high]] as const) {
      const probe = probeSource(source, load, value);
      try {
        prepareBenchmark(probe, 'http://127.0.0.1:1/v1', 'model');
      } catch (error) {
        const what = load.kind === 'rate' ? `${value.toLocaleString('en-US')} req/s` : `concurrency ${value.toLocaleString('en-US')}`;
        throw new TuneConfigError(`${shownAs}: objective.${end}: a probe at ${what} cannot run this benchmark: ${(error as Error).message}`);
      }
    }
  } else {
    prepareBenchmark(source, 'http://127.0.0.1:1/v1', 'model');
  }
  return source;
}

/** The loads a max-load-within-slo search may probe: its bounds, whole numbers for concurrency. */
export function loadBounds(load: LoadSearch): { low: number; high: number } {
  if (load.kind !== 'concurrency') return { low: load.min, high: load.max };
  const low = Math.max(1, Math.round(load.min));
  return { low, high: Math.max(low, Math.round(load.max)) };
}

/**
 * The benchmark of one max-load-within-slo probe: its profile replaced by one step at `value` of
 * the load searched (a rate profile's arrival process and burstiness kept), never merged with it:
 * a ramp or a sweep's own fields would make another profile of it.
 */
export function probeSource(source: BenchmarkSource, load: LoadSearch, value: number): BenchmarkSource {
  const base = isPlainObject(source.settings.profile) ? source.settings.profile : {};
  const profile =
    load.kind === 'concurrency'
      ? { kind: 'concurrency', levels: [value] }
      : { kind: 'rate', rates: [value], ...(base.kind === 'rate' || base.kind === 'sweep' ? Object.fromEntries(Object.entries(base).filter(([key]) => key === 'arrival' || key === 'burstiness')) : {}) };
  return { ...source, settings: { ...source.settings, profile } };
}

/** A trial's benchmark prepared (not run) against the server at baseUrl (the model: the benchmark's, else the server's). */
export function prepareBenchmark(source: BenchmarkSource, baseUrl: string, model: string, overrides: Settings = {}): PreparedRun {
  const endpoint = isPlainObject(source.settings.endpoint) ? source.settings.endpoint : {};
  try {
    return prepareRun({
      overrides: { ...overrides, endpoint: { ...endpoint, baseUrl, model: endpoint.model ?? model } },
      file: { path: resolve(source.dir, 'benchmark.json'), shownAs: source.shownAs, settings: source.settings },
      workingDir: source.dir,
      env: source.env,
      nameOf: () => undefined,
      ownInput: source.shownAs,
    });
  } catch (error) {
    if (error instanceof RunInputError) throw new TuneConfigError(error.message);
    throw error;
  }
}
