/**
 * `llmbench import` and the extension's import: other tools' result files and text (logs,
 * Markdown notes) to ResultDocuments, one per run. The tool is recognised from the content (never
 * the file name); files a tool writes side by side (EvalScope's percentile table, AIPerf's
 * per-request records, LLMPerf's individual responses) are picked up from the same folder.
 * Several files of one tool, model (and `vllm bench sweep` server configuration) become the
 * steps of one run, ordered by load; each run found in a text is a run of its own.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeZodError, RESULT_FILE_SUFFIX, ResultDocumentSchema, type ParseOutcome, type ResultDocument, type Step } from '../format/result';
import { importAiperf, looksLikeAiperfRecords, looksLikeAiperfSummary } from './aiperf';
import { importFailure, parsePythonJson, type ImportInput, type ImportOutcome } from './common';
import { importEvalscope, looksLikeEvalscopePercentiles, looksLikeEvalscopeSummary } from './evalscope';
import { importGuidellm, looksLikeGuidellm } from './guidellm';
import { importLlmperf, looksLikeLlmperfIndividual, looksLikeLlmperfSummary } from './llmperf';
import { importTextBlocks } from './text';
import { importVllm, looksLikeVllm, looksLikeVllmSweep, sweepParameters } from './vllm';

export type ImportedTool = 'vllm' | 'guidellm' | 'evalscope' | 'aiperf' | 'llmperf';

type Detected =
  | { kind: 'vllm' | 'vllm-sweep' | 'guidellm' | 'evalscope-summary' | 'aiperf-summary' | 'llmperf-summary' | 'llmperf-individual'; raw: unknown }
  | { kind: 'evalscope-percentiles' | 'aiperf-records' | 'text' | 'unknown'; raw?: unknown };

const WHAT_WE_READ =
  'vLLM bench serve / benchmark_serving.py --save-result JSON and bench sweep summary.json, GuideLLM benchmarks.json, EvalScope perf benchmark_summary.json, AIPerf profile_export_aiperf.json or profile_export.jsonl, LLMPerf *_summary.json or *_individual_responses.json, and text (logs, Markdown) holding vLLM or EvalScope printouts or tables of benchmark figures (GuideLLM\'s, or your own in English or Chinese)';

function detect(text: string): Detected {
  const json = parsePythonJson(text);
  if (!json.ok) return looksLikeAiperfRecords(text) ? { kind: 'aiperf-records' } : { kind: 'text' };
  const raw = json.value;
  if (looksLikeGuidellm(raw)) return { kind: 'guidellm', raw };
  if (looksLikeVllm(raw)) return { kind: 'vllm', raw };
  if (looksLikeVllmSweep(raw)) return { kind: 'vllm-sweep', raw };
  if (looksLikeEvalscopeSummary(raw)) return { kind: 'evalscope-summary', raw };
  if (looksLikeEvalscopePercentiles(raw)) return { kind: 'evalscope-percentiles', raw };
  if (looksLikeAiperfSummary(raw)) return { kind: 'aiperf-summary', raw };
  if (looksLikeLlmperfSummary(raw)) return { kind: 'llmperf-summary', raw };
  if (looksLikeLlmperfIndividual(raw)) return { kind: 'llmperf-individual', raw };
  return { kind: 'unknown', raw };
}

/** Which tool wrote this JSON file, or null (text and unknown JSON). */
export function detectTool(text: string): ImportedTool | null {
  const kind = detect(text).kind;
  return kind === 'unknown' || kind === 'text' ? null : (kind.split('-')[0] as ImportedTool);
}

/** Reads files beside an input; a missing one is simply absent. */
type ReadSibling = (name: string) => Promise<ImportInput | null>;

/**
 * An imported document and the runs it may join: documents of one `group` merge into one run
 * (one file per load of a tool and model); a null group is a run of its own (a run found in a text).
 */
export interface ImportedPart {
  doc: ResultDocument;
  group: string | null;
}

const groupOf = (doc: ResultDocument, path: string) =>
  [doc.importedFrom?.tool, doc.endpoint.model, sweepParameters(path)?.serveKey ?? ''].join('\u0000');

