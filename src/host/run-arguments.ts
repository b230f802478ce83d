/**
 * What the `llmBench.run` command takes from other extensions, tasks and tests. No `vscode` import:
 * unit-tested in Node.
 */
import * as z from 'zod';
import { describeZodError } from '../format/result';

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
