/** Labels asked for when a run starts, stored in its result and remembered for the next run. */
export const LABEL_KEYS = ['engine', 'hardware', 'gpus', 'quantization'] as const;
export const LABEL_PROMPTS: Record<(typeof LABEL_KEYS)[number], string> = {
  engine: 'Inference engine and version, e.g. vLLM 0.11.0',
  hardware: 'Hardware, e.g. 1x A100 80GB',
  gpus: 'Number of GPUs (tensor/pipeline parallel), e.g. 2 (TP=2)',
  quantization: 'Quantization, e.g. bf16, fp8, AWQ int4',
};

/** Keeps non-empty labels only, trimmed. */
export function cleanLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [k.trim(), v.trim()]).filter(([k, v]) => k !== '' && v !== ''));
}
