/**
 * What a response brought, as the client gathers it: every content chunk's arrival, its text split
 * into reasoning and answer, and the server's counts (usage). At the end it becomes a record's
 * output fields, its reasoning split among them (docs/metrics.md, "Reasoning").
 *
 * Reasoning arrives in one of three ways: a field of its own (`reasoning_content` or `reasoning` on
 * chat deltas, the Responses API's reasoning events), handed to `add` as reasoning; inside the text
 * between `<TAG>` and `</TAG>` when the server runs no reasoning parser and the user named the tag
 * (`reasoningTags`), split off at the end, since a tag may be cut across chunks and a model whose
 * template opens the tag in the prompt sends only the closing one; or hidden, counted only by the
 * server's usage (`reasoning_tokens`).
 */
import type { ReasoningRecord, TokenSource } from '../format/result';
import type { TokenCounter } from '../workload/types';

/** A chunk's part in the response: reasoning, answer, or both (the chunk where the answer begins). */
const REASONING = 1;
const ANSWER = 2;

export class ResponseOutput {
  /** Arrival of every chunk with non-empty text (reasoning or answer), in order. */
  readonly chunkMs: number[] = [];
  firstTokenMs: number | null = null;
  lastContentMs: number | null = null;
  /** The server's counts, when it sent them. */
  promptTokens: number | null = null;
  completionTokens: number | null = null;
  reasoningTokens: number | null = null;
  finishReason: string | null = null;
  /** Vectors returned (embeddings). */
  embeddings: number | null = null;
  /** Every piece of text received, as sent (tags included): what a count without usage counts. */
  private readonly raw: string[] = [];
  private readonly reasoning: string[] = [];
  private readonly answer: string[] = [];
  /** Leading chunks of the reasoning phase, and the first answer chunk (fields only; tags are read at the end). */
  private reasoningChunks = 0;
  private answerChunk: number | null = null;
  private firstReasoningMs: number | null = null;
  /** With reasoning tags: each chunk's text and part, for the split at the end. */
  private readonly tagged: { content: string[]; parts: number[] } | null;

  constructor(private readonly reasoningTag: string | null) {
    this.tagged = reasoningTag === null ? null : { content: [], parts: [] };
  }

  /**
   * One chunk arrived at `now` (step time; null for a whole body) with this reasoning and answer
   * text. A chunk with neither is not a chunk: role-only and empty events do not count.
   */
  add(now: number | null, reasoning: string, answer: string): void {
    if (reasoning.length === 0 && answer.length === 0) return;
    if (reasoning.length > 0) this.raw.push(reasoning);
    if (answer.length > 0) this.raw.push(answer);
    if (now === null) {
      // A whole body: no chunk times; with tags, its text is split at the end like a stream's.
      if (reasoning.length > 0) this.reasoning.push(reasoning);
      if (this.tagged !== null) {
        this.tagged.content.push(answer);
        this.tagged.parts.push(reasoning.length > 0 ? REASONING : 0);
      } else if (answer.length > 0) this.answer.push(answer);
      return;
    }
    const index = this.chunkMs.length;
    this.firstTokenMs ??= now;
    this.chunkMs.push(now);
    this.lastContentMs = now;
    if (reasoning.length > 0) {
      this.reasoning.push(reasoning);
      this.firstReasoningMs ??= now;
      if (this.answerChunk === null) this.reasoningChunks = index + 1;
    }
    if (this.tagged !== null) {
      this.tagged.content.push(answer);
      this.tagged.parts.push(reasoning.length > 0 ? REASONING : 0);
    } else if (answer.length > 0) {
      this.answer.push(answer);
      this.answerChunk ??= index;
    }
  }

  /** Content chunks so far, for messages about a response cut short. */
  get chunkCount(): number {
    return this.chunkMs.length;
  }

  /** Reads an OpenAI `usage` object: chat and completions (`prompt_tokens`, ...) or the Responses API's (`input_tokens`, ...). */
  readUsage(usage: unknown): void {
    if (typeof usage !== 'object' || usage === null) return;
    const u = usage as Record<string, unknown>;
    const prompt = u.prompt_tokens ?? u.input_tokens;
    const completion = u.completion_tokens ?? u.output_tokens;
    if (typeof prompt === 'number') this.promptTokens = prompt;
    if (typeof completion === 'number') this.completionTokens = completion;
    const details = u.completion_tokens_details ?? u.output_tokens_details;
    if (typeof details === 'object' && details !== null) {
      const reasoning = (details as Record<string, unknown>).reasoning_tokens;
      if (typeof reasoning === 'number') this.reasoningTokens = reasoning;
    }
  }

