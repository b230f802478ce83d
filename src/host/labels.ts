/** Labels asked for when a run starts, stored in its result and remembered for the next run. */
/** The keys offered by name, as the command line (--label gpu=...) and the importers write them: one key per meaning (src/format/config.ts LABEL_ALIASES). */
export const LABEL_KEYS = ['engine', 'gpu', 'gpus', 'quantization', 'model'] as const;
/** Keeps non-empty labels only, trimmed. */
export function cleanLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [k.trim(), v.trim()]).filter(([k, v]) => k !== '' && v !== ''));
}
