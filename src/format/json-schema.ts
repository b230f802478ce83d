/**
 * The JSON Schema of result files, generated from the zod schema at build time (esbuild.mjs writes
 * it to media/llmbench.schema.json) so that other tools, and VS Code's JSON editor, validate the
 * same shape the extension parses.
 */
import * as z from 'zod';
import { ResultDocumentSchema } from './result';

export function resultJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ResultDocumentSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'LLM Bench result document (*.llmbench.json)',
  };
}
