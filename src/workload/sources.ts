/**
 * Where requests come from: synthetic prompts of a target token length, or a dataset file.
 * The same seed gives the same requests; request(i) does not depend on which others were asked for.
 */
import * as z from 'zod';
import { DatasetFormatSchema, FORMATS_WITH_REPLIES, REPLY_FILTERS, takesMessages, type DatasetFormat, type RunConfig, type TokenCount, type WorkloadConfig } from '../format/config';
import { describeZodError } from '../format/result';
import { BadInputError, printable } from '../format/errors';
import { readTextFile } from './files';
import { messagesText } from './chat-template';
import { countPrompt, promptFor } from './prompt';
import { createRandom, type Random } from './random';
import type { ChatMessage, PreparedRequest, SessionPlan, TokenCounter, Workload } from './types';

/**
 * A workload that cannot be built; the message says which file or field and what to do. It
 * quotes the file, whose bytes may be anything: control characters are escaped.
 */
export class WorkloadError extends BadInputError {
  constructor(message: string) {
    super(printable(message));
  }
}

const FORMAT_BY_EXTENSION: Readonly<Record<string, DatasetFormat>> = { '.jsonl': 'jsonl', '.txt': 'lines' };

/** The dataset format a file's extension names (`.jsonl`: jsonl, `.txt`: lines), if any. */
export function guessDatasetFormat(path: string): DatasetFormat | undefined {
  const extension = /\.[^./\\]+$/.exec(path.toLowerCase())?.[0];
  return extension === undefined ? undefined : FORMAT_BY_EXTENSION[extension];
}

export async function createWorkload(config: RunConfig, counter: TokenCounter): Promise<Workload> {
  const prompts = await promptWorkload(config, counter);
  return config.endpoint.api === 'embeddings' ? embeddingBatches(prompts, config.workload.embeddingBatch ?? 1) : prompts;
}

/**
 * An embeddings request is a batch of `size` inputs: request i carries the prompts i * size to
 * (i + 1) * size - 1 of the workload, as texts; its input tokens are theirs summed.
 */
function embeddingBatches(prompts: Workload, size: number): Workload {
  return {
    size: prompts.size === Infinity ? Infinity : Math.ceil(prompts.size / size),
    request(index: number): PreparedRequest {
      const inputs: string[] = [];
      let tokens = 0;
      let source: PreparedRequest['inputTokens']['source'] = 'estimate';
      for (let k = 0; k < size; k++) {
        const one = prompts.request(index * size + k);
        inputs.push(promptFor(one.prompt, false) as string);
        tokens += one.inputTokens.count;
        source = one.inputTokens.source;
      }
      return { prompt: inputs[0] ?? '', inputs, inputTokens: { count: tokens, source } };
    },
  };
}

