/**
 * Varied texts for checking a tokenizer against a reference implementation, drawn from a seed so
 * that a failure names a text that can be made again. Each kind aims at a part of a tokenizer that
 * real files exercise and toy vocabularies do not: pre-tokenizer regexes (contractions, digit
 * groups, punctuation runs, newlines), byte-level mapping of multi-byte characters, SentencePiece
 * spaces and byte fallback, normalization (combining marks), and added tokens inside text.
 */
import { createRandom, type Random } from '../../src/workload/random';

export interface GeneratedText {
  kind: string;
  text: string;
}

const pick = <T>(random: Random, items: readonly T[]): T => items[random.int(0, items.length - 1)] as T;
const fromRange = (random: Random, first: number, last: number): string => String.fromCodePoint(random.int(first, last));
const repeat = (count: number, make: () => string, separator = ''): string => Array.from({ length: count }, make).join(separator);

const ENGLISH = ['the', 'Quick', 'brown', 'FOX', 'jumps', 'over', 'lazy', 'dog', 'tokenizer', 'benchmark', 'latency', 'GPU', 'throughput', 'a', 'I', 'naïve', 'café', 'résumé', 'coöperate'];
const CONTRACTIONS = ["don't", "I'M", "they'll", "we've", "it's", "She'D", "you're", "Can'T", "'s", "o'clock", "rock'n'roll", "''", "'"];
const PUNCTUATION = ['.', ',', '!', '?', '...', '!!!', '?!', ';', ':', '—', '–', '-', '"', '«', '»', '“', '”', '(', ')', '[', ']', '{', '}', '<', '>', '/', '\\', '@', '#', '$', '%', '^', '&', '*', '_', '=', '+', '~', '`', '|'];
const SPACES = [' ', '  ', '   ', '\t', '\t\t', '\n', '\n\n', '\r\n', ' \n', '\n ', '\n\n\n', ' \t ', '\u00a0', '\u3000', '\u2009', '\u200b', '        ', '\v', '\f', '\u0085', '\ufeff', '\u1680', '\u2028', '\u202f', '\u180e', '\r', ' \r\n\t '];
const EMOJI = ['😀', '🚀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇯🇵', '🇫🇷', '❤️', '✨', '🤖', '🧪', '🔥', '🙈', '1️⃣', '☕', '👩🏿‍💻', '🫠'];
const CODE = [
  'function add(a, b) {\n  return a + b;\n}\n',
  'def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n',
  'for (let i = 0; i < 10; i++) { sum += arr[i] ** 2; }',
  'SELECT id, name FROM users WHERE age >= 18 ORDER BY name DESC;',
  '#include <stdio.h>\nint main(void) { printf("%d\\n", 42); return 0; }',
  'const x = { "key": [1, 2, 3], nested: { a: null } };',
  '    if (!ok) throw new Error(`bad ${value}`);\n',
  '\t\tself.assertEqual(result, expected)  # TODO: tolerance\n',
  'fn main() -> Result<(), Box<dyn Error>> { Ok(()) }',
  '<div class="row"><span id=\'x\'>&amp;&lt;</span></div>',
  'x=>x*2;a&&b||c??d;i+=1;j-=2;k<<=3;m>>>=4;',
  '$ curl -sS https://example.com/v1/chat/completions -H "Authorization: Bearer $KEY"',
];
const SCRIPTS: Array<[number, number]> = [
  [0x0410, 0x044f], // Cyrillic
  [0x0391, 0x03c9], // Greek
  [0x0627, 0x064a], // Arabic letters
  [0x05d0, 0x05ea], // Hebrew
  [0x0905, 0x0939], // Devanagari letters
  [0x0e01, 0x0e2e], // Thai
  [0x10a0, 0x10ff], // Georgian
  [0x0531, 0x0556], // Armenian
];
const COMBINING = ['\u0301', '\u0300', '\u0308', '\u0327', '\u0303', '\u093f', '\u0e34', '\u064e'];

function cjk(random: Random): string {
  const length = random.int(1, 40);
  return repeat(length, () => {
    const r = random.next();
    if (r < 0.45) return fromRange(random, 0x4e00, 0x9fff); // CJK unified ideographs
    if (r < 0.6) return fromRange(random, 0x3041, 0x3096); // hiragana
    if (r < 0.7) return fromRange(random, 0x30a1, 0x30fa); // katakana
    if (r < 0.82) return fromRange(random, 0xac00, 0xd7a3); // Hangul syllables
    if (r < 0.85) return fromRange(random, 0x20000, 0x2a6df); // CJK extension B (outside the BMP)
    if (r < 0.9) return fromRange(random, 0xff01, 0xff5e); // full-width forms
    return pick(random, ['，', '。', '、', '「', '」', '：', '？', '！', ' ', '\n', '《', '》']);
  });
}

function words(random: Random, count: number): string {
  return repeat(count, () => (random.next() < 0.2 ? pick(random, CONTRACTIONS) : pick(random, ENGLISH)) + (random.next() < 0.2 ? pick(random, PUNCTUATION) : ''), ' ');
}