/** A vLLM result with the labels of its `vllm bench sweep` folder, if it lies in one. */
function vllmPart(input: ImportInput, raw: unknown): ParseOutcome<ImportedPart> {
  const outcome = importVllm(input, raw);
  if (!outcome.ok) return outcome;
  const sweep = sweepParameters(input.path);
  const doc = sweep ? { ...outcome.value, labels: { ...outcome.value.labels, ...sweep.labels } } : outcome.value;
  return { ok: true, value: { doc, group: groupOf(doc, input.path) } };
}

/** Imports one file's text: the documents found in it. Sibling files are asked for through `readSibling` (their names are the tools' defaults). */
export async function importText(input: ImportInput, readSibling: ReadSibling): Promise<ParseOutcome<ImportedPart[]>> {
  if (/\.ya?ml$/i.test(input.path)) {
    return importFailure(`${input.path} is YAML. LLM Bench reads GuideLLM's JSON output: run GuideLLM with --output-path benchmarks.json (or convert the file to JSON).`);
  }
  const found = detect(input.text);
  if (found.kind === 'text') return importTextBlocks(input);
  if (found.kind === 'vllm-sweep' && Array.isArray(found.raw)) {
    const parts: ImportedPart[] = [];
    for (const [index, entry] of found.raw.entries()) {
      const part = vllmPart(input, entry);
      if (!part.ok) return { ok: false, error: `${input.path} entry ${index}: ${part.error}` };
      parts.push(part.value);
    }
    return { ok: true, value: parts };
  }
  if (found.kind === 'vllm') {
    const part = vllmPart(input, found.raw);
    return part.ok ? { ok: true, value: [part.value] } : part;
  }
  const outcome = await importToolFile(input, found, readSibling);
  return outcome.ok ? { ok: true, value: [{ doc: outcome.value, group: groupOf(outcome.value, input.path) }] } : outcome;
}

async function importToolFile(input: ImportInput, found: Detected, readSibling: ReadSibling): Promise<ImportOutcome> {
  const name = basename(input.path);
  const firstSibling = async (candidates: string[]) => {
    for (const candidate of candidates) {
      const sibling = candidate === name ? null : await readSibling(candidate);
      if (sibling) return sibling;
    }
    return undefined;
  };
  const withRaw = async (...candidates: string[]) => {
    const sibling = await firstSibling(candidates);
    if (!sibling) return undefined;
    const json = parsePythonJson(sibling.text);
    return json.ok ? { ...sibling, raw: json.value } : undefined;
  };
  switch (found.kind) {
    case 'guidellm':
      return importGuidellm(input, found.raw);
    case 'evalscope-summary': {
      const percentiles = await withRaw('benchmark_percentile.json');
      const args = await withRaw('benchmark_args.json');
      return importEvalscope({ summary: { ...input, raw: found.raw }, percentiles: percentiles?.raw, args: args?.raw });
    }
    case 'evalscope-percentiles':
      return importFailure(`${input.path} is EvalScope's percentile table alone: import the benchmark_summary.json beside it (the table is read with it).`);
    // AIPerf names its pair profile_export_aiperf.json and profile_export.jsonl (with any prefix).
    case 'aiperf-summary': {
      const records = await firstSibling([name.replace(/_aiperf\.json$/, '.jsonl'), 'profile_export.jsonl']);
      return importAiperf({ summary: { ...input, raw: found.raw }, ...(records ? { records } : {}) });
    }
    case 'aiperf-records': {
      const summary = await withRaw(name.replace(/\.jsonl$/, '_aiperf.json'), 'profile_export_aiperf.json');
      return importAiperf({ records: input, ...(summary ? { summary } : {}) });
    }
    // LLMPerf writes <name>_summary.json and <name>_individual_responses.json; copies are often renamed summary/individual.
    case 'llmperf-summary': {
      const individual = await withRaw(name.replace(/_summary\.json$/, '_individual_responses.json'), name.replace(/summary/, 'individual'));
      return importLlmperf({ summary: { ...input, raw: found.raw }, ...(individual ? { individual } : {}) });
    }
    case 'llmperf-individual': {
      const summary = await withRaw(name.replace(/_individual_responses\.json$/, '_summary.json'), name.replace(/individual/, 'summary'));
      return importLlmperf({ individual: { ...input, raw: found.raw }, ...(summary && looksLikeLlmperfSummary(summary.raw) ? { summary } : {}) });
    }
    // 'unknown', and the kinds importText handles itself
    default:
      return importFailure(
        `${input.path}: ${found.raw === undefined ? 'not JSON or JSON lines' : 'a JSON file of no tool LLM Bench knows'}. LLM Bench imports ${WHAT_WE_READ}.`,
      );
  }
}