async function promptWorkload(config: RunConfig, counter: TokenCounter): Promise<Workload> {
  const workload = config.workload;
  const rows = workload.kind === 'synthetic' ? null : await loadDataset(workload, counter);
  const chat = takesMessages(config.endpoint.api);
  const salt = promptSalt(config);
  const maxTokens = (spec: TokenCount | undefined, random: Random): number | undefined => (spec === undefined ? undefined : sampleCount(spec, random));

  if (rows === null) {
    const synthetic = workload as Extract<WorkloadConfig, { kind: 'synthetic' }>;
    const texts = createTextSource(config.seed, synthetic.sharedPrefixTokens, synthetic.prefixCount, counter, salt);
    /** `opening`: the text opens a prompt (the salt goes first); a session's later turns do not. */
    const draw = (index: number, opening = true) => {
      const random = createRandom(mixSeed(config.seed, index));
      const target = sampleCount(synthetic.inputTokens, random);
      const output = sampleCount(synthetic.outputTokens, random);
      return { ...texts.prompt(target, index, random, opening), output };
    };
    const turns = config.sessions?.turns ?? 1;
    return {
      size: Infinity,
      request(index: number): PreparedRequest {
        const { text, tokens, output } = draw(index);
        const prompt = promptFor(text, chat);
        // The text is built to the target; a chat request's count adds what its template adds.
        return { prompt, maxTokens: output, inputTokens: { count: typeof prompt === 'string' ? tokens : countPrompt(prompt, counter), source: counter.source } };
      },
      // Turn t of session s is what request s * turns + t would be: each turn its own text and lengths.
      ...(config.sessions
        ? {
            session: (index: number): SessionPlan => ({
              system: [],
              turns: Array.from({ length: turns }, (_, t) => {
                const { text, output } = draw(index * turns + t, t === 0);
                return { user: text, maxTokens: output };
              }),
            }),
          }
        : {}),
    };
  }
  const dataset = workload as Extract<WorkloadConfig, { kind: 'dataset' }>;
  return {
    size: rows.length,
    request(index: number): PreparedRequest {
      const row = rows[index % rows.length] as DatasetRow;
      const prompt = promptFor(salted(row.prompt, salt), chat);
      row.promptTokens ??= countPrompt(prompt, counter);
      const random = createRandom(mixSeed(config.seed, index));
      const output = dataset.outputTokens === 'reply' ? row.replyTokens : maxTokens(dataset.outputTokens, random);
      return { prompt, maxTokens: output, inputTokens: { count: row.promptTokens, source: counter.source } };
    },
    ...(config.sessions
      ? {
          session: (index: number): SessionPlan => {
            const row = rows[index % rows.length] as DatasetRow;
            const conversation = row.conversation ?? { system: [], users: [row.text], replies: [row.reply] };
            const random = createRandom(mixSeed(config.seed, index));
            const users = conversation.users.slice(0, config.sessions?.turns ?? conversation.users.length);
            // The salt opens the conversation: its first system message, else its first user turn.
            const system = conversation.system.length > 0 ? (salted(conversation.system, salt) as ChatMessage[]) : [];
            return {
              system,
              turns: users.map((user, t) => {
                const reply = conversation.replies[t];
                const output = dataset.outputTokens === 'reply' ? (reply === undefined ? undefined : counter.count(reply)) : maxTokens(dataset.outputTokens, random);
                return { user: t === 0 && system.length === 0 ? (salted(user, salt) as string) : user, ...(output !== undefined ? { maxTokens: output } : {}) };
              }),
            };
          },
        }
      : {}),
  };
}

/**
 * The text that opens every prompt of this run (config `cache`): its salt and a space, so that no
 * prompt of it opens as a prompt of another run does and a long-lived server's prefix cache cannot
 * serve one run's prompts to the next; shared prefixes stay shared within the run. Empty when the
 * run reuses prompts, or has no salt (a workload built outside a run, whose prompts are the seed's alone).
 */
export function promptSalt(config: Pick<RunConfig, 'cache'>): string {
  const cache = config.cache;
  return cache.reusePrompts || cache.salt === undefined ? '' : `${cache.salt} `;
}

/** A prompt that opens with `salt`: a text, or messages whose first one does. */
function salted(prompt: string | ChatMessage[], salt: string): string | ChatMessage[] {
  if (salt === '') return prompt;
  if (typeof prompt === 'string') return salt + prompt;
  const [first, ...rest] = prompt;
  return first === undefined ? prompt : [{ ...first, content: salt + first.content }, ...rest];
}

/**
 * A fixed count; a whole number uniform in vLLM's range around the mean; or a normal draw clipped
 * to [min, max] (and to at least 1).
 */
export function sampleCount(spec: TokenCount, random: Random): number {
  if (typeof spec === 'number') return spec;
  if ('rangeRatio' in spec) {
    const { low, high } = rangeBounds(spec.mean, spec.rangeRatio);
    return random.int(low, high);
  }
  const drawn = Math.round(spec.mean + spec.stdev * random.normal());
  return Math.max(1, spec.min ?? 1, Math.min(spec.max ?? Infinity, drawn));
}

/**
 * The most output tokens any request of the run may ask for (its max_tokens), or null when nothing
 * bounds it: the extra body's max_tokens or max_completion_tokens, else the workload's output
 * length at its largest (a range's top, a normal draw's max), else none (a dataset's replies, or
 * no output length: the server decides).
 */
