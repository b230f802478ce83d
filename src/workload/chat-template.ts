/**
 * The chat templates whose layout we know, recognised by their marker tokens in a model's
 * tokenizer_config.json `chat_template`. Running its Jinja in general would need a Jinja engine;
 * instead each known family is written out here, checked token for token against the real
 * templates rendered by a Jinja engine (test/unit/chat-template.test.ts). A template none of these
 * match (or none at all) leaves chat prompts counted as their messages' text.
 *
 * Counted as a server counts a chat request: the template's text with the generation prompt
 * (the opening of the assistant's turn), tokenized with its special tokens as single tokens, and
 * no further BOS from the tokenizer's post-processor (vLLM and transformers do not add one to a
 * rendered template).
 */
import * as z from 'zod';
import type { ChatMessage } from './types';

export type ChatTemplateName = 'chatml' | 'llama3' | 'llama2' | 'gemma' | 'deepseek';

export interface ChatTemplate {
  readonly name: ChatTemplateName;
  /** The conversation as the template lays it out, with the generation prompt. */
  render(messages: readonly ChatMessage[]): string;
}

/** What the text of a conversation is without a template: its messages' contents, one per line. */
export function messagesText(messages: readonly ChatMessage[]): string {
  return messages.map((m) => m.content).join('\n');
}

/** bos_token and eos_token are strings, or AddedToken objects holding one. */
const SpecialTokenSchema = z.union([z.string(), z.object({ content: z.string() }).loose().transform((t) => t.content)]).nullable().optional();

const TokenizerConfigSchema = z
  .object({
    chat_template: z.unknown().optional(),
    bos_token: SpecialTokenSchema,
    eos_token: SpecialTokenSchema,
  })
  .loose();

/** The template recognised in a parsed tokenizer_config.json, or why none was. */
export function recogniseChatTemplate(config: unknown): { template: ChatTemplate } | { template: null; reason: string } {
  const parsed = TokenizerConfigSchema.safeParse(config);
  if (!parsed.success) return { template: null, reason: 'its tokenizer_config.json is not an object of the usual shape' };
  const { chat_template: source, bos_token: bos, eos_token: eos } = parsed.data;
  if (typeof source !== 'string') {
    return { template: null, reason: source === undefined ? 'its tokenizer_config.json has no chat_template' : 'its chat_template is a list of named templates, which is not read' };
  }
  const template = matchTemplate(source, bos ?? '', eos ?? '');
  return template === null ? { template: null, reason: 'its chat_template is not one of the known layouts (ChatML, Llama 2, Llama 3.0, Gemma, DeepSeek V3)' } : { template };
}

function matchTemplate(source: string, bos: string, eos: string): ChatTemplate | null {
  if (source.includes('<|im_start|>')) return chatml(defaultSystemPrompt(source));
  // Llama 3.1 and later write a dated system block (knowledge cutoff, today) that is not known here.
  if (source.includes('<|start_header_id|>') && !source.includes('Cutting Knowledge Date')) return llama3(source.includes('bos_token') ? bos : '');
  if (source.includes('<start_of_turn>')) return gemma(source.includes('bos_token') ? bos : '');
  if (source.includes('[INST]')) return llama2(bos, eos);
  if (source.includes('<｜User｜>') && source.includes('<｜Assistant｜>')) return deepseek(source.includes('bos_token') ? bos : '', eos);
  return null;
}

/** The system message a ChatML template writes when the conversation has none (Qwen2 and 2.5 do). */
function defaultSystemPrompt(source: string): string | null {
  const literal = /'<\|im_start\|>system\\n((?:[^'\\<]|\\.)*)<\|im_end\|>\\n'/.exec(source)?.[1];
  return literal === undefined ? null : literal.replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
}

function chatml(defaultSystem: string | null): ChatTemplate {
  return {
    name: 'chatml',
    render(messages) {
      const all = defaultSystem !== null && messages[0]?.role !== 'system' ? [{ role: 'system', content: defaultSystem }, ...messages] : messages;
      return all.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';
    },
  };
}

function llama3(bos: string): ChatTemplate {
  const header = (role: string): string => `<|start_header_id|>${role}<|end_header_id|>\n\n`;
  return {
    name: 'llama3',
    render: (messages) => bos + messages.map((m) => `${header(m.role)}${m.content.trim()}<|eot_id|>`).join('') + header('assistant'),
  };
}

/** Gemma has no system role: a system message opens the first user turn (as Gemma 3's template does). */
function gemma(bos: string): ChatTemplate {
  return {
    name: 'gemma',
    render(messages) {
      const system = messages[0]?.role === 'system' ? `${messages[0].content}\n\n` : '';
      const turns = system === '' ? messages : messages.slice(1);
      const text = turns.map((m, i) => `<start_of_turn>${m.role === 'assistant' ? 'model' : m.role}\n${i === 0 ? system : ''}${m.content.trim()}<end_of_turn>\n`).join('');
      return `${bos}${text}<start_of_turn>model\n`;
    },
  };
}

/** Llama 2: the system message goes inside the first [INST] block; there is no generation prompt. */
function llama2(bos: string, eos: string): ChatTemplate {
  return {
    name: 'llama2',
    render(messages) {
      const system = messages[0]?.role === 'system' ? messages[0].content : null;
      const turns = system === null ? messages : messages.slice(1);
      return turns
        .map((m, i) => {
          const content = i === 0 && system !== null ? `<<SYS>>\n${system}\n<</SYS>>\n\n${m.content}` : m.content;
          return m.role === 'assistant' ? ` ${content.trim()} ${eos}` : `${bos}[INST] ${content.trim()} [/INST]`;
        })
        .join('');
    },
  };
}

/** DeepSeek V3: system messages first (joined by blank lines), then turns marked by role tokens. */
function deepseek(bos: string, eos: string): ChatTemplate {
  return {
    name: 'deepseek',
    render(messages) {
      const system = messages
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n\n');
      const turns = messages
        .filter((m) => m.role !== 'system')
        .map((m) => (m.role === 'user' ? `<｜User｜>${m.content}` : `<｜Assistant｜>${m.content}${eos}`))
        .join('');
      return `${bos}${system}${turns}<｜Assistant｜>`;
    },
  };
}
