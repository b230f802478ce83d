/**
 * The options of the cluster launchers (`llmbench cluster slurm|k8s`) as zod schemas: one schema
 * per launcher, keyed by the option's name in camelCase, whose flag is its kebab-case form
 * (`tasksPerNode` is `--tasks-per-node`). The command line hands the flags' raw text to
 * `parseLauncherOptions`, which answers typed options or one message per wrong flag saying what to
 * give. The pieces below are shared by both launchers.
 */
import * as z from 'zod';
import { DEFAULT_COORDINATOR_PORT, launcherOwnedFlag, launcherOwnedMessage } from './shard-command';

/** `tasksPerNode` -> `--tasks-per-node`. */
export function flagOf(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Options wrong in the user's terms: the command line prints the message and exits 2. */
export class LauncherOptionsError extends Error {
  override readonly name = 'LauncherOptionsError';
}

/** The raw option values: a flag's text, `true` for a boolean flag, a list for a repeatable one. */
export type RawOptions = Record<string, string | boolean | readonly string[] | undefined>;

/**
 * Typed options, or a LauncherOptionsError naming each wrong flag with the value given:
 * `--nodes: 'four' is not a whole number; give ...`, `--out is required: ...`.
 */
export function parseLauncherOptions<T extends z.ZodType>(schema: T, raw: RawOptions): z.output<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data as z.output<T>;
  const lines = parsed.error.issues.map((issue) => {
    const key = issue.path[0];
    if (typeof key !== 'string') return issue.message;
    if (key === RUN_FLAGS_KEY) return `the run flags after --: ${issue.message}`;
    const value = raw[key];
    const flag = flagOf(key);
    if (value === undefined) return `${flag} ${issue.message}`;
    const shown = Array.isArray(value) ? String(value[Number(issue.path[1] ?? 0)] ?? value.join(' ')) : String(value);
    return `${flag}: '${shown}' ${issue.message}`;
  });
  throw new LauncherOptionsError([...new Set(lines)].join('\n'));
}

/**
 * Checks across options, as a zod `.check`: run only when every option parsed, so that the values
 * are typed; `fail(key, message)` words a problem about the option `key`.
 */
export function crossCheck<T>(check: (options: T, fail: (key: string, message: string) => void) => void): (payload: z.core.ParsePayload<T>) => void {
  return (payload) => {
    if (payload.issues.length > 0) return;
    check(payload.value, (key, message) => payload.issues.push({ code: 'custom', path: [key], message, input: payload.value }));
  };
}

/** A whole number from a flag's text, at least `min`. */
export function wholeNumber(min: number, hint: string) {
  return z
    .string({ error: `is required: give ${hint}` })
    .regex(/^\s*[0-9]{1,9}\s*$/, { error: `is not a whole number; give ${hint}` })
    .transform(Number)
    .refine((n) => n >= min, { error: `must be at least ${min}; give ${hint}` });
}

export const portOption = wholeNumber(1, `a TCP port like --port ${DEFAULT_COORDINATOR_PORT}`)
  .refine((n) => n <= 65535, { error: 'is above 65535, the highest TCP port' })
  .default(DEFAULT_COORDINATOR_PORT);

/** The options' key for the user's `llmbench run` flags, which come after `--` rather than as a flag. */
export const RUN_FLAGS_KEY = 'runFlags';

/** No NUL (no argv or file can hold one) and no lone UTF-16 surrogate (no UTF-8 file can). */
export function isWritableText(text: string): boolean {
  return !text.includes('\0') && !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** Text the launcher writes as one word, quoted or exec-form: any characters but NUL and broken UTF-16. */
export function anyText(what: string) {
  return z
    .string({ error: `is required: ${what}` })
    .refine((s) => s.length > 0, { error: `is empty; give ${what}` })
    .refine(isWritableText, { error: 'holds a NUL or a broken character' });
}

/** The program each shard runs: `llmbench` on the nodes' PATH, or a path to it (a `.js` file runs under `node`). */
export const llmbenchOption = z
  .string()
  .refine((s) => s.trim() !== '' && !s.startsWith('-'), { error: 'must name the llmbench program, like --llmbench /shared/llm-bench/dist/cli.js' })
  .refine((s) => !s.includes('\n') && isWritableText(s), { error: 'holds a NUL, a newline or a broken character' })
  .default('llmbench');

/** The program's argv: `llmbench`, or `node FILE.js` for a bundle such as dist/cli.js. */
export function llmbenchArgv(program: string): string[] {
  return /\.[cm]?js$/.test(program) ? ['node', program] : [program];
}

/**
 * The user's `llmbench run` flags, after `--`: passed word for word, less the flags a launcher
 * sets itself (LAUNCHER_OWNED_RUN_FLAGS). Which flags `llmbench run` knows is the command line's
 * to check (it has the list).
 */
export const runFlagsOption = z
  .array(z.string())
  .default([])
  .superRefine((words, ctx) => {
    for (const word of words) {
      const owned = launcherOwnedFlag(word);
      if (owned !== undefined) ctx.addIssue({ code: 'custom', message: launcherOwnedMessage(owned) });
      if (!isWritableText(word)) ctx.addIssue({ code: 'custom', message: `'${word}' holds a NUL or a broken character` });
    }
    if (!words.some((w) => w === '--url' || w.startsWith('--url=') || w === '--config' || w.startsWith('--config='))) {
      ctx.addIssue({ code: 'custom', message: 'no server is named: give --url URL --model NAME (or --config FILE), as to llmbench run' });
    }
  });