export function outputTokensBound(config: Pick<RunConfig, 'workload' | 'request'>): number | null {
  const extra = config.request.extraBody;
  const fromBody = [extra.max_tokens, extra.max_completion_tokens].find((n): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0);
  if (fromBody !== undefined) return fromBody;
  const spec = config.workload.outputTokens;
  if (spec === undefined || spec === 'reply') return null;
  if (typeof spec === 'number') return spec;
  if ('rangeRatio' in spec) return rangeBounds(spec.mean, spec.rangeRatio).high;
  return spec.max ?? null;
}

/** vLLM's `--random-range-ratio` bounds: [floor(mean * (1 - r)), ceil(mean * (1 + r))], the lower at least 1. */
export function rangeBounds(mean: number, ratio: number): { low: number; high: number } {
  return { low: Math.max(1, Math.floor(mean * (1 - ratio))), high: Math.max(1, Math.ceil(mean * (1 + ratio))) };
}

/** A per-request seed: a hash, since nearby seeds of the generator give overlapping sequences. */
export function mixSeed(seed: number, index: number): number {
  let h = Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2d) ^ Math.imul(index + 1, 0x165667b1);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// ---------------------------------------------------------------------------------------------
// Synthetic prompts

const WORDS = (
  'time year people way day man thing woman life child world school state family student group country problem hand part ' +
  'place case week company system program question work government number night point home water room mother area money ' +
  'story fact month lot right study book eye job word business issue side kind head house service friend father power hour ' +
  'game line end member law car city community name president team minute idea kid body information back parent face others ' +
  'level office door health person art war history party result change morning reason research girl guy moment air teacher ' +
  'force education good new first last long great little own other old right big high different small large next early young ' +
  'important few public bad same able make know will think take see come want look use find give tell ask work seem feel try ' +
  'leave call keep begin help talk turn start show hear play run move like live believe hold bring happen write provide sit ' +
  'stand lose pay meet include continue set learn lead understand watch follow stop create speak read allow add spend grow open'
).split(' ');

/** Words per request that only it has, first: no two prompts share a prefix beyond the configured one. */
const UNIQUE_HEAD_WORDS = 12;

export interface TextSource {
  /**
   * The prompt of request `index`: the run's salt (unless `opening` is false: a session's later
   * turn), its shared prefix (by index), then text of its own; `targetTokens` in all.
   */
  prompt(targetTokens: number, index: number, random: Random, opening?: boolean): { text: string; tokens: number };
  /**
   * `base` (which counts `base.tokens`) followed by text that `random` decides: a head of random
   * words, then the filler; `targetTokens` in all. A longer target gives a longer cut of the same
   * text: the same `random` seed and base make each shorter result a prefix of a longer one.
   */
  extend(base: { text: string; tokens: number }, targetTokens: number, random: Random): { text: string; tokens: number };
}

/** `count` random words; a period after every 13th word, counted from `firstWord` (the words' place in a longer text). */
function randomWords(random: Random, count: number, firstWord = 0): string {
  const words: string[] = [];
  for (let i = firstWord; i < firstWord + count; i++) {
    const word = WORDS[random.int(0, WORDS.length - 1)] as string;
    words.push(i % 13 === 12 ? `${word}.` : word);
  }
  return words.join(' ');
}

/**
 * Prompts are the shared prefix, then a head of random words unique to the request, then filler
 * from one long seeded text shared by all requests (so a 128k-token prompt costs a slice, not
 * 100k random draws). The length is fitted on characters with the counter itself, so the count
 * is exact wherever the counter can reach the target. A text depends on the seed, its random and
 * its target only, never on which texts were built before: the filler is one text however it grew,
 * and each request reads the same length of it for the same target.
 */
