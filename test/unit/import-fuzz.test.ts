/**
 * Robustness of every importer (issue 11, section 3): the real files of ../shared/fixtures,
 * mutated (truncated, wrong types, missing keys, huge numbers, NaN, deep nesting, 50 MB), must
 * import as a valid document or be refused with a message naming the file (and the field, where
 * one was broken); never a throw, never a hang (each import runs in a worker thread that is ended at
 * its time limit, so even a hang that never yields is caught). The fixtures are read there and mutated copies
 * written to a temporary folder. Mutations are drawn by a seeded generator: the same cases every run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { basename, join, resolve } from 'node:path';
import { parseResultDocument, type ResultDocument } from '../../src/format/result';
import { importRuns } from '../../src/import';
import { NOTES, TABLE_PAGES } from '../helpers/import-samples';

const repoRoot = process.env['LLMBENCH_ROOT'] ?? process.cwd();
const fixtures = resolve(repoRoot, '../shared/fixtures');
const skip = !existsSync(fixtures) && process.env['CI'] !== 'true' ? `no ${fixtures} (a clone without ../shared): fuzz tests skipped` : false;

/** Each JSON fixture and the file its importer reads beside it (copied along unmutated). */
const CASES = [
  { file: 'vllm/llmd_exp7_h100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json' },
  { file: 'vllm/ascend-fork_serving_llama8B_tp1_qps_inf.json' },
  { file: 'guidellm/guidellm_repo_benchmarks_stripped_pre0.3.json' },
  { file: 'aiperf/aiperf-0.1.1_run1_profile_export_aiperf.json', beside: 'aiperf/aiperf-0.1.1_run1_profile_export.jsonl' },
  { file: 'llmperf/leaderboard_summary_together_7b.json', beside: 'llmperf/leaderboard_individual_together_7b.json' },
  { file: 'llmperf/leaderboard_individual_together_7b.json' },
];

/** A small seeded generator (mulberry32), so a failure names a case that reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

/** Every path to a value, breadth first, at most `limit` of them (a per-request list is long). */
function paths(value: Json, limit = 400): Path[] {
  const found: Path[] = [];
  const queue: [Path, Json][] = [[[], value]];
  while (queue.length && found.length < limit) {
    const [path, node] = queue.shift()!;
    if (path.length) found.push(path);
    if (Array.isArray(node)) node.slice(0, 3).forEach((child, i) => queue.push([[...path, i], child]));
    else if (node && typeof node === 'object') for (const [key, child] of Object.entries(node)) queue.push([[...path, key], child]);
  }
  return found;
}

function setAt(root: Json, path: Path, change: (parent: Record<string, Json> | Json[], key: string | number) => void): Json {
  const copy = structuredClone(root);
  let node: Json = copy;
  for (const key of path.slice(0, -1)) node = (node as Record<string, Json>)[key as string] as Json;
  change(node as Record<string, Json>, path.at(-1)!);
  return copy;
}

const WRONG_VALUES: Json[] = ['x', {}, [], true, null, -1, 0, 'NaN', [[]], { nested: { deeper: [1, 'two'] } }];

