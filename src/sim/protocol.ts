/**
 * The OpenAI-compatible wire format as vLLM speaks it: request bodies (parsed with zod; fields the
 * simulator does not model, like temperature, are accepted and ignored) and the JSON and SSE
 * shapes of responses. Streamed chunks are assembled from strings built once per request, since
 * at hundreds of streams the server's time per token is what keeps emission on schedule.
 */
import * as z from 'zod';
import { describeZodError } from '../format/result';

export type ApiKind = 'chat' | 'completions';

const maxTokens = z.number().int().min(1, 'must be at least 1').nullish();

const common = {
  model: z.string(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).loose().nullish(),
  max_tokens: maxTokens,
  ignore_eos: z.boolean().nullish(),
  min_tokens: z.number().int().nonnegative().nullish(),
};

const contentPart = z.object({ type: z.string(), text: z.string().optional() }).loose();

const ChatRequestSchema = z
  .object({
    ...common,
    max_completion_tokens: maxTokens,
    messages: z
      .array(
        z
          .object({
            role: z.string(),
            content: z.union([z.string(), z.array(contentPart)]).nullish(),
          })
          .loose(),
      )
      .min(1, 'must hold at least one message'),
  })
  .loose();

const CompletionRequestSchema = z
  .object({
    ...common,
    prompt: z.union([z.string(), z.array(z.string()).length(1, 'batched prompts are not supported: send one prompt per request')]),
  })
  .loose();

/** What the simulator takes from a generation request; other fields (temperature, ...) do not change its model. */
export interface GenerationRequest {
  model: string;
  /** As the simulator counts it: chat message contents concatenated, or the completion prompt. */
  prompt: string;
  /** max_completion_tokens or max_tokens as sent; null when absent. */
  maxTokens: number | null;
  stream: boolean;
  includeUsage: boolean;
  ignoreEos: boolean;
  minTokens: number;
}

export function toGenerationRequest(api: ApiKind, body: unknown): { ok: true; value: GenerationRequest } | { ok: false; error: string } {
  let prompt: string;
  let maxTokens: number | null | undefined;
  let r: z.infer<typeof ChatRequestSchema> | z.infer<typeof CompletionRequestSchema>;
  if (api === 'chat') {
    const parsed = ChatRequestSchema.safeParse(body);
    if (!parsed.success) return { ok: false, error: describeZodError(parsed.error) };
    r = parsed.data;
    prompt = parsed.data.messages
      .map((m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('')))
      .join('');
    maxTokens = parsed.data.max_completion_tokens ?? parsed.data.max_tokens;
  } else {
    const parsed = CompletionRequestSchema.safeParse(body);
    if (!parsed.success) return { ok: false, error: describeZodError(parsed.error) };
    r = parsed.data;
    prompt = typeof parsed.data.prompt === 'string' ? parsed.data.prompt : (parsed.data.prompt[0] as string);
    maxTokens = parsed.data.max_tokens;
  }
  return {
    ok: true,
    value: {
      model: r.model,
      prompt,
      maxTokens: maxTokens ?? null,
      stream: r.stream === true,
      includeUsage: r.stream_options?.include_usage === true,
      ignoreEos: r.ignore_eos === true,
      minTokens: r.min_tokens ?? 0,
    },
  };
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export function usage(promptTokens: number, completionTokens: number, cachedTokens: number): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
  };
}

/** An OpenAI-style error body (vLLM's current shape). */
export function errorBody(status: number, type: string, message: string, param: string | null = null): string {
  return JSON.stringify({ error: { message, type, param, code: status } });
}

/**
 * Builds a stream's SSE events. Token text is made of [a-z ] pieces only, so it goes into JSON
 * without escaping.
 */
export class ChunkWriter {
  private readonly head: string;
  private readonly tokenOpen: string;
  /** Closes the token's text and whatever holds it (the delta object for chat). */
  private readonly textClose: string;

  constructor(
    readonly api: ApiKind,
    readonly id: string,
    model: string,
    created: number,
  ) {
    const object = api === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    this.head = `data: {"id":"${id}","object":"${object}","created":${created},"model":${JSON.stringify(model)},"choices":`;
    this.tokenOpen = api === 'chat' ? `${this.head}[{"index":0,"delta":{"content":"` : `${this.head}[{"index":0,"text":"`;
    this.textClose = api === 'chat' ? '"},' : '",';
  }

  /** Chat streams open with an assistant role chunk (no content), as vLLM sends. */
  roleEvent(): string {
    return this.api === 'chat'
      ? `${this.head}[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`
      : '';
  }

  tokenEvent(text: string): string {
    return `${this.tokenOpen}${text}${this.textClose}"logprobs":null,"finish_reason":null}]}\n\n`;
  }

  /**
   * The last token's event carries the finish reason. Completions put usage on it (as vLLM and
   * llama.cpp do); chat sends usage as a separate chunk with empty choices, only when asked.
   */
  finalEvents(text: string, finishReason: string, finalUsage: Usage, includeUsage: boolean): string {
    const last = `${this.tokenOpen}${text}${this.textClose}"logprobs":null,"finish_reason":"${finishReason}","stop_reason":null}]`;
    const usageJson = JSON.stringify(finalUsage);
    if (this.api === 'completions') return `${last},"usage":${usageJson}}\n\ndata: [DONE]\n\n`;
    const usageEvent = includeUsage ? `${this.head}[],"usage":${usageJson}}\n\n` : '';
    return `${last}}\n\n${usageEvent}data: [DONE]\n\n`;
  }

  /** A chunk that is not valid JSON (fault injection). */
  malformedEvent(text: string): string {
    return `${this.tokenOpen}${text}\n\n`;
  }
}

/** The non-streaming response body. */
export function completeBody(
  api: ApiKind,
  id: string,
  model: string,
  created: number,
  text: string,
  finishReason: string,
  finalUsage: Usage,
): string {
  const choice =
    api === 'chat'
      ? { index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: finishReason, stop_reason: null }
      : { index: 0, text, logprobs: null, finish_reason: finishReason, stop_reason: null };
  return JSON.stringify({
    id,
    object: api === 'chat' ? 'chat.completion' : 'text_completion',
    created,
    model,
    choices: [choice],
    usage: finalUsage,
  });
}