export function createTextSource(seed: number, sharedPrefixTokens: number, prefixCount: number, counter: TokenCounter, salt = ''): TextSource {
  const fillerRandom = createRandom(mixSeed(seed, -1));
  const FILLER_CHUNK_WORDS = 2000;
  let filler = randomWords(fillerRandom, FILLER_CHUNK_WORDS);
  let fillerWords = FILLER_CHUNK_WORDS;
  const charsPerToken = filler.length / Math.max(1, counter.count(filler));
  const growFiller = (chars: number): void => {
    while (filler.length < chars) {
      const words = Math.max(FILLER_CHUNK_WORDS, Math.ceil((chars - filler.length) / 5));
      filler += ' ' + randomWords(fillerRandom, words, fillerWords);
      fillerWords += words;
    }
  };
  // Built on first use: a run of a few requests does not pay for thousands of unused prefixes.
  const prefixes: ({ text: string; tokens: number } | undefined)[] = new Array(prefixCount);
  const saltOnly = { text: salt, tokens: salt === '' ? 0 : counter.count(salt) };
  const unsaltedPrefixes: ({ text: string; tokens: number } | undefined)[] = new Array(prefixCount);
  const prefixOf = (index: number, opening: boolean): { text: string; tokens: number } => {
    const head = opening ? saltOnly : { text: '', tokens: 0 };
    if (sharedPrefixTokens === 0) return head;
    const k = index % prefixCount;
    const cache = opening ? prefixes : unsaltedPrefixes;
    // Prefix 0 keeps the seed offset a single shared prefix always had: same seed, same prompts.
    // The salt comes before it and is not part of its length.
    return (cache[k] ??= fitText(head.text, randomWords(createRandom(mixSeed(seed, -2 - k)), sharedPrefixTokens * 2 + 8) + ' ', head.tokens + sharedPrefixTokens, counter, charsPerToken));
  };
  const extend: TextSource['extend'] = (base, targetTokens, random) => {
    if (targetTokens <= base.tokens) return base;
    const head = randomWords(random, UNIQUE_HEAD_WORDS);
    // The filler read is as long as the target needs, not as long as it has grown: the same
    // target gives the same text, and a short prompt does not copy a long filler.
    const bodyChars = Math.ceil((targetTokens - base.tokens) * charsPerToken * 1.5) + 64;
    growFiller(bodyChars);
    return fitText(base.text, `${head} ${filler.slice(0, bodyChars)}`, targetTokens, counter, charsPerToken);
  };
  return { prompt: (targetTokens, index, random, opening = true) => extend(prefixOf(index, opening), targetTokens, random), extend };
}

/**
 * The prefix of `base + body` whose count is the target, or the closest below it: a guess from
 * the characters-per-token ratio, then bracketing and bisection on the body's length.
 */
function fitText(base: string, body: string, target: number, counter: TokenCounter, charsPerToken: number): { text: string; tokens: number } {
  const countAt = (length: number): number => counter.count(base + body.slice(0, length));
  let best = { length: 0, tokens: countAt(0) };
  if (best.tokens < target) {
    // Invariant: the count at `low` is below the target, at `high` above it (or high is the end).
    let low = 0;
    let high = body.length;
    let guess = Math.min(body.length, Math.max(1, Math.round((target - best.tokens) * charsPerToken)));
    for (let probes = 0; probes < 40; probes++) {
      const tokens = countAt(guess);
      if (tokens <= target && tokens > best.tokens) best = { length: guess, tokens };
      if (tokens === target) break;
      if (tokens < target) low = guess;
      else high = guess;
      if (high - low <= 1) break;
      // Extrapolate by the ratio; bisect when that would leave the bracket.
      const jump = Math.max(8, Math.round(Math.abs(target - tokens) * charsPerToken * 1.25));
      const next = tokens < target ? guess + jump : guess - jump;
      guess = next <= low || next >= high ? (low + high) >> 1 : next;
    }
  }
  return { text: base + body.slice(0, best.length), tokens: best.tokens };
}

// ---------------------------------------------------------------------------------------------
// Datasets

interface DatasetRow {
  prompt: string | ChatMessage[];
  /** The prompt's text, whose tokens the length filters compare. */
  text: string;
  tokens?: number;
  /** The tokens of the prompt as sent (through the chat template for a chat request). */
  promptTokens?: number;
  /** The reply recorded after the prompt (ShareGPT), and its token count once counted. */
  reply?: string;
  replyTokens?: number;
  /** The whole conversation, for sessions: opening system messages, every user turn, and the reply recorded after each (if any). */
  conversation?: { system: ChatMessage[]; users: string[]; replies: (string | undefined)[] };
}

const MessageSchema = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });
const JsonlRowSchema = z.union([z.object({ prompt: z.string().min(1) }).loose(), z.object({ messages: z.array(MessageSchema).min(1) }).loose()]);
const OpenQaRowSchema = z.object({ question: z.string().min(1) }).loose();
const ShareGptSchema = z.array(z.unknown());
const ShareGptRowSchema = z.object({ conversations: z.array(z.object({ from: z.string(), value: z.string() }).loose()) }).loose();

