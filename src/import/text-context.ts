/**
 * Labels from the lines people write above a pasted benchmark printout, in English or Chinese:
 * `- **Qwen2-7B-Instruct-AWQ**, **2** x **L20 48GB**, **SGLang**, prompt_tokens=512, generated_tokens=128`,
 * `## 4张A100 / vLLM / TP=4`, `并发 32`. Only what a line states is read: a label that cannot be
 * read is left out, never guessed.
 */
import type { Labels } from '../format/config';

/** What a line says about the run (model, hardware, engine, lengths) and about the next step (its load). */
export interface LineContext {
  run: Labels;
  step: { concurrency?: number; requests?: number };
}

const MODEL_FAMILIES =
  'Qwen|QwQ|Llama|Meta-Llama|CodeLlama|Mistral|Mixtral|Ministral|DeepSeek|Yi|GLM|ChatGLM|Baichuan|InternLM|Internlm|Phi|Gemma|gpt-oss|Falcon|Vicuna|Kimi|MiniMax|Hunyuan|ERNIE|OLMo|Granite|SmolLM|TinyLlama|stories';
/** A model name: an optional `org/` prefix, then a known family and the rest of the name. */
const MODEL = new RegExp(`(?<![\\w/.-])((?:[\\w.-]+/)?(?:${MODEL_FAMILIES})[\\w.-]*)`, 'i');

/** Quantization markers in a model name or stated on the line, to one spelling. */
const QUANTIZATIONS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/GPTQ[-_]?Int(4|8)/i, (m) => `gptq-int${m[1]}`],
  [/\bAWQ\b|-AWQ/i, () => 'awq'],
  [/\bGPTQ\b|-GPTQ/i, () => 'gptq'],
  [/\bFP8\b|-FP8/i, () => 'fp8'],
  [/\bW8A8\b|-W8A8/i, () => 'w8a8'],
  [/\bW4A16\b|-W4A16/i, () => 'w4a16'],
  [/\bINT8\b|-Int8/i, () => 'int8'],
  [/\bINT4\b|-Int4/i, () => 'int4'],
  [/\b(Q\d_K(?:_[SML])?|Q8_0|Q4_0)\b/i, (m) => (m[1] ?? '').toUpperCase()],
  [/\bGGUF\b/i, () => 'gguf'],
  [/\bBF16\b/i, () => 'bf16'],
  [/\bFP16\b/i, () => 'fp16'],
];

const ENGINES: [RegExp, string][] = [
  [/\bvLLM\b/i, 'vllm'],
  [/\bSGLang\b/i, 'sglang'],
  [/\bLMDeploy\b/i, 'lmdeploy'],
  [/\bTGI\b|text-generation-inference/i, 'tgi'],
  [/\bMindIE\b/i, 'mindie'],
  [/\bXInference\b/i, 'xinference'],
  [/llama\.cpp|llama-server/i, 'llama.cpp'],
  [/TensorRT-LLM|\bTRT-LLM\b/i, 'tensorrt-llm'],
  [/\bOllama\b/i, 'ollama'],
];

const GPU_TYPES = 'A100|A800|H100|H800|H200|H20|B200|GB200|L20|L40S|L40|L4|A10G|A10|A30|A40|A6000|RTX\\s?4090|RTX\\s?3090|4090|3090|V100|T4|910B\\d?|MI300X|MI250X?';
/** `48GB`, `80G`, ` 96 GiB` after a GPU type. */
const MEMORY = '(?:[\\s-]*\\d+\\s*Gi?B?\\b)?';
const GPU_COUNT = new RegExp(`(\\d+)\\s*(?:x|×|\\*|张|块|卡)\\s*((?:NVIDIA\\s+)?(?:${GPU_TYPES})${MEMORY})`, 'i');
const GPU_COUNT_AFTER = new RegExp(`((?:NVIDIA\\s+)?(?:${GPU_TYPES})${MEMORY})\\s*(?:x|×|\\*)\\s*(\\d+)\\b`, 'i');
const GPU_ALONE = new RegExp(`(?<![\\w])((?:NVIDIA\\s+)?(?:${GPU_TYPES})${MEMORY})(?![\\w])`, 'i');
const TENSOR_PARALLEL = /\b(?:TP|tensor[-_ ]parallel(?:[-_ ]size)?)\s*[=:：]?\s*(\d+)\b/i;