interface Mutation {
  name: string;
  /** The key a failure message should name, when the mutation broke one. */
  field?: string;
  text: string;
}

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** The mutations of one JSON fixture. */
function mutations(text: string, seed: number): Mutation[] {
  const next = random(seed);
  const original = JSON.parse(text) as Json;
  const all = paths(original);
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)]!;
  const out: Mutation[] = [];
  for (const fraction of [0, 0.01, 0.3, 0.5, 0.9, 0.999]) out.push({ name: `truncated at ${fraction}`, text: text.slice(0, Math.floor(text.length * fraction)) });
  for (let i = 0; i < 40; i++) {
    const path = pick(all);
    const value = pick(WRONG_VALUES);
    out.push({ name: `${path.join('.')} = ${JSON.stringify(value)}`, field: String(path.at(-1)), text: JSON.stringify(setAt(original, path, (p, k) => ((p as Record<string, Json>)[k as string] = value))) });
  }
  for (let i = 0; i < 20; i++) {
    const path = pick(all);
    out.push({
      name: `${path.join('.')} removed`,
      field: String(path.at(-1)),
      text: JSON.stringify(setAt(original, path, (p, k) => (Array.isArray(p) ? p.splice(k as number, 1) : delete p[k as string]))),
    });
  }
  const numbers = all.filter((path) => {
    let node: Json = original;
    for (const key of path) node = (node as Record<string, Json>)[key as string] as Json;
    return typeof node === 'number';
  });
  for (let i = 0; i < 15 && numbers.length; i++) {
    const path = pick(numbers);
    // Python writes NaN and Infinity bare; 1e400 parses as Infinity; 1e308 is finite but overflows sums.
    const literal = pick(['NaN', 'Infinity', '-Infinity', '1e400', '1e308', '-1e308', '123456789012345678901234567890']);
    const marker = '"__fuzz_number__"';
    const withMarker = JSON.stringify(setAt(original, path, (p, k) => ((p as Record<string, Json>)[k as string] = '__fuzz_number__')));
    out.push({ name: `${path.join('.')} = ${literal}`, text: withMarker.replace(marker, literal) });
  }
  const top = pick(all.filter((p) => p.length === 1));
  for (const depth of [1_000, 100_000]) {
    const marker = '"__fuzz_nested__"';
    const withMarker = JSON.stringify(setAt(original, top, (p, k) => ((p as Record<string, Json>)[k as string] = '__fuzz_nested__')));
    out.push({ name: `${top.join('.')} nested ${depth} deep`, text: withMarker.replace(marker, nested(depth)) });
  }
  out.push({ name: 'not an object', text: '[1, 2, 3]' });
  out.push({ name: 'empty', text: '' });
  return out;
}

type ImportOutcome = Awaited<ReturnType<typeof importRuns>>;

/**
 * The importer in a worker thread of its own, so that a hang is caught even when it never yields
 * (a regular expression backtracking for minutes blocks its thread, and a timer on that thread
 * would never fire): past the limit the worker is ended and the import counts as hung.
 */
class ImportWorker {
  private worker = ImportWorker.start();

  private static start(): Worker {
    const source = `
      const { parentPort } = require('node:worker_threads');
      const { importRuns } = require(${JSON.stringify(require.resolve('../../src/import'))});
      parentPort.on('message', (path) => importRuns([path]).then(
        (outcome) => parentPort.postMessage({ outcome }),
        (error) => parentPort.postMessage({ thrown: String(error && error.stack || error) }),
      ));`;
    return new Worker(source, { eval: true });
  }