async function loadDataset(workload: Extract<WorkloadConfig, { kind: 'dataset' }>, counter: TokenCounter): Promise<DatasetRow[]> {
  const { path } = workload;
  const format = workload.format ?? guessDatasetFormat(path);
  if (format === undefined) {
    throw new WorkloadError(
      `Dataset file ${path}: its format is needed, since its extension does not tell it (.jsonl is jsonl, .txt is lines). Give one of ${DatasetFormatSchema.options.join(', ')} (--dataset-format on the command line, workload.format in a config).`,
    );
  }
  const text = await readTextFile(path);
  if (!text.ok) throw new WorkloadError(`Dataset file ${path} ${text.error}.`);
  const byReply = workload.outputTokens === 'reply';
  if (byReply && !(FORMATS_WITH_REPLIES as readonly string[]).includes(format)) {
    throw new WorkloadError(`Dataset file ${path}: outputTokens "reply" needs a format that records replies (${FORMATS_WITH_REPLIES.join(', ')}), not ${format}. Give a number of output tokens instead.`);
  }
  const { rows, skipped } = parseDataset(text.value, format, path);
  const { minPromptTokens: min, maxPromptTokens: max } = workload;
  let tooShort = 0;
  let tooLong = 0;
  const dropped = { noReply: 0, short: 0, promptTooLong: 0, totalTooLong: 0 };
  const lengthFiltered =
    min === undefined && max === undefined
      ? rows
      : rows.filter((row) => {
          row.tokens = counter.count(row.text);
          if (min !== undefined && row.tokens < min) tooShort++;
          else if (max !== undefined && row.tokens > max) tooLong++;
          else return true;
          return false;
        });
  const usable = byReply ? lengthFiltered.filter((row) => keepsReplyPair(row, counter, dropped)) : lengthFiltered;
  if (usable.length === 0) {
    const reasons = [`${rows.length + skipped} rows read`];
    if (skipped) reasons.push(`${skipped} without a usable prompt`);
    if (tooShort) reasons.push(`${tooShort} shorter than minPromptTokens ${min}`);
    if (tooLong) reasons.push(`${tooLong} longer than maxPromptTokens ${max}`);
    if (dropped.noReply) reasons.push(`${dropped.noReply} without a recorded reply`);
    if (dropped.short) reasons.push(`${dropped.short} with a prompt or reply under ${REPLY_FILTERS.minTokens} tokens`);
    if (dropped.promptTooLong) reasons.push(`${dropped.promptTooLong} with a prompt over ${REPLY_FILTERS.maxPromptTokens} tokens`);
    if (dropped.totalTooLong) reasons.push(`${dropped.totalTooLong} over ${REPLY_FILTERS.maxTotalTokens} tokens of prompt and reply`);
    throw new WorkloadError(`Dataset file ${path} has no usable prompts (${reasons.join(', ')}). Check the format (${format}) and the prompt length filters.`);
  }
  return usable;
}

/**
 * vLLM's ShareGPT pruning (REPLY_FILTERS) for a row whose reply sets its output length; counts
 * each dropped row under its reason.
 */
function keepsReplyPair(row: DatasetRow, counter: TokenCounter, dropped: { noReply: number; short: number; promptTooLong: number; totalTooLong: number }): boolean {
  if (row.reply === undefined) {
    dropped.noReply++;
    return false;
  }
  const prompt = (row.tokens ??= counter.count(row.text));
  const reply = (row.replyTokens ??= counter.count(row.reply));
  if (prompt < REPLY_FILTERS.minTokens || reply < REPLY_FILTERS.minTokens) dropped.short++;
  else if (prompt > REPLY_FILTERS.maxPromptTokens) dropped.promptTooLong++;
  else if (prompt + reply > REPLY_FILTERS.maxTotalTokens) dropped.totalTooLong++;
  else return true;
  return false;
}

