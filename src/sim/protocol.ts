/**
 * The OpenAI-compatible wire format as vLLM speaks it: request bodies (parsed with zod; fields the
 * simulator does not model, like temperature, are accepted and ignored) and the JSON and SSE
 * shapes of responses: chat completions and completions, the Responses API's typed events, and
 * embeddings. Streamed chunks are assembled from strings built once per request, since at hundreds
 * of streams the server's time per token is what keeps emission on schedule.
 *
 * A reasoning model's thoughts are streamed first, in the field of the engine imitated
 * (`ReasoningField`): vLLM 0.11 and later write chat deltas' `reasoning`; older vLLM, SGLang,
 * DeepSeek's API and llama.cpp `reasoning_content`; `tags` is a server without a reasoning parser,
 * the thoughts inside `<think>...</think>` in the text, as completions always are.
 */
import * as z from 'zod';
import { describeZodError } from '../format/result';

export type ApiKind = 'chat' | 'completions' | 'responses' | 'embeddings';
export type GenerationApi = Exclude<ApiKind, 'embeddings'>;

export const ReasoningFieldSchema = z.enum(['reasoning', 'reasoning_content', 'tags']);
export type ReasoningField = z.infer<typeof ReasoningFieldSchema>;

/** How a token's text is streamed: as reasoning (in the field given) or as answer text. */
export type TokenPart = 'reasoning' | 'answer';

export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';

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

/** A Responses API input: a text, or a list of messages (`{role, content}`, content a text or parts). */
const ResponsesRequestSchema = z
  .object({
    model: z.string(),
    stream: z.boolean().nullish(),
    max_output_tokens: maxTokens,
    ignore_eos: z.boolean().nullish(),
    min_tokens: z.number().int().nonnegative().nullish(),
    input: z.union([
      z.string(),
      z
        .array(z.object({ role: z.string().optional(), content: z.union([z.string(), z.array(contentPart)]).nullish() }).loose())
        .min(1, 'must hold at least one input item'),
    ]),
  })
  .loose();

const EmbeddingsRequestSchema = z
  .object({
    model: z.string(),
    input: z.union([z.string(), z.array(z.string()).min(1, 'must hold at least one text').max(2048, 'at most 2048 inputs per request')]),
    encoding_format: z.enum(['float', 'base64']).nullish(),
  })
  .loose();

/** What the simulator takes from an embeddings request. */
export interface EmbeddingsRequest {
  model: string;
  inputs: string[];
  base64: boolean;
}

export function toEmbeddingsRequest(body: unknown): { ok: true; value: EmbeddingsRequest } | { ok: false; error: string } {
  const parsed = EmbeddingsRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, error: describeZodError(parsed.error) };
  const { model, input, encoding_format } = parsed.data;
  return { ok: true, value: { model, inputs: typeof input === 'string' ? [input] : input, base64: encoding_format === 'base64' } };
}

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

const textOf = (content: string | { text?: string | undefined }[] | null | undefined): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => p.text ?? '').join('');

