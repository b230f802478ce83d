/**
 * Command-line argument parsing shared by the `llmbench` subcommands. Hand-written rather than
 * node's util.parseArgs so that every mistake gets a message naming the flag and what to do
 * (`--rate: '-1' must be greater than 0; ...`), and values may start with a dash.
 */

/** Bad input from the user: the command prints the message and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface FlagSpec {
  /** `boolean` takes no value; `optional` takes one only when the next word is not a flag. */
  kind: 'string' | 'boolean' | 'optional';
  repeatable?: boolean;
}

export class ParsedFlags {
  constructor(
    private readonly values: ReadonlyMap<string, readonly string[]>,
    readonly positionals: readonly string[],
  ) {}

  has(flag: string): boolean {
    return this.values.has(flag);
  }

  /** The flag's value; '' for a boolean or an `optional` flag given without one. */
  get(flag: string): string | undefined {
    return this.values.get(flag)?.at(-1);
  }

  all(flag: string): readonly string[] {
    return this.values.get(flag) ?? [];
  }
}

/**
 * Parses `--flag value`, `--flag=value`, booleans and repeatable flags. `command` names the
 * subcommand in messages (`llmbench run`).
 */
export function parseFlags(argv: readonly string[], specs: Readonly<Record<string, FlagSpec>>, command: string): ParsedFlags {
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (!word.startsWith('--') || word === '--') {
      positionals.push(word);
      continue;
    }
    const equals = word.indexOf('=');
    const flag = equals === -1 ? word : word.slice(0, equals);
    const spec = specs[flag];
    if (!spec) {
      throw new UsageError(`${flag} is not an option of ${command} (see ${command} --help)`);
    }
    let value: string;
    if (equals !== -1) {
      if (spec.kind === 'boolean') throw new UsageError(`${flag} takes no value (got '${word.slice(equals + 1)}')`);
      value = word.slice(equals + 1);
    } else if (spec.kind === 'boolean') {
      value = '';
    } else {
      const next = argv[i + 1];
      const nextIsValue = next !== undefined && !(next.startsWith('--') && next.length > 2);
      if (nextIsValue) {
        value = next;
        i++;
      } else if (spec.kind === 'optional') {
        value = '';
      } else {
        throw new UsageError(`${flag} needs a value (see ${command} --help)`);
      }
    }
    const previous = values.get(flag);
    if (previous && !spec.repeatable) throw new UsageError(`${flag} is given more than once; give it once`);
    values.set(flag, [...(previous ?? []), value]);
  }
  return new ParsedFlags(values, positionals);
}

export interface NumberRule {
  integer?: boolean;
  /** Smallest allowed value; `exclusive` makes it a strict bound (a rate must be > 0). */
  min: number;
  exclusive?: boolean;
  /** What the flag wants, as told to the user: `requests per second like --rate 1,2.5`. */
  hint: string;
}

export function parseNumber(flag: string, text: string, rule: NumberRule): number {
  const trimmed = text.trim();
  const value = trimmed === '' ? NaN : Number(trimmed);
  const fail = (what: string) => new UsageError(`${flag}: '${text}' ${what}; give ${rule.hint}`);
  if (!Number.isFinite(value)) throw fail('is not a number');
  if (rule.integer && !Number.isInteger(value)) throw fail('must be a whole number');
  if (rule.exclusive ? value <= rule.min : value < rule.min) {
    throw fail(`must be ${rule.exclusive ? 'greater than' : 'at least'} ${rule.min}`);
  }
  return value;
}

/** A comma-separated list of numbers: `1,8,64`. */
export function parseNumberList(flag: string, text: string, rule: NumberRule): number[] {
  const parts = text.split(',');
  if (parts.some((p) => p.trim() === '')) throw new UsageError(`${flag}: '${text}' has an empty item; give ${rule.hint}`);
  return parts.map((part) => parseNumber(flag, part, rule));
}

export function parseChoice<T extends string>(flag: string, text: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(text)) return text as T;
  const list = choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : choices.join('');
  throw new UsageError(`${flag}: '${text}' is not one of the choices; choose ${list}`);
}

/** `key=value`; `what` names the item in messages (`a label`). */
export function parseKeyValue(flag: string, text: string, what: string, example: string): [string, string] {
  const equals = text.indexOf('=');
  const key = equals === -1 ? '' : text.slice(0, equals).trim();
  if (!key) throw new UsageError(`${flag}: '${text}' is not ${what}; write key=value like ${flag} ${example}`);
  return [key, text.slice(equals + 1).trim()];
}