function parseDataset(text: string, format: DatasetFormat, path: string): { rows: DatasetRow[]; skipped: number } {
  if (format === 'lines') {
    const rows = text
      .split(/\r?\n/)
      .filter((line) => line.trim().length > 0)
      .map((line) => ({ prompt: line, text: line }));
    return { rows, skipped: 0 };
  }
  if (format === 'sharegpt') return parseShareGpt(text, path);
  const rows: DatasetRow[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim().length === 0) return;
    const where = `Dataset file ${path} line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new WorkloadError(`${where} is not JSON (${(error as Error).message}). The ${format} format has one JSON object per line.`);
    }
    if (format === 'openqa') {
      const row = OpenQaRowSchema.safeParse(value);
      if (!row.success) throw new WorkloadError(`${where} has no "question" text${fieldsOf(value)}. The openqa format is EvalScope's: {"question": "..."} per line.`);
      rows.push({ prompt: row.data.question, text: row.data.question });
    } else {
      const row = JsonlRowSchema.safeParse(value);
      if (!row.success) throw new WorkloadError(`${where} has neither a "prompt" text nor a "messages" list of {role, content}${fieldsOf(value)}: ${describeZodError(row.error, 2)}.`);
      if ('prompt' in row.data && typeof row.data.prompt === 'string') rows.push({ prompt: row.data.prompt, text: row.data.prompt });
      else {
        const messages = (row.data as { messages: ChatMessage[] }).messages;
        rows.push({ prompt: messages, text: messagesText(messages), conversation: conversationOf(messages.map((m) => ({ role: m.role, text: m.content }))) });
      }
    }
  });
  return { rows, skipped: 0 };
}

/**
 * A recorded conversation as a session replays it: the system messages before the first user turn,
 * each user turn, and the reply recorded after each. The recorded replies are not sent: each turn
 * carries the replies actually received.
 */
function conversationOf(messages: { role: ChatMessage['role']; text: string }[]): NonNullable<DatasetRow['conversation']> {
  const firstUser = messages.findIndex((m) => m.role === 'user');
  const system = messages.slice(0, Math.max(firstUser, 0)).filter((m) => m.role === 'system').map((m) => ({ role: 'system' as const, content: m.text }));
  const users: string[] = [];
  const replies: (string | undefined)[] = [];
  messages.forEach((m, i) => {
    if (m.role !== 'user' || m.text.trim().length === 0) return;
    users.push(m.text);
    const next = messages[i + 1];
    replies.push(next?.role === 'assistant' ? next.text : undefined);
  });
  return { system, users, replies };
}

const isHumanTurn = (turn: { from: string }): boolean => turn.from === 'human' || turn.from === 'user';

function fieldsOf(value: unknown): string {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? ` (its fields: ${Object.keys(value).join(', ') || 'none'})` : ` (it is ${Array.isArray(value) ? 'an array' : typeof value})`;
}

/**
 * ShareGPT: a JSON array of {conversations: [{from, value}]}; the first human turn is the prompt,
 * the turn after it (when not another human turn) its recorded reply.
 */
function parseShareGpt(text: string, path: string): { rows: DatasetRow[]; skipped: number } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WorkloadError(`Dataset file ${path} is not JSON (${(error as Error).message}). The sharegpt format is one JSON array of {"conversations": [...]}.`);
  }
  const list = ShareGptSchema.safeParse(value);
  if (!list.success) throw new WorkloadError(`Dataset file ${path} is not a JSON array${fieldsOf(value)}. The sharegpt format is one JSON array of {"conversations": [{"from": "human", "value": "..."}, ...]}.`);
  const rows: DatasetRow[] = [];
  let skipped = 0;
  for (const item of list.data) {
    const row = ShareGptRowSchema.safeParse(item);
    const turns = row.success ? row.data.conversations : [];
    const at = turns.findIndex(isHumanTurn);
    const first = turns[at];
    if (first === undefined || first.value.trim().length === 0) {
      skipped++;
      continue;
    }
    const next = turns[at + 1];
    const conversation = conversationOf(turns.map((turn) => ({ role: isHumanTurn(turn) ? 'user' : turn.from === 'system' ? 'system' : 'assistant', text: turn.value })));
    rows.push({ prompt: first.value, text: first.value, ...(next !== undefined && !isHumanTurn(next) ? { reply: next.value } : {}), conversation });
  }
  return { rows, skipped };
}
