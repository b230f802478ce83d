/**
 * The search space: how each parameter is drawn, placed on the unit interval for the search, and
 * turned into the server's arguments. Values reach the server only as whole argv elements (or
 * inside one element, `--x={name}`), never through a shell.
 */
import { PORT_PLACEHOLDER, type ParamSpec, type Params, type ParamValue, type ServerConfig, type TuneConfig } from '../format/tune';
import type { Random } from '../workload/random';

export type Space = TuneConfig['space'];

/** How many values a parameter can take. */
export function valueCount(spec: ParamSpec): number {
  if (spec.type === 'bool') return 2;
  if (spec.type === 'choice') return spec.values.length;
  return Math.floor((spec.max - spec.min) / (spec.step ?? 1)) + 1;
}

/** Combinations in the space (Infinity beyond what a number holds exactly). */
export function spaceSize(space: Space): number {
  return Object.values(space).reduce((n, spec) => n * valueCount(spec), 1);
}

/**
 * A parameter's value as a point of [0, 1]: log-scaled integers by their logarithm, numeric
 * choices by their rank (ordered, so that neighbours are alike), string choices and bools by index
 * (the search treats them as categories).
 */
export function toUnit(spec: ParamSpec, value: ParamValue): number {
  if (spec.type === 'bool') return value === true ? 1 : 0;
  if (spec.type === 'choice') return spec.values.length === 1 ? 0.5 : spec.values.indexOf(value as number | string) / (spec.values.length - 1);
  if (spec.min === spec.max) return 0.5;
  const v = value as number;
  return spec.log ? Math.log(v / spec.min) / Math.log(spec.max / spec.min) : (v - spec.min) / (spec.max - spec.min);
}

/** The value nearest a point of [0, 1] (the inverse of toUnit, snapped to a value the parameter takes). */
export function fromUnit(spec: ParamSpec, unit: number): ParamValue {
  const u = Math.min(1, Math.max(0, unit));
  if (spec.type === 'bool') return u >= 0.5;
  if (spec.type === 'choice') return spec.values[Math.round(u * (spec.values.length - 1))] as number | string;
  const raw = spec.log ? spec.min * Math.pow(spec.max / spec.min, u) : spec.min + u * (spec.max - spec.min);
  const step = spec.step ?? 1;
  return Math.min(spec.max, spec.min + Math.round((raw - spec.min) / step) * step);
}

/** Categorical parameters: their values have no order. */
export const isCategorical = (spec: ParamSpec): boolean => spec.type === 'bool' || (spec.type === 'choice' && spec.values.some((v) => typeof v === 'string'));

/** The values of a categorical parameter, in index order. */
export const categories = (spec: ParamSpec): readonly ParamValue[] => (spec.type === 'bool' ? [false, true] : spec.type === 'choice' ? spec.values : []);

/** A value drawn evenly (log-evenly for log ranges; by index for choices). */
export function drawValue(spec: ParamSpec, random: Random): ParamValue {
  if (spec.type === 'int' && !spec.log) return spec.min + random.int(0, valueCount(spec) - 1) * (spec.step ?? 1);
  if (spec.type === 'int') return fromUnit(spec, random.next());
  const values = categories(spec);
  return values[random.int(0, values.length - 1)] as ParamValue;
}

export function drawParams(space: Space, random: Random): Params {
  return Object.fromEntries(Object.entries(space).map(([name, spec]) => [name, drawValue(spec, random)]));
}

/** The same combination: a key for "already tried". */
export const paramsKey = (params: Params): string => JSON.stringify(Object.keys(params).sort().map((k) => [k, params[k]]));

/** Why a value does not belong to the space, or undefined: for tune files read back (--resume). */
export function invalidValue(spec: ParamSpec, value: ParamValue | undefined): string | undefined {
  if (value === undefined) return 'is missing';
  if (spec.type === 'bool') return typeof value === 'boolean' ? undefined : 'is not true or false';
  if (spec.type === 'choice') return spec.values.includes(value as number | string) ? undefined : `is not one of ${spec.values.join(', ')}`;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < spec.min || value > spec.max) return `is not a whole number from ${spec.min} to ${spec.max}`;
  return (value - spec.min) % (spec.step ?? 1) === 0 ? undefined : `is not ${spec.min} plus a multiple of ${spec.step}`;
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g;

/** The names a command uses as placeholders, `port` included. */
export function placeholdersOf(command: readonly string[]): Set<string> {
  return new Set(command.flatMap((word) => [...word.matchAll(PLACEHOLDER)].map((m) => m[1] as string)));
}

function boolArguments(spec: Extract<ParamSpec, { type: 'bool' }>, value: boolean): string[] {
  const args = value ? spec.true : spec.false;
  return args === undefined ? [] : typeof args === 'string' ? [args] : args;
}

/**
 * The server's argv for a combination: placeholders filled (a bool's `{name}` becomes its
 * arguments, or nothing), parameters the command does not name appended (their `args`; a bool's
 * arguments), and a first word `llmbench` replaced by
 * this package's command line. `port` null leaves `{port}` in place (for checks before a launch).
 */
export function commandFor(server: ServerConfig, space: Space, params: Params, port: number | null, llmbenchCommand: readonly string[]): string[] {
  const fill = (word: string): string =>
    word.replace(PLACEHOLDER, (whole, name: string) => {
      if (name === 'port') return port === null ? PORT_PLACEHOLDER : String(port);
      const value = params[name];
      return value === undefined ? whole : String(value);
    });
  const argv = server.command.flatMap((word) => {
    const whole = /^\{([A-Za-z_][A-Za-z0-9_.-]*)\}$/.exec(word)?.[1];
    const spec = whole === undefined ? undefined : space[whole];
    if (whole !== undefined && spec?.type === 'bool') return boolArguments(spec, params[whole] === true);
    return [fill(word)];
  });
  const used = placeholdersOf(server.command);
  for (const [name, spec] of Object.entries(space)) {
    if (used.has(name)) continue;
    if (spec.type === 'bool') argv.push(...boolArguments(spec, params[name] === true));
    else if (spec.args) argv.push(...spec.args.map((word) => word.split('{value}').join(String(params[name]))));
  }
  return argv[0] === 'llmbench' ? [...llmbenchCommand, ...argv.slice(1)] : argv;
}

/**
 * A combination's command as the user wrote it, to paste: `llmbench` as its first word (not the
 * Node and bundle that ran it), and without the trial's own port, which the next server would not
 * be given: `--port {port}` and `--port={port}` are left out, a `{port}` inside another argument
 * (`-p {port}:8000`) stays for the reader to fill in.
 */
export function writtenCommand(server: ServerConfig, space: Space, params: Params): string[] {
  const argv = commandFor(server, space, params, null, ['llmbench']);
  const written: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    const next = argv[i + 1];
    if (word.startsWith('-') && next === PORT_PLACEHOLDER) {
      i++;
      continue;
    }
    if (/^--?[\w-]+=\{port\}$/.test(word)) continue;
    written.push(word);
  }
  return written;
}
