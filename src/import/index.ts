/**
 * `llmbench import` and the extension's import: other tools' result files to one ResultDocument.
 * The tool is recognised from the content (never the file name); files a tool writes side by
 * side (EvalScope's percentile table, AIPerf's per-request records, LLMPerf's individual
 * responses) are picked up from the same folder. Several inputs of one tool and model become
 * the steps of one document, ordered by load.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ResultDocument, Step } from '../format/result';
import { importAiperf, looksLikeAiperfRecords, looksLikeAiperfSummary } from './aiperf';
import { importFailure, parsePythonJson, type ImportInput, type ImportOutcome } from './common';
import { importEvalscope, looksLikeEvalscopePercentiles, looksLikeEvalscopeSummary } from './evalscope';
import { importGuidellm, looksLikeGuidellm } from './guidellm';
import { importLlmperf, looksLikeLlmperfIndividual, looksLikeLlmperfSummary } from './llmperf';
import { importVllm, looksLikeVllm } from './vllm';

export type ImportedTool = 'vllm' | 'guidellm' | 'evalscope' | 'aiperf' | 'llmperf';

type Detected =
  | { kind: 'vllm' | 'guidellm' | 'evalscope-summary' | 'aiperf-summary' | 'llmperf-summary' | 'llmperf-individual'; raw: unknown }
  | { kind: 'evalscope-percentiles' | 'aiperf-records' | 'unknown'; raw?: unknown };

const WHAT_WE_READ =
  'vLLM bench serve / benchmark_serving.py --save-result JSON, GuideLLM benchmarks.json, EvalScope perf benchmark_summary.json, AIPerf profile_export_aiperf.json or profile_export.jsonl, LLMPerf *_summary.json or *_individual_responses.json';

function detect(text: string): Detected {
  const json = parsePythonJson(text);
  if (!json.ok) return looksLikeAiperfRecords(text) ? { kind: 'aiperf-records' } : { kind: 'unknown' };
  const raw = json.value;
  if (looksLikeGuidellm(raw)) return { kind: 'guidellm', raw };
  if (looksLikeVllm(raw)) return { kind: 'vllm', raw };
  if (looksLikeEvalscopeSummary(raw)) return { kind: 'evalscope-summary', raw };
  if (looksLikeEvalscopePercentiles(raw)) return { kind: 'evalscope-percentiles', raw };
  if (looksLikeAiperfSummary(raw)) return { kind: 'aiperf-summary', raw };
  if (looksLikeLlmperfSummary(raw)) return { kind: 'llmperf-summary', raw };
  if (looksLikeLlmperfIndividual(raw)) return { kind: 'llmperf-individual', raw };
  return { kind: 'unknown', raw };
}

/** Which tool wrote this text, or null. */
export function detectTool(text: string): ImportedTool | null {
  const kind = detect(text).kind;
  return kind === 'unknown' ? null : (kind.split('-')[0] as ImportedTool);
}

/** Reads files beside an input; a missing one is simply absent. */
type ReadSibling = (name: string) => Promise<ImportInput | null>;

/** Imports one file's text. Sibling files are asked for through `readSibling` (their names are the tools' defaults). */
export async function importText(input: ImportInput, readSibling: ReadSibling): Promise<ImportOutcome> {
  if (/\.ya?ml$/i.test(input.path)) {
    return importFailure(`${input.path} is YAML. LLM Bench reads GuideLLM's JSON output: run GuideLLM with --output-path benchmarks.json (or convert the file to JSON).`);
  }
  const found = detect(input.text);
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
    case 'vllm':
      return importVllm(input, found.raw);
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
    case 'unknown':
      return importFailure(
        `${input.path}: ${found.raw === undefined ? 'not JSON or JSON lines' : 'a JSON file of no tool LLM Bench knows'}. LLM Bench imports ${WHAT_WE_READ}.`,
      );
  }
}

const LOAD_ORDER = { synchronous: 0, concurrency: 1, rate: 2, schedule: 3, throughput: 4 } as const;
const loadOf = (step: Step) => step.profile.concurrency ?? step.profile.rate ?? 0;

/** Steps from light to heavy load: synchronous, concurrencies, rates, throughput. */
export function byLoad(a: Step, b: Step): number {
  return LOAD_ORDER[a.profile.kind] - LOAD_ORDER[b.profile.kind] || loadOf(a) - loadOf(b);
}

/** One document from the imports of several files of the same tool and model. */
export function mergeImported(docs: ResultDocument[]): ImportOutcome {
  const [first, ...rest] = docs;
  if (!first?.importedFrom) return importFailure('Nothing was imported.');
  for (const doc of rest) {
    if (doc.importedFrom?.tool !== first.importedFrom.tool || doc.endpoint.model !== first.endpoint.model) {
      return importFailure(
        `${doc.importedFrom?.file} (${doc.importedFrom?.tool}, model ${doc.endpoint.model}) cannot join ${first.importedFrom.file} (${first.importedFrom.tool}, model ${first.endpoint.model}) in one result: import them to separate files and compare those.`,
      );
    }
  }
  if (rest.length === 0) return { ok: true, value: { ...first, steps: [...first.steps].sort(byLoad) } };
  return {
    ok: true,
    value: {
      ...first,
      labels: Object.assign({}, ...docs.map((d) => d.labels)) as Record<string, string>,
      importedFrom: {
        ...first.importedFrom,
        file: docs.map((d) => d.importedFrom?.file).join(', '),
        notes: [...new Set(docs.flatMap((d) => d.importedFrom?.notes ?? []))],
      },
      steps: docs.flatMap((d) => d.steps).sort(byLoad),
    },
  };
}

/** Files to import under a path: the path itself, or for a folder the result files any tool left in it. */
async function expand(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { recursive: true });
  const wanted = /(^|[\\/])(benchmark_summary\.json|benchmarks\.json|profile_export_aiperf\.json|[^\\/]*_summary\.json)$/;
  return entries.filter((e) => wanted.test(e)).sort().map((e) => join(path, e));
}

async function readInput(path: string): Promise<ImportInput | null> {
  try {
    return { path, text: await readFile(path, 'utf8') };
  } catch {
    return null;
  }
}

/** Reads, recognises and imports files or folders from disk; one document for all of them. */
export async function importPaths(paths: readonly string[]): Promise<ImportOutcome> {
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
  const docs: ResultDocument[] = [];
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
    docs.push(outcome.value);
  }
  return mergeImported(docs);
}