const LOAD_ORDER = { synchronous: 0, concurrency: 1, rate: 2, schedule: 3, trace: 3, throughput: 4 } as const;
const loadOf = (step: Step) => step.profile.concurrency ?? step.profile.rate ?? 0;

/** Steps from light to heavy load: synchronous, concurrencies, rates, throughput. */
export function byLoad(a: Step, b: Step): number {
  return LOAD_ORDER[a.profile.kind] - LOAD_ORDER[b.profile.kind] || loadOf(a) - loadOf(b);
}

/** Labels every document agrees on: a label that differs between them (a sweep's varied parameter) describes a step, not the run. */
function commonLabels(docs: ResultDocument[]): Record<string, string> {
  const [first, ...rest] = docs;
  return Object.fromEntries(Object.entries(first?.labels ?? {}).filter(([key, value]) => rest.every((d) => d.labels[key] === value)));
}

/** One run from the documents of one group (several files, or a sweep's entries, of one tool and model). */
function mergeGroup(docs: ResultDocument[]): ResultDocument {
  const [first, ...rest] = docs as [ResultDocument, ...ResultDocument[]];
  if (rest.length === 0) return { ...first, steps: [...first.steps].sort(byLoad) };
  const steps = docs.flatMap((d) => d.steps).sort(byLoad);
  const failed = docs.every((d) => d.status === 'failed');
  return {
    ...first,
    labels: commonLabels(docs),
    status: failed ? 'failed' : 'complete',
    statusReason: failed ? first.statusReason ?? null : null,
    importedFrom: first.importedFrom && {
      ...first.importedFrom,
      file: [...new Set(docs.map((d) => d.importedFrom?.file))].join(', '),
      notes: [...new Set(docs.flatMap((d) => d.importedFrom?.notes ?? []))],
    },
    steps,
  };
}

/** Runs from imported parts: each group's documents merged, in the order first seen; ungrouped parts as they are. */
export function runsOf(parts: ImportedPart[]): ResultDocument[] {
  const groups = new Map<string, ResultDocument[]>();
  const order: (string | ResultDocument)[] = [];
  for (const { doc, group } of parts) {
    if (group === null) {
      order.push(doc);
      continue;
    }
    const members = groups.get(group);
    if (members) members.push(doc);
    else {
      groups.set(group, [doc]);
      order.push(group);
    }
  }
  return order.map((entry) => (typeof entry === 'string' ? mergeGroup(groups.get(entry) ?? []) : entry));
}

/**
 * Files to import under a path: the path itself, or for a folder the result files any tool left
 * in it. A `vllm bench sweep` combination folder holds `run=N.json` and a `summary.json` listing
 * the same results: the runs are read, the summary only when they are gone.
 */
async function expand(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path, { recursive: true })).map(String);
  const wanted = /(^|[\\/])(benchmark_summary\.json|benchmarks\.json|profile_export_aiperf\.json|[^\\/]*_summary\.json|run=\d+\.json|summary\.json)$/;
  const hasRuns = new Set(entries.filter((e) => /(^|[\\/])run=\d+\.json$/.test(e)).map((e) => dirname(e)));
  return entries
    .filter((e) => wanted.test(e) && !(basename(e) === 'summary.json' && hasRuns.has(dirname(e))))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .map((e) => join(path, e));
}

async function readInput(path: string): Promise<ImportInput | null> {
  try {
    return { path, text: await readFile(path, 'utf8') };
  } catch {
    return null;
  }
}

