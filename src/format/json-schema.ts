/**
 * The JSON Schemas of result files, run config files, tune config files and tune files, generated from the zod schemas at build
 * time (esbuild.mjs writes them to media/) so that other tools, and VS Code's JSON editor, validate
 * the same shapes the extension and the command line parse.
 */
import * as z from 'zod';
import { CONFIG_FILE_SCHEMA_KEY, RunConfigSchema } from './config';
import { ResultDocumentSchema } from './result';
import { TuneConfigSchema, TuneFileSchema } from './tune';

export function resultJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ResultDocumentSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'LLM Bench result document (*.llmbench.json)',
  };
}

/** A config as a person writes it (defaults optional), plus the `$schema` key editors use. */
function configFileJsonSchema(config: z.ZodType, title: string): Record<string, unknown> {
  const schema = z.toJSONSchema(config, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const properties = schema['properties'] as Record<string, unknown>;
  return {
    ...schema,
    title,
    properties: { [CONFIG_FILE_SCHEMA_KEY]: { type: 'string', description: 'The JSON Schema this file follows (ignored by LLM Bench).' }, ...properties },
  };
}

export function runConfigJsonSchema(): Record<string, unknown> {
  return configFileJsonSchema(RunConfigSchema, 'LLM Bench run configuration (*.llmbench-config.json)');
}

export function tuneConfigJsonSchema(): Record<string, unknown> {
  return configFileJsonSchema(TuneConfigSchema, 'LLM Bench tune configuration (*.llmtune-config.json)');
}

export function tuneFileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(TuneFileSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'LLM Bench tune file (*.llmtune.json)',
  };
}