export function toGenerationRequest(api: GenerationApi, body: unknown): { ok: true; value: GenerationRequest } | { ok: false; error: string } {
  let prompt: string;
  let maxTokens: number | null | undefined;
  let r: z.infer<typeof ChatRequestSchema> | z.infer<typeof CompletionRequestSchema>;
  if (api === 'responses') {
    const parsed = ResponsesRequestSchema.safeParse(body);
    if (!parsed.success) return { ok: false, error: describeZodError(parsed.error) };
    const input = parsed.data.input;
    return {
      ok: true,
      value: {
        model: parsed.data.model,
        prompt: typeof input === 'string' ? input : input.map((item) => textOf(item.content)).join(''),
        maxTokens: parsed.data.max_output_tokens ?? null,
        stream: parsed.data.stream === true,
        // The Responses API sends its usage with its final event, always.
        includeUsage: true,
        ignoreEos: parsed.data.ignore_eos === true,
        minTokens: parsed.data.min_tokens ?? 0,
      },
    };
  }
  if (api === 'chat') {
    const parsed = ChatRequestSchema.safeParse(body);
    if (!parsed.success) return { ok: false, error: describeZodError(parsed.error) };
    r = parsed.data;
    prompt = parsed.data.messages.map((m) => textOf(m.content)).join('');
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

/** A request's counts; `reasoningTokens` null when the server does not know its reasoning (no parser: tags). */
export interface Counts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number | null;
}

/** Chat and completions usage; the reasoning count in `completion_tokens_details` when the server parsed it. */
export function usage(counts: Counts): Record<string, unknown> {
  return {
    prompt_tokens: counts.promptTokens,
    completion_tokens: counts.completionTokens,
    total_tokens: counts.promptTokens + counts.completionTokens,
    prompt_tokens_details: { cached_tokens: counts.cachedTokens },
    ...(counts.reasoningTokens !== null ? { completion_tokens_details: { reasoning_tokens: counts.reasoningTokens } } : {}),
  };
}

/** The Responses API's usage (`input_tokens`, `output_tokens` and their details). */
function responsesUsage(counts: Counts): Record<string, unknown> {
  return {
    input_tokens: counts.promptTokens,
    input_tokens_details: { cached_tokens: counts.cachedTokens },
    output_tokens: counts.completionTokens,
    output_tokens_details: { reasoning_tokens: counts.reasoningTokens ?? 0 },
    total_tokens: counts.promptTokens + counts.completionTokens,
  };
}

/** An OpenAI-style error body (vLLM's current shape). */
export function errorBody(status: number, type: string, message: string, param: string | null = null): string {
  return JSON.stringify({ error: { message, type, param, code: status } });
}

/** Builds a stream's SSE events; one per API. Token text is made of [a-z <>/] pieces, so it goes into JSON without escaping. */
export interface StreamWriter {
  /** What opens the stream before the first token (chat's role chunk, the Responses API's created event). */
  openEvents(): string;
  tokenEvent(text: string, part: TokenPart): string;
  /** The last token's events, the finish and the usage; the stream ends after them. */
  finalEvents(text: string, part: TokenPart, finishReason: string, counts: Counts, includeUsage: boolean): string;
  /** A chunk that is not valid JSON (fault injection). */
  malformedEvent(text: string): string;
}

/** Chat completions and completions chunks. */
export class ChunkWriter implements StreamWriter {
  private readonly head: string;
  private readonly tokenOpen: string;
  private readonly reasoningOpen: string;
  /** Closes the token's text and whatever holds it (the delta object for chat). */
  private readonly textClose: string;

  constructor(
    readonly api: 'chat' | 'completions',
    readonly id: string,
    model: string,
    created: number,
    reasoningField: ReasoningField,
  ) {
    const object = api === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    this.head = `data: {"id":"${id}","object":"${object}","created":${created},"model":${JSON.stringify(model)},"choices":`;
    this.tokenOpen = api === 'chat' ? `${this.head}[{"index":0,"delta":{"content":"` : `${this.head}[{"index":0,"text":"`;
    // Reasoning goes in its field only on chat with a parser; otherwise the text carries its tags.
    this.reasoningOpen = api === 'chat' && reasoningField !== 'tags' ? `${this.head}[{"index":0,"delta":{"${reasoningField}":"` : this.tokenOpen;
    this.textClose = api === 'chat' ? '"},' : '",';
  }

  /** Chat streams open with an assistant role chunk (no content), as vLLM sends. */
  openEvents(): string {
    return this.api === 'chat'
      ? `${this.head}[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`
      : '';
  }

  tokenEvent(text: string, part: TokenPart): string {
    return `${part === 'reasoning' ? this.reasoningOpen : this.tokenOpen}${text}${this.textClose}"logprobs":null,"finish_reason":null}]}\n\n`;
  }

  /**
   * The last token's event carries the finish reason. Completions put usage on it (as vLLM and
   * llama.cpp do); chat sends usage as a separate chunk with empty choices, only when asked.
   */
  finalEvents(text: string, part: TokenPart, finishReason: string, counts: Counts, includeUsage: boolean): string {
    const open = part === 'reasoning' ? this.reasoningOpen : this.tokenOpen;
    const last = `${open}${text}${this.textClose}"logprobs":null,"finish_reason":"${finishReason}","stop_reason":null}]`;
    const usageJson = JSON.stringify(usage(counts));
    if (this.api === 'completions') return `${last},"usage":${usageJson}}\n\ndata: [DONE]\n\n`;
    const usageEvent = includeUsage ? `${this.head}[],"usage":${usageJson}}\n\n` : '';
    return `${last}}\n\n${usageEvent}data: [DONE]\n\n`;
  }

  malformedEvent(text: string): string {
    return `${this.tokenOpen}${text}\n\n`;
  }
}

/**
 * The Responses API's typed events, as vLLM streams them: `event:` and `data:` lines with a
 * sequence number; a reasoning item (`response.reasoning_text.delta`) before the message item
 * (`response.output_text.delta`), then `response.completed` (or `response.incomplete` when
 * max_output_tokens cut it) with the usage. No [DONE].
 */
export class ResponsesWriter implements StreamWriter {
  private sequence = 0;
  private part: TokenPart | null = null;
  private readonly reasoningId: string;
  private readonly messageId: string;
  /** The text of each part so far, for its closing events. */
  private reasoningText = '';
  private answerText = '';

  constructor(
    readonly id: string,
    private readonly model: string,
    private readonly created: number,
    /** With `tags`, the thoughts stay in the output text, as from a server without a reasoning parser. */
    private readonly reasoningField: ReasoningField,
  ) {
    this.reasoningId = `rs_${id}`;
    this.messageId = `msg_${id}`;
  }

  private event(type: string, fields: string): string {
    return `event: ${type}\ndata: {"type":"${type}",${fields},"sequence_number":${this.sequence++}}\n\n`;
  }

  private response(status: string, output: unknown[], extra: Record<string, unknown> = {}): string {
    return JSON.stringify({ id: this.id, object: 'response', created_at: this.created, model: this.model, status, output, ...extra });
  }

  openEvents(): string {
    const response = this.response('in_progress', []);
    return this.event('response.created', `"response":${response}`) + this.event('response.in_progress', `"response":${response}`);
  }

  private items(): unknown[] {
    const items: unknown[] = [];
    if (this.reasoningText) items.push({ id: this.reasoningId, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: this.reasoningText }] });
    if (this.answerText) {
      items.push({ id: this.messageId, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: this.answerText, annotations: [] }] });
    }
    return items;
  }

  /** Closes the item of the part in progress. */
  private closePart(): string {
    if (this.part === 'reasoning') {
      const item = JSON.stringify({ id: this.reasoningId, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: this.reasoningText }] });
      return (
        this.event('response.reasoning_text.done', `"item_id":"${this.reasoningId}","output_index":0,"content_index":0,"text":${JSON.stringify(this.reasoningText)}`) +
        this.event('response.output_item.done', `"output_index":0,"item":${item}`)
      );
    }
    if (this.part === 'answer') {
      const index = this.reasoningText ? 1 : 0;
      const text = JSON.stringify(this.answerText);
      const item = JSON.stringify(this.items().at(-1));
      return (
        this.event('response.output_text.done', `"item_id":"${this.messageId}","output_index":${index},"content_index":0,"text":${text}`) +
        this.event('response.content_part.done', `"item_id":"${this.messageId}","output_index":${index},"content_index":0,"part":{"type":"output_text","text":${text},"annotations":[]}`) +
        this.event('response.output_item.done', `"output_index":${index},"item":${item}`)
      );
    }
    return '';
  }

  tokenEvent(text: string, part: TokenPart): string {
    const asPart: TokenPart = this.reasoningField === 'tags' ? 'answer' : part;
    let events = '';
    if (asPart !== this.part) {
      events += this.closePart();
      this.part = asPart;
      if (asPart === 'reasoning') {
        events += this.event('response.output_item.added', `"output_index":0,"item":{"id":"${this.reasoningId}","type":"reasoning","summary":[],"content":[]}`);
      } else {
        const index = this.reasoningText ? 1 : 0;
        events +=
          this.event('response.output_item.added', `"output_index":${index},"item":{"id":"${this.messageId}","type":"message","role":"assistant","status":"in_progress","content":[]}`) +
          this.event('response.content_part.added', `"item_id":"${this.messageId}","output_index":${index},"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`);
      }
    }
    if (asPart === 'reasoning') {
      this.reasoningText += text;
      return events + this.event('response.reasoning_text.delta', `"item_id":"${this.reasoningId}","output_index":0,"content_index":0,"delta":"${text}"`);
    }
    this.answerText += text;
    return events + this.event('response.output_text.delta', `"item_id":"${this.messageId}","output_index":${this.reasoningText ? 1 : 0},"content_index":0,"delta":"${text}"`);
  }

  finalEvents(text: string, part: TokenPart, finishReason: string, counts: Counts): string {
    const last = this.tokenEvent(text, part) + this.closePart();
    const incomplete = finishReason === 'length';
    const response = this.response(incomplete ? 'incomplete' : 'completed', this.items(), {
      usage: responsesUsage(counts),
      incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    });
    return last + this.event(incomplete ? 'response.incomplete' : 'response.completed', `"response":${response}`);
  }

  malformedEvent(text: string): string {
    return `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"${text}\n\n`;
  }
}