  async importWithin(path: string, limitMs: number): Promise<ImportOutcome> {
    const worker = this.worker;
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await new Promise<{ outcome?: ImportOutcome; thrown?: string }>((resolveAnswer, reject) => {
        timer = setTimeout(() => reject(new Error(`import of ${path} took more than ${limitMs} ms`)), limitMs);
        worker.once('message', resolveAnswer);
        worker.once('error', reject);
        worker.postMessage(path);
      });
      if (answer.thrown !== undefined) throw new Error(`import of ${path} threw: ${answer.thrown}`);
      return answer.outcome as ImportOutcome;
    } catch (error) {
      // A hung or broken worker is replaced, so that the next case starts clean.
      await worker.terminate();
      this.worker = ImportWorker.start();
      throw error;
    } finally {
      clearTimeout(timer);
      worker.removeAllListeners('message');
      worker.removeAllListeners('error');
    }
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

/**
 * What every outcome must be: valid documents that survive being written and read back, or a
 * message naming the file and the broken field. Returns the problem, if any, so a run lists them all.
 */
function problemWith(outcome: ImportOutcome, path: string, mutation: Mutation): string | null {
  const what = `${basename(path)} with ${mutation.name}`;
  if (outcome.ok) {
    if (outcome.value.length === 0) return `${what}: ok with no run`;
    for (const doc of outcome.value) {
      const reread = parseResultDocument(JSON.stringify(doc));
      if (!reread.ok) return `${what}: the imported document is not a valid result file once written: ${reread.error}`;
    }
    return null;
  }
  if (!outcome.error.includes(basename(path))) return `${what}: the message does not name the file: ${outcome.error}`;
  if (mutation.field && !/^\d+$/.test(mutation.field) && !outcome.error.includes(mutation.field)) {
    return `${what}: the message does not name the field ${mutation.field}: ${outcome.error}`;
  }
  return null;
}

test('importers on mutated real files: a valid document or a message naming file and field, within a time limit', { skip, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-fuzz-'));
  const importer = new ImportWorker();
  let checked = 0;
  const problems: string[] = [];
  for (const [index, { file, beside }] of CASES.entries()) {
    const text = readFileSync(join(fixtures, file), 'utf8');
    for (const [n, mutation] of mutations(text, 1000 + index).entries()) {
      const folder = mkdtempSync(join(dir, `${index}-${n}-`));
      if (beside) copyFileSync(join(fixtures, beside), join(folder, basename(beside)));
      const path = join(folder, basename(file));
      writeFileSync(path, mutation.text);
      const problem = await importer.importWithin(path, 10_000).then(
        (outcome) => problemWith(outcome, path, mutation),
        (error: Error) => `${basename(path)} with ${mutation.name}: ${error.message}`,
      );
      if (problem) problems.push(problem);
      checked++;
    }
  }
  await importer.close();
  assert.deepEqual(problems, []);
  assert.ok(checked > 400, `${checked} mutations checked`);
});

/**
 * Mutations of a line-based text (a page of notes holding printouts, an AIPerf JSONL): cut short,
 * a line dropped, a figure made garbage, control bytes, a line repeated thousands of times.
 */
function lineMutations(text: string, seed: number): Mutation[] {
  const draw = random(seed);
  const lines = text.split('\n');
  const pick = <T>(items: T[]): T => items[Math.floor(draw() * items.length)] as T;
  const out: Mutation[] = [];
  for (let i = 0; i < 8; i++) {
    const at = Math.floor(draw() * text.length);
    out.push({ name: `cut at character ${at}`, text: text.slice(0, at) });
  }
  for (let i = 0; i < 12; i++) {
    const at = Math.floor(draw() * lines.length);
    out.push({ name: `line ${at + 1} dropped`, text: lines.filter((_, n) => n !== at).join('\n') });
  }
  const numbers = [...text.matchAll(/\d+(?:\.\d+)?/g)];
  for (let i = 0; i < 24 && numbers.length; i++) {
    const match = pick(numbers);
    const garbage = pick(['NaN', '1e309', '-1', '', 'abc', '99999999999999999999999', '0x1F', '½']);
    const at = match.index ?? 0;
    out.push({ name: `figure ${match[0]} at ${at} made "${garbage}"`, text: text.slice(0, at) + garbage + text.slice(at + match[0].length) });
  }
  const line = Math.floor(draw() * lines.length);
  out.push({ name: `control bytes in line ${line + 1}`, text: lines.map((l, n) => (n === line ? `\u0000\u001b[31m${l}\u0007` : l)).join('\n') });
  out.push({ name: `line ${line + 1} repeated 5,000 times`, text: [...lines.slice(0, line), ...Array(5_000).fill(lines[line]), ...lines.slice(line + 1)].join('\n') });
  return out;
}

test('text and JSONL importers on mutated printouts: a valid document or a message naming the file, within a time limit', { skip, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-fuzz-text-'));
  const importer = new ImportWorker();
  const aiperfSummary = 'aiperf/aiperf-0.1.1_run1_profile_export_aiperf.json';
  const aiperfLines = 'aiperf/aiperf-0.1.1_run1_profile_export.jsonl';
  // A page of notes (vLLM blocks under context lines), users' pages of tables (word headers, units in
  // cells, transposed, Chinese; GuideLLM 0.1's console; EvalScope's older printout), and AIPerf's
  // per-request JSONL beside its summary.
  const sources = [
    { name: 'notes.md', text: NOTES },
    ...Object.entries(TABLE_PAGES).map(([name, text]) => ({ name, text })),
    { name: basename(aiperfLines), text: readFileSync(join(fixtures, aiperfLines), 'utf8'), beside: aiperfSummary },
  ];
  const problems: string[] = [];
  let checked = 0;
  for (const [index, source] of sources.entries()) {
    for (const [n, mutation] of lineMutations(source.text, 2000 + index).entries()) {
      const folder = mkdtempSync(join(dir, `${index}-${n}-`));
      if (source.beside) copyFileSync(join(fixtures, source.beside), join(folder, basename(source.beside)));
      const path = join(folder, source.name);
      writeFileSync(path, mutation.text);
      // AIPerf is imported through its summary, which reads the mutated JSONL beside it.
      const imported = source.beside ? join(folder, basename(source.beside)) : path;
      const problem = await importer.importWithin(imported, 10_000).then(
        // A refusal names the file that is broken: the mutated one.
        (outcome) => problemWith(outcome, path, mutation),
        (error: Error) => `${source.name} with ${mutation.name}: ${error.message}`,
      );
      if (problem) problems.push(problem);
      checked++;
    }
  }
  await importer.close();
  assert.deepEqual(problems, []);
  assert.ok(checked > 400, `${checked} mutations checked`);
});

/** A table line of a page (Markdown or box-drawn): a line with a cell bar. */
const TABLE_LINE = /[|｜│┃]/;

/** Markdown table blocks of a text: [first, last] line indexes of runs of lines starting with a bar. */
function markdownTables(lines: string[]): [number, number][] {
  const found: [number, number][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*[|｜]/.test(lines[i] ?? '')) continue;
    let end = i;
    while (end + 1 < lines.length && /^\s*[|｜]/.test(lines[end + 1] ?? '')) end++;
    if (end > i) found.push([i, end]);
    i = end;
  }
  return found;
}