function numbers(random: Random): string {
  return repeat(random.int(1, 8), () => {
    const r = random.next();
    if (r < 0.3) return String(random.int(0, 10 ** random.int(1, 9)));
    if (r < 0.45) return (random.next() * 10 ** random.int(0, 6)).toFixed(random.int(0, 5));
    if (r < 0.55) return repeat(random.int(5, 40), () => String(random.int(0, 9)));
    if (r < 0.65) return random.int(1, 999_999_999).toLocaleString('en-US');
    if (r < 0.72) return `${random.int(0, 255)}.${random.int(0, 255)}.${random.int(0, 255)}.${random.int(0, 255)}`;
    if (r < 0.8) return repeat(random.int(1, 6), () => fromRange(random, 0x0660, 0x0669)); // Arabic-Indic digits
    if (r < 0.87) return repeat(random.int(1, 6), () => fromRange(random, 0xff10, 0xff19)); // full-width digits
    if (r < 0.93) return `${random.int(-999, 999)}e${random.int(-30, 30)}`;
    return `v${random.int(0, 20)}.${random.int(0, 99)}.${random.int(0, 9)}-rc${random.int(1, 5)}`;
  }, pick(random, [' ', ', ', '', '\n', ' + ', '/']));
}

function mixedScripts(random: Random): string {
  return repeat(random.int(1, 12), () => {
    const [first, last] = pick(random, SCRIPTS);
    let word = repeat(random.int(1, 10), () => fromRange(random, first, last));
    if (random.next() < 0.3) word += pick(random, COMBINING);
    if (random.next() < 0.3) word = pick(random, ENGLISH) + word;
    return word;
  }, pick(random, [' ', '', '-', '\n', ' · ']));
}

function longWord(random: Random): string {
  const r = random.next();
  const length = random.int(30, 400);
  if (r < 0.3) return repeat(length, () => String.fromCharCode(random.int(0x61, 0x7a)));
  if (r < 0.5) return 'a'.repeat(length);
  if (r < 0.65) return Buffer.from(repeat(length, () => String.fromCharCode(random.int(0, 255)))).toString('base64');
  if (r < 0.8) return `https://example.com/${repeat(random.int(2, 8), () => repeat(random.int(2, 12), () => String.fromCharCode(random.int(0x61, 0x7a))), '/')}?q=${random.int(0, 1e6)}&lang=en#top`;
  if (r < 0.9) return 'Supercalifragilisticexpialidocious'.repeat(random.int(1, 8));
  return repeat(length, () => pick(random, ['-', '=', '_', '*', '#', '~', '.']));
}

function whitespaceRuns(random: Random): string {
  return repeat(random.int(2, 12), () => (random.next() < 0.5 ? pick(random, SPACES) : pick(random, ENGLISH)), random.next() < 0.5 ? '' : pick(random, SPACES));
}

function emoji(random: Random): string {
  return repeat(random.int(1, 10), () => (random.next() < 0.6 ? pick(random, EMOJI) : pick(random, ENGLISH)), pick(random, ['', ' ', '\n']));
}

function code(random: Random): string {
  return repeat(random.int(1, 4), () => pick(random, CODE), pick(random, ['\n', '\n\n', '']));
}

/** Text around the tokenizer's own added tokens, which must come out as their single ids. */
function withAddedTokens(random: Random, addedTokens: readonly string[]): string {
  if (addedTokens.length === 0) return words(random, 5);
  return repeat(random.int(1, 5), () => (random.next() < 0.5 ? pick(random, addedTokens) : words(random, random.int(1, 4))), pick(random, ['', ' ', '\n']));
}

/** Everything at once, in random order: where the kinds meet, splits and merges cross over. */
function mixture(random: Random, addedTokens: readonly string[]): string {
  const makers = [() => cjk(random), () => words(random, random.int(1, 8)), () => numbers(random), () => mixedScripts(random), () => emoji(random), () => code(random), () => pick(random, SPACES), () => longWord(random), () => withAddedTokens(random, addedTokens)];
  return repeat(random.int(2, 8), () => pick(random, makers)(), random.next() < 0.5 ? '' : pick(random, SPACES));
}

/**
 * `count` texts of every kind in turn, the same for the same seed. `addedTokens` are strings the
 * tokenizer treats as whole tokens (its special tokens); texts of the "added" kind contain them.
 */
export function generateTexts(seed: number, count: number, addedTokens: readonly string[] = []): GeneratedText[] {
  const random = createRandom(seed);
  const kinds: Array<[string, () => string]> = [
    ['english', () => words(random, random.int(1, 60))],
    ['cjk', () => cjk(random)],
    ['emoji', () => emoji(random)],
    ['code', () => code(random)],
    ['whitespace', () => whitespaceRuns(random)],
    ['numbers', () => numbers(random)],
    ['scripts', () => mixedScripts(random)],
    ['long-word', () => longWord(random)],
    ['added', () => withAddedTokens(random, addedTokens)],
    ['mixture', () => mixture(random, addedTokens)],
  ];
  return Array.from({ length: count }, (_, i) => {
    const [kind, make] = kinds[i % kinds.length] as [string, () => string];
    return { kind, text: make() };
  });
}
