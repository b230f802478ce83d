/** Labels asked for when a run starts, stored in its result and remembered for the next run. */
export const LABEL_KEYS = ['engine', 'hardware', 'gpus', 'quantization'] as const;
/** Keeps non-empty labels only, trimmed. */
export function cleanLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [k.trim(), v.trim()]).filter(([k, v]) => k !== '' && v !== ''));
}