const cellsOf = (line: string) => line.trim().replace(/^[|｜]|[|｜]$/g, '').split(/[|｜]/).map((c) => c.trim());
const isAlignment = (line: string) => /^[\s|｜:\-－]+$/.test(line) && /-/.test(line);

/**
 * Changes of layout that keep every figure's meaning, as pages differ from one another: each
 * returns the changed text (or null where it does not apply to this page).
 */
const LAYOUT_CHANGES: Record<string, (text: string) => string | null> = {
  'outer pipes dropped': (text) =>
    text
      .split('\n')
      // A row whose first cell is empty keeps its leading bar: without it Markdown itself reads no empty cell.
      .map((line) => (/^\s*\|\s*[^|\s]/.test(line) ? line.trim().replace(/^\|\s*/, '').replace(/\s*\|$/, '') : line))
      .join('\n'),
  'full-width bars': (text) => text.split('\n').map((line) => (/^\s*\|/.test(line) ? line.replace(/\|/g, '｜') : line)).join('\n'),
  'bold figures': (text) => text.split('\n').map((line) => (/^\s*[|｜]/.test(line) && !isAlignment(line) ? line.replace(/([|｜]\s*)(\d[\d.,]*)(?=\s*[|｜])/g, '$1**$2**') : line)).join('\n'),
  'alignment colons': (text) => text.split('\n').map((line) => (isAlignment(line) ? line.replace(/-+/g, ':---:') : line)).join('\n'),
  'CRLF line ends and trailing spaces': (text) => text.split('\n').map((line) => `${line}  `).join('\r\n'),
  'thousands separators': (text) =>
    text.split('\n').map((line) => (TABLE_LINE.test(line) ? line.replace(/(?<=[|｜│┃]\s*)(\d{4,})(?=[.\s|｜│┃])/g, (n) => Number(n).toLocaleString('en-US')) : line)).join('\n'),
  'headings in capitals': (text) => {
    const lines = text.split('\n');
    for (const [first] of markdownTables(lines)) lines[first] = (lines[first] ?? '').toUpperCase();
    return lines.join('\n');
  },
  'missing values written otherwise': (text) => (/N\/A|—/.test(text) ? text.replace(/\| N\/A \|/g, '| n/a |').replace(/\| — \|/g, '| -- |') : null),
  'spaces collapsed': (text) => text.replace(/ {2,}/g, ' '),
  /** Rows and columns swapped: a table of steps becomes metrics by rows, and back. */
  transposed: (text) => {
    const lines = text.split('\n');
    let changed = false;
    for (const [first, last] of markdownTables(lines).reverse()) {
      const rows = lines.slice(first, last + 1).filter((line) => !isAlignment(line)).map(cellsOf);
      const width = rows[0]?.length ?? 0;
      // Steps named by bare numbers keep their meaning only under a corner that says what they are (Concurrency);
      // tables with blank cells or label columns are left alone.
      const corner = rows[0]?.[0] ?? '';
      const stepNames = /指标|metric/i.test(corner) ? (rows[0]?.slice(1) ?? []) : rows.slice(1).map((r) => r[0] ?? '');
      const bareNumbers = stepNames.some((n) => /^\d+$/.test(n)) && !/concurrency|并发/i.test(corner);
      if (width < 2 || rows.some((r) => r.length !== width || r.some((c) => c === '')) || bareNumbers || /model|engine|gpu|框架|模型/i.test(rows[0]?.join(' ') ?? '')) continue;
      const swapped = Array.from({ length: width }, (_, c) => rows.map((r) => r[c] ?? ''));
      lines.splice(first, last - first + 1, `| ${swapped[0]?.join(' | ')} |`, `|${swapped[0]?.map(() => '---').join('|')}|`, ...swapped.slice(1).map((r) => `| ${r.join(' | ')} |`));
      changed = true;
    }
    return changed ? lines.join('\n') : null;
  },
};

