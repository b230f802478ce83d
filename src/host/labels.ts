/** Labels asked for when a run starts, stored in its result and remembered for the next run. */
/** The keys offered by name, as the command line (--label gpu=...) and the importers write them: one key per meaning (src/format/config.ts LABEL_ALIASES). */
export const LABEL_KEYS = ['engine', 'gpu', 'gpus', 'quantization', 'model'] as const;
export const LABEL_PROMPTS: Record<(typeof LABEL_KEYS)[number], string> = {
  engine: 'Inference engine and version, e.g. vLLM 0.11.0',
  gpu: 'GPU (or other accelerator), e.g. 1x A100 80GB',
  model: 'The model as it should be grouped, e.g. Qwen2.5-7B-Instruct (the served name is recorded anyway)',
  gpus: 'Number of GPUs (tensor/pipeline parallel), e.g. 2 (TP=2)',
  quantization: 'Quantization, e.g. bf16, fp8, AWQ int4',
};

/** Keeps non-empty labels only, trimmed. */
export function cleanLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [k.trim(), v.trim()]).filter(([k, v]) => k !== '' && v !== ''));
}