/** The non-streaming response body: the reasoning and answer text, the finish reason, the counts. */
export function completeBody(
  api: GenerationApi,
  id: string,
  model: string,
  created: number,
  text: { reasoning: string; answer: string },
  reasoningField: ReasoningField,
  finishReason: string,
  counts: Counts,
): string {
  // Without a reasoning parser (tags, and always on completions) the thoughts stay in the text.
  const parsed = reasoningField !== 'tags' && api !== 'completions';
  const whole = text.reasoning ? `${THINK_OPEN}${text.reasoning}${text.answer ? `${THINK_CLOSE}${text.answer}` : ''}` : text.answer;
  if (api === 'responses') {
    const output: unknown[] = [];
    if (parsed && text.reasoning) output.push({ id: `rs_${id}`, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: text.reasoning }] });
    const answer = parsed ? text.answer : whole;
    if (answer) output.push({ id: `msg_${id}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: answer, annotations: [] }] });
    const incomplete = finishReason === 'length';
    return JSON.stringify({
      id,
      object: 'response',
      created_at: created,
      model,
      status: incomplete ? 'incomplete' : 'completed',
      incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
      error: null,
      output,
      usage: responsesUsage(counts),
    });
  }
  const message = parsed ? { role: 'assistant', content: text.answer, ...(text.reasoning ? { [reasoningField]: text.reasoning } : {}) } : { role: 'assistant', content: whole };
  const choice =
    api === 'chat'
      ? { index: 0, message, logprobs: null, finish_reason: finishReason, stop_reason: null }
      : { index: 0, text: whole, logprobs: null, finish_reason: finishReason, stop_reason: null };
  return JSON.stringify({
    id,
    object: api === 'chat' ? 'chat.completion' : 'text_completion',
    created,
    model,
    choices: [choice],
    usage: usage(counts),
  });
}

/** An embeddings body: one unit vector per input, `dim` floats (or their base64 bytes), and the input tokens. */
export function embeddingsBody(model: string, vectors: Float32Array[], promptTokens: number, base64: boolean): string {
  const data = vectors.map((vector, index) => ({
    object: 'embedding',
    index,
    embedding: base64 ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : Array.from(vector),
  }));
  return JSON.stringify({ object: 'list', model, data, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } });
}