/** What a page says, to compare across layouts: each run's tool, labels and steps with their figures. */
function figuresOf(runs: ResultDocument[]): unknown {
  const round = (v: number | null | undefined) => (typeof v === 'number' ? Number(v.toPrecision(10)) : null);
  return runs.map((run) => ({
    tool: run.importedFrom?.tool,
    labels: run.labels,
    steps: run.steps.map((step) => {
      const s = step.summary;
      const stats = (x: { mean: number; p50: number | null; p90: number | null; p99: number | null } | null | undefined) => (x ? [x.mean, x.p50, x.p90, x.p99].map(round) : null);
      return {
        name: step.name,
        requests: s?.requests,
        figures: [s?.durationSec, s?.requestsPerSecond, s?.outputTokensPerSecond, s?.totalTokensPerSecond, s?.achievedConcurrency].map(round),
        ttft: stats(s?.ttftMs),
        tpot: stats(s?.tpotMs),
        itl: stats(s?.itlMs),
        latency: stats(s?.latencyMs),
        tokens: [stats(s?.inputTokens), stats(s?.outputTokens)],
      };
    }),
  }));
}

test('users\' pages of tables keep every figure under changes of layout (pipes, full-width bars, bold, separators, capitals, transposed)', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-fuzz-layout-'));
  const importer = new ImportWorker();
  const draw = random(3000);
  const names = Object.keys(LAYOUT_CHANGES);
  const problems: string[] = [];
  let compared = 0;
  try {
    for (const [page, text] of Object.entries(TABLE_PAGES)) {
      const write = (name: string, body: string) => {
        const path = join(mkdtempSync(join(dir, `${page}-${name.replace(/[^a-z]+/gi, '-').slice(0, 40)}-`)), page);
        writeFileSync(path, body);
        return path;
      };
      const original = await importer.importWithin(write('original', text), 10_000);
      if (!original.ok || original.value.length === 0 || original.value.some((run) => run.steps.length === 0)) {
        problems.push(`${page}: the page itself imports no run: ${original.ok ? `${original.value.length} runs` : original.error}`);
        continue;
      }
      const expected = figuresOf(original.value);
      // Every change alone, then seeded combinations of three.
      const combinations = [...names.map((name) => [name]), ...Array.from({ length: 6 }, () => [0, 1, 2].map(() => names[Math.floor(draw() * names.length)] as string))];
      for (const combination of combinations) {
        let changed: string | null = text;
        for (const name of combination) changed = changed === null ? null : (LAYOUT_CHANGES[name]?.(changed) ?? null);
        if (changed === null || changed === text) continue;
        const outcome = await importer.importWithin(write(combination.join('+'), changed), 10_000);
        const what = `${page} with ${combination.join(' + ')}`;
        if (!outcome.ok) problems.push(`${what}: refused: ${outcome.error}`);
        else if (JSON.stringify(figuresOf(outcome.value)) !== JSON.stringify(expected)) {
          problems.push(`${what}: the figures differ:\n${JSON.stringify(figuresOf(outcome.value))}\n!=\n${JSON.stringify(expected)}`);
        }
        compared++;
      }
    }
  } finally {
    await importer.close();
  }
  assert.deepEqual(problems, []);
  assert.ok(compared > 60, `${compared} layouts compared`);
});