  /**
   * The record's output fields. Token counts: the server's usage when it sent one, else the
   * counter over the whole text (counted once, never chunk by chunk); a failed request with no text
   * has none. `answerText` is the reply as a user reads it (a session's history keeps only that).
   */
  finish(counter: TokenCounter, failed: boolean): OutputFields {
    const split = this.tagged === null ? null : splitTagged(this.tagged.content, this.tagged.parts, `<${this.reasoningTag}>`, `</${this.reasoningTag}>`);
    const answerText = split === null ? this.answer.join('') : split.answer;
    const reasoningText = this.reasoning.join('') + (split?.reasoning ?? '');
    let outputTokens: number | null = null;
    let outputTokensSource: TokenSource | null = null;
    if (this.completionTokens !== null) {
      outputTokens = this.completionTokens;
      outputTokensSource = 'usage';
    } else if (!failed || this.raw.length > 0) {
      outputTokens = countOrNull(counter, this.raw.join(''));
      outputTokensSource = outputTokens === null ? null : counter.source;
    }
    const hidden = this.reasoningTokens !== null && this.reasoningTokens > 0;
    if (reasoningText.length === 0 && !hidden) return { outputTokens, outputTokensSource, answerText };

    const phases = split === null ? { reasoningChunks: this.reasoningChunks, answerChunk: this.answerChunk, firstReasoning: this.firstReasoningMs } : this.phasesOf(split.parts);
    const { chunkMs } = this;
    const answerFirstMs = phases.answerChunk === null ? null : (chunkMs[phases.answerChunk] ?? null);
    const durationMs =
      phases.reasoningChunks === 0 ? null : (answerFirstMs ?? (chunkMs[phases.reasoningChunks - 1] as number)) - (chunkMs[0] as number);
    // The server's reasoning count when it gave one (a 0 beside reasoning text it sent is not one).
    const byUsage = this.reasoningTokens !== null && (this.reasoningTokens > 0 || reasoningText.length === 0);
    let tokens: number | null;
    let answerTokens: number | null;
    let tokensSource: TokenSource | null;
    if (byUsage) {
      tokens = this.reasoningTokens;
      answerTokens = outputTokensSource === 'usage' && outputTokens !== null ? Math.max(0, outputTokens - (tokens ?? 0)) : countOrNull(counter, answerText);
      tokensSource = 'usage';
    } else {
      tokens = countOrNull(counter, reasoningText);
      answerTokens = countOrNull(counter, answerText);
      tokensSource = tokens === null ? null : counter.source;
    }
    const reasoning: ReasoningRecord = {
      firstMs: phases.firstReasoning,
      answerFirstMs,
      chunks: phases.reasoningChunks,
      answerChunk: phases.answerChunk,
      durationMs,
      tokens,
      answerTokens,
      tokensSource,
    };
    return { outputTokens, outputTokensSource, answerText, reasoning };
  }

  /** The phases of a tagged response from each chunk's part. */
  private phasesOf(parts: readonly number[]): { reasoningChunks: number; answerChunk: number | null; firstReasoning: number | null } {
    let reasoningChunks = 0;
    let answerChunk: number | null = null;
    let firstReasoning: number | null = null;
    for (let i = 0; i < parts.length && i < this.chunkMs.length; i++) {
      const part = parts[i] as number;
      if (part & REASONING) {
        firstReasoning ??= this.chunkMs[i] as number;
        if (answerChunk === null) reasoningChunks = i + 1;
      }
      if (part & ANSWER) answerChunk ??= i;
    }
    return { reasoningChunks, answerChunk, firstReasoning };
  }
}

export interface OutputFields {
  outputTokens: number | null;
  outputTokensSource: TokenSource | null;
  answerText: string;
  reasoning?: ReasoningRecord;
}

function countOrNull(counter: TokenCounter, text: string): number | null {
  try {
    return counter.count(text);
  } catch {
    // A counter that fails leaves the count unknown rather than losing the record.
    return null;
  }
}

/**
 * Splits text whose reasoning sits between `open` and `close` tags, given in pieces (chunks) that
 * may cut a tag anywhere. `parts` carries each piece's part so far (reasoning from a field of its
 * own); the result adds REASONING to the pieces that overlap the reasoning block (its tags included)
 * and ANSWER to those that overlap answer text. The block is the first `open ... close`; a closing
 * tag before any opening one closes a block the prompt opened (templates that end the prompt with
 * `<think>`), so everything before it is reasoning; an opening tag never closed leaves the rest
 * reasoning (cut mid-thought). Tags after the block are answer text.
 */
export function splitTagged(pieces: readonly string[], parts: readonly number[], open: string, close: string): { reasoning: string; answer: string; parts: number[] } {
  const text = pieces.join('');
  const openAt = text.indexOf(open);
  const closeAfterOpen = openAt === -1 ? -1 : text.indexOf(close, openAt + open.length);
  const closeAt = text.indexOf(close);
  // [blockStart, blockEnd): the reasoning block, tags included; [innerStart, innerEnd): its text.
  let blockStart = 0;
  let innerStart = 0;
  let innerEnd = 0;
  let blockEnd = 0;
  if (openAt !== -1 && (closeAt === -1 || openAt < closeAt)) {
    blockStart = openAt;
    innerStart = openAt + open.length;
    innerEnd = closeAfterOpen === -1 ? text.length : closeAfterOpen;
    blockEnd = closeAfterOpen === -1 ? text.length : closeAfterOpen + close.length;
  } else if (closeAt !== -1) {
    innerEnd = closeAt;
    blockEnd = closeAt + close.length;
  }
  const result = parts.slice();
  let at = 0;
  pieces.forEach((piece, i) => {
    const start = at;
    const end = at + piece.length;
    at = end;
    if (piece.length === 0) return;
    let part = result[i] ?? 0;
    if (start < blockEnd && end > blockStart) part |= REASONING;
    if (start < blockStart || end > blockEnd) part |= ANSWER;
    result[i] = part;
  });
  return { reasoning: text.slice(innerStart, innerEnd), answer: text.slice(0, blockStart) + text.slice(blockEnd), parts: result };
}
