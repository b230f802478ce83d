/**
 * Editing a result's labels after the run: only the `labels` object of the file changes; every
 * other byte of meaning (measurements, config, steps) is carried over from the parsed original.
 */
import { LabelsSchema, type Labels } from '../format/config';
import { parseResultDocument, type ParseOutcome } from '../format/result';

/** `engine=vllm, gpu=A100 x2` as labels; an empty text clears them. */
export function parseLabelsText(text: string): ParseOutcome<Labels> {
  const labels: Labels = {};
  for (const part of text.split(',').map((p) => p.trim()).filter((p) => p.length > 0)) {
    const equals = part.indexOf('=');
    const key = equals === -1 ? '' : part.slice(0, equals).trim();
    if (!key) return { ok: false, error: `'${part}' is not a label: write key=value pairs separated by commas, like engine=vllm, gpu=A100` };
    labels[key] = part.slice(equals + 1).trim();
  }
  return { ok: true, value: LabelsSchema.parse(labels) };
}

export const formatLabelsText = (labels: Labels): string =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

/** The file's text with its labels replaced. Refuses text that is not a valid result. */
export function withLabels(text: string, labels: Labels): ParseOutcome<string> {
  const parsed = parseResultDocument(text);
  if (!parsed.ok) return parsed;
  const raw = JSON.parse(text) as Record<string, unknown>;
  raw['labels'] = labels;
  return { ok: true, value: JSON.stringify(raw, null, 2) + '\n' };
}