test('50 MB inputs import or are refused in bounded time: a padded vLLM file, a long log, a huge per-request list', { skip, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-fuzz-big-'));
  const megabytes50 = 50 * 1024 * 1024;
  const vllm = JSON.parse(readFileSync(join(fixtures, 'vllm/llmd_exp7_h100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json'), 'utf8')) as Record<string, unknown>;
  const cases: Mutation[] = [
    { name: 'a 50 MB string in a label', text: JSON.stringify({ ...vllm, padding: 'x'.repeat(megabytes50) }) },
    {
      name: 'per-request lists of 400,000 requests',
      text: JSON.stringify({
        ...vllm,
        ttfts: Array.from({ length: 400_000 }, (_, i) => 0.05 + (i % 7) / 1000),
        itls: Array.from({ length: 400_000 }, () => [0.01, 0.012, 0.011, 0.013, 0.01, 0.012, 0.011, 0.013, 0.01, 0.012]),
        input_lens: Array.from({ length: 400_000 }, () => 512),
        output_lens: Array.from({ length: 400_000 }, () => 11),
      }),
    },
    { name: 'a 50 MB log with no block', text: 'INFO 05-13 04:55:27 engine.py: Avg prompt throughput: 1.2 tokens/s | running: 8 reqs\n'.repeat(Math.ceil(megabytes50 / 80)) },
    { name: 'a 50 MB line of table bars', text: '|'.repeat(megabytes50) },
  ];
  const importer = new ImportWorker();
  try {
    for (const [n, mutation] of cases.entries()) {
      const path = join(dir, `big-${n}.${mutation.name.includes('log') || mutation.name.includes('bars') ? 'log' : 'json'}`);
      writeFileSync(path, mutation.text);
      assert.equal(problemWith(await importer.importWithin(path, 60_000), path, mutation), null);
    }
  } finally {
    await importer.close();
  }
});

function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolveRun({ code, stderr }));
  });
}

test('llmbench import of mutated files writes a whole valid result or nothing', { skip, timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-fuzz-cli-'));
  const text = readFileSync(join(fixtures, CASES[0]!.file), 'utf8');
  const chosen = mutations(text, 7).filter((_, i) => i % 9 === 0);
  for (const [n, mutation] of chosen.entries()) {
    const input = join(dir, `in-${n}.json`);
    writeFileSync(input, mutation.text);
    const out = join(dir, `out-${n}.llmbench.json`);
    const result = await runCli(['import', input, '--out', out]);
    if (result.code === 0) {
      const parsed = parseResultDocument(readFileSync(out, 'utf8'));
      assert.ok(parsed.ok, `${mutation.name}: ${parsed.ok ? '' : parsed.error}`);
    } else {
      assert.equal(result.code, 2, `${mutation.name}: exit ${result.code}: ${result.stderr}`);
      assert.ok(!existsSync(out), `${mutation.name}: refused but wrote ${out}`);
    }
  }
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp')), [], 'no temporary file left behind');
});
