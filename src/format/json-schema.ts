/**
 * The JSON Schemas of result files and run config files, generated from the zod schemas at build
 * time (esbuild.mjs writes them to media/) so that other tools, and VS Code's JSON editor, validate
 * the same shapes the extension and the command line parse.
 */
import * as z from 'zod';
import { CONFIG_FILE_SCHEMA_KEY, RunConfigSchema } from './config';
import { ResultDocumentSchema } from './result';

export function resultJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ResultDocumentSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'LLM Bench result document (*.llmbench.json)',
  };
}

/** The run config as a person writes it (defaults optional), plus the `$schema` key editors use. */
export function runConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(RunConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const properties = schema['properties'] as Record<string, unknown>;
  return {
    ...schema,
    title: 'LLM Bench run configuration (*.llmbench-config.json)',
    properties: { [CONFIG_FILE_SCHEMA_KEY]: { type: 'string', description: 'The JSON Schema this file follows (ignored by LLM Bench).' }, ...properties },
  };
}