/** Reads, recognises and imports files or folders from disk: every run found, in order. */
export async function importRuns(paths: readonly string[]): Promise<ParseOutcome<ResultDocument[]>> {
  const files: string[] = [];
  for (const path of paths) {
    try {
      files.push(...(await expand(path)));
    } catch {
      return importFailure(`${path} does not exist or cannot be read.`);
    }
  }
  if (files.length === 0) return importFailure(`No result files found in ${paths.join(', ')}. LLM Bench imports ${WHAT_WE_READ}.`);
  const consumed = new Set<string>();
  const parts: ImportedPart[] = [];
  for (const file of files) {
    if (consumed.has(file)) continue;
    const input = await readInput(file);
    if (!input) return importFailure(`${file} cannot be read.`);
    const outcome = await importText(input, async (name) => {
      const sibling = join(dirname(file), name);
      const read = await readInput(sibling);
      if (read) consumed.add(sibling);
      return read;
    });
    if (!outcome.ok) return outcome;
    parts.push(...outcome.value);
  }
  return validRuns(parts);
}

/**
 * The border out: runs from the imported parts, each checked against the result schema. A value
 * the source holds but a result file cannot (a negative concurrency, a non-finite figure) is
 * refused here, naming the run and the field, rather than written.
 */
function validRuns(parts: ImportedPart[]): ParseOutcome<ResultDocument[]> {
  const runs = runsOf(parts);
  for (const doc of runs) {
    const checked = ResultDocumentSchema.safeParse(doc);
    if (!checked.success) return importFailure(`${runSource(doc)}: a value read from it is outside what a result holds: ${describeZodError(checked.error)}.`);
  }
  return { ok: true, value: runs };
}

/** Runs in pasted text (the clipboard); `name` stands for the file in messages and `importedFrom.file`. */
export function importPastedText(text: string, name: string): ParseOutcome<ResultDocument[]> {
  const parts = importTextBlocks({ path: name, text });
  return parts.ok ? validRuns(parts.value) : parts;
}

/** How a run is named in messages and listings: its file(s) and, for text, its lines. */
export function runSource(doc: ResultDocument): string {
  const from = doc.importedFrom;
  if (!from) return doc.endpoint.model;
  return from.lines ? `${from.file} lines ${from.lines.first}-${from.lines.last}` : from.file;
}

/** Reads, recognises and imports files or folders from disk into one document: they must hold exactly one run. */
export async function importPaths(paths: readonly string[]): Promise<ImportOutcome> {
  const runs = await importRuns(paths);
  if (!runs.ok) return runs;
  const [only, ...more] = runs.value;
  if (!only) return importFailure(`Nothing was imported from ${paths.join(', ')}.`);
  if (more.length === 0) return { ok: true, value: only };
  const listed = runs.value.map((doc) => `${runSource(doc)} (${doc.importedFrom?.tool}, model ${doc.endpoint.model})`).join('; ');
  return importFailure(`${paths.join(', ')} hold ${runs.value.length} runs that cannot join in one result (${listed}): import them to separate files (llmbench import --out FOLDER) and compare those.`);
}

/**
 * A file name for a run, from its labels (model, quantization, engine, GPUs), numbered by its
 * place among the runs found: `02-qwen2-7b-instruct-awq-sglang-2xl20-48gb.llmbench.json`.
 * `taken` holds names already given, so two runs never share a file.
 */
export function runFileName(doc: ResultDocument, index: number, taken: Set<string>): string {
  const l = doc.labels;
  const parts = [l['model'], l['quantization'] && !l['model']?.toLowerCase().includes(l['quantization']) ? l['quantization'] : undefined, l['engine'], l['gpus'] && l['gpu'] ? `${l['gpus']}x${l['gpu']}` : (l['gpu'] ?? (l['gpus'] ? `${l['gpus']}gpu` : undefined))];
  const slug = parts
    .filter((p): p is string => !!p)
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  const base = `${String(index + 1).padStart(2, '0')}-${slug || (doc.importedFrom?.tool ?? 'run').toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  let name = `${base}${RESULT_FILE_SUFFIX}`;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}${RESULT_FILE_SUFFIX}`;
  taken.add(name);
  return name;
}
