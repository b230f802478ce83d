/**
 * `llmbench import FILE|FOLDER... --out FILE|FOLDER`: other tools' result files (vLLM, GuideLLM,
 * EvalScope, AIPerf, LLMPerf) and texts holding their printouts (logs, Markdown notes) to LLM
 * Bench result files, which open in the extension's viewer and compare with measured runs.
 * One run found: the imported table and what the tool defines differently. Several runs: a line
 * per run (its file, steps and labels), one result file each in the output folder.
 */
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RESULT_FILE_SUFFIX, type ResultDocument } from '../../format/result';
import { importRuns, runFileName, runSource } from '../../import';
import { formatTerminalTable } from '../../report/tables';
import { parseFlags, parseKeyValue, UsageError } from '../args';

const IMPORT_HELP = `Usage: llmbench import FILE|FOLDER... --out NAME${RESULT_FILE_SUFFIX}|FOLDER [--label key=value]...

Reads result files written by other benchmark tools and writes LLM Bench result files:
  vLLM bench serve / benchmark_serving.py  --save-result JSON (with --save-detailed lists);
                                           bench sweep summary.json or its output folder
  GuideLLM                                 benchmarks.json (before 0.4, 0.4+, report version 2)
  EvalScope perf                           benchmark_summary.json (+ benchmark_percentile.json beside it),
                                           or the run folder holding parallel_N_number_M/ folders
  AIPerf                                   profile_export_aiperf.json (+ profile_export.jsonl beside it)
  LLMPerf                                  *_summary.json (+ *_individual_responses.json beside it)
  text (.md, .txt, .log, pasted notes)     vLLM "Serving Benchmark Result" blocks, EvalScope
                                           "Benchmarking summary" printouts, GuideLLM tables;
                                           labels from the lines above them (model, GPUs, engine, lengths)
The tool is recognised from the content. Several files of one tool and model become the steps of one
run (e.g. one vLLM file per request rate); a text may hold many runs.

Options:
  --out FILE|FOLDER   a file ending in ${RESULT_FILE_SUFFIX} when exactly one run is found;
                      otherwise a folder that gets one ${RESULT_FILE_SUFFIX} per run
  --label key=value   add a label to every run (engine=vllm, gpu=A100x2, quant=awq); repeatable
  --help              this text
`;

/** Writes a whole file or nothing: a crash mid-write leaves a temporary file, never a half result. */
async function writeWhole(path: string, doc: ResultDocument): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, JSON.stringify(doc, null, 2) + '\n');
    await rename(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
}

const describeLabels = (doc: ResultDocument) =>
  Object.entries(doc.labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, { '--out': { kind: 'string' }, '--label': { kind: 'string', repeatable: true }, '--help': { kind: 'boolean' } }, 'llmbench import');
  if (flags.has('--help')) {
    process.stdout.write(IMPORT_HELP);
    return 0;
  }
  if (flags.positionals.length === 0) throw new UsageError('give the files or folders to import, like llmbench import benchmarks.json --out guidellm.llmbench.json');
  const out = flags.get('--out');
  if (!out) throw new UsageError(`--out is required: the result file to write (like --out imported${RESULT_FILE_SUFFIX}), or a folder for one file per run`);
  const toFile = out.endsWith(RESULT_FILE_SUFFIX);
  if (!toFile && out.endsWith('.json')) throw new UsageError(`--out: '${out}' must end in ${RESULT_FILE_SUFFIX} so the extension opens it as a result, or name a folder`);
  const isFile = await stat(out).then((s) => s.isFile(), () => false);
  if (!toFile && isFile) throw new UsageError(`--out: '${out}' is a file; give a folder for one result per run, or a name ending in ${RESULT_FILE_SUFFIX}`);
  const labels = Object.fromEntries(flags.all('--label').map((text) => parseKeyValue('--label', text, 'a label', 'engine=vllm')));

  const outcome = await importRuns(flags.positionals);
  if (!outcome.ok) {
    process.stderr.write(`llmbench import: ${outcome.error}\n`);
    return 2;
  }
  const runs = outcome.value.map((doc) => ({ ...doc, labels: { ...doc.labels, ...labels } }));
  if (toFile) {
    const [doc, ...more] = runs;
    if (!doc || more.length > 0) {
      process.stderr.write(
        `llmbench import: found ${runs.length} runs (${runs.map(runSource).join('; ')}); --out ${out} holds one. Give a folder (--out imported/) for one file per run.\n`,
      );
      return 2;
    }
    await writeWhole(out, doc);
    const from = doc.importedFrom;
    process.stdout.write(`Imported ${from?.tool}${from?.version ? ` ${from.version}` : ''}: ${doc.steps.length} step(s) -> ${out}\n\n`);
    process.stdout.write(formatTerminalTable(doc));
    if (from?.notes.length) process.stdout.write(`\nHow ${from.tool} differs:\n${from.notes.map((n) => `  - ${n}`).join('\n')}\n`);
    return 0;
  }
  await mkdir(out, { recursive: true });
  // Names already in the folder are taken: a second import never overwrites the first.
  const taken = new Set(await readdir(out));
  for (const [index, doc] of runs.entries()) {
    const file = join(out, runFileName(doc, index, taken));
    await writeWhole(file, doc);
    process.stdout.write(`${file}: ${doc.importedFrom?.tool}, ${doc.steps.length} step(s) from ${runSource(doc)}; ${describeLabels(doc)}\n`);
  }
  process.stdout.write(`${runs.length} run(s) imported into ${out}\n`);
  return 0;
}