const INPUT_LENGTH = /(?:prompt_tokens|input_len(?:gth)?|input[-_ ]tokens|random[-_]input[-_]len|prompt[-_ ]len(?:gth)?|输入(?:长度)?|\binput)\s*[=:：]\s*(\d+)/i;
const OUTPUT_LENGTH = /(?:generated_tokens|output_len(?:gth)?|output[-_ ]tokens|random[-_]output[-_]len|max_tokens|输出(?:长度)?|\boutput)\s*[=:：]\s*(\d+)/i;
const CONCURRENCY = /(?:max[-_ ]concurrency|concurrency|(?<!tensor[-_ ])parallel|并发数?)\s*[=:：]?\s*(\d+)\b/i;
const REQUESTS = /(?:num[-_ ]prompts|number[-_ ]of[-_ ]requests|requests|请求数)\s*[=:：]\s*(\d+)\b/i;

/** A line without Markdown decoration: bold/italic markers, code ticks, heading and list markers. */
export function plainText(line: string): string {
  return line
    .replace(/\*\*|__|`/g, '')
    .replace(/^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, '')
    .trim();
}

function gpuLabels(text: string): Labels {
  const tidy = (type: string) => type.replace(/\s+/g, ' ').replace(/(\d)\s*(Gi?B?)$/i, '$1$2').replace(/(\d)G$/i, '$1GB').trim();
  const counted = text.match(GPU_COUNT);
  if (counted) return { gpus: counted[1] ?? '', gpu: tidy(counted[2] ?? '') };
  const after = text.match(GPU_COUNT_AFTER);
  if (after) return { gpus: after[2] ?? '', gpu: tidy(after[1] ?? '') };
  const alone = text.match(GPU_ALONE);
  // 单卡 / 双卡 / 四卡 / 八卡: a count in words, beside a type stated alone.
  const inWords = text.match(/(单|双|两|四|八)卡/)?.[1];
  const count: Labels = inWords ? { gpus: String(CHINESE_COUNTS[inWords]) } : {};
  return alone ? { ...count, gpu: tidy(alone[1] ?? '') } : count;
}

const CHINESE_COUNTS: Record<string, number> = { 单: 1, 双: 2, 两: 2, 四: 4, 八: 8 };

/** What one line states; empty when it names nothing this reads. */
export function readLineContext(line: string): LineContext {
  const text = plainText(line);
  const run: Labels = {};
  const model = text.match(MODEL)?.[1];
  if (model) run['model'] = model.replace(/[.,;:]+$/, '');
  const stated = text.match(/(?:quantization|quant|量化)\s*[=:：]\s*([\w-]+)/i)?.[1];
  if (stated) run['quantization'] = stated.toLowerCase();
  else if (model) {
    for (const [pattern, name] of QUANTIZATIONS) {
      const m = model.match(pattern);
      if (m) {
        run['quantization'] = name(m);
        break;
      }
    }
  }
  // A model name may itself hold a GPU-like token (e.g. "-L4-"): read hardware from the rest of the line.
  const rest = model ? text.replace(model, ' ') : text;
  Object.assign(run, gpuLabels(rest));
  const tp = rest.match(TENSOR_PARALLEL)?.[1];
  if (tp) {
    run['tp'] = tp;
    // Tensor parallelism of N runs on N GPUs; a stated count wins.
    run['gpus'] ??= tp;
  }
  for (const [pattern, engine] of ENGINES) {
    if (pattern.test(rest)) {
      run['engine'] = engine;
      break;
    }
  }
  const input = text.match(INPUT_LENGTH)?.[1];
  if (input) run['inputTokens'] = input;
  const output = text.match(OUTPUT_LENGTH)?.[1];
  if (output) run['outputTokens'] = output;
  const step: LineContext['step'] = {};
  const concurrency = text.match(CONCURRENCY)?.[1];
  if (concurrency && Number(concurrency) > 0) step.concurrency = Number(concurrency);
  const requests = text.match(REQUESTS)?.[1];
  if (requests) step.requests = Number(requests);
  return { run, step };
}

/** Whether a line names the run (not just a step's load): such a line starts a new run after blocks. */
export const namesRun = (context: LineContext): boolean => Object.keys(context.run).length > 0;
