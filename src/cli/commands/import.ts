/**
 * `llmbench import FILE|FOLDER... --out FILE`: other tools' result files (vLLM, GuideLLM,
 * EvalScope, AIPerf, LLMPerf) to one LLM Bench result file, which opens in the extension's viewer
 * and compares with measured runs. Prints the imported table and what the tool defines differently.
 */
import { writeFile } from 'node:fs/promises';
import { RESULT_FILE_SUFFIX } from '../../format/result';
import { importPaths } from '../../import';
import { formatTerminalTable } from '../../report/tables';
import { parseFlags, parseKeyValue, UsageError } from '../args';

const IMPORT_HELP = `Usage: llmbench import FILE|FOLDER... --out NAME${RESULT_FILE_SUFFIX} [--label key=value]...

Reads result files written by other benchmark tools and writes one LLM Bench result file:
  vLLM bench serve / benchmark_serving.py  --save-result JSON (with --save-detailed lists)
  GuideLLM                                 benchmarks.json (before 0.4, 0.4+, report version 2)
  EvalScope perf                           benchmark_summary.json (+ benchmark_percentile.json beside it),
                                           or the run folder holding parallel_N_number_M/ folders
  AIPerf                                   profile_export_aiperf.json (+ profile_export.jsonl beside it)
  LLMPerf                                  *_summary.json (+ *_individual_responses.json beside it)
The tool is recognised from the content. Several files of one tool and model become the steps of one
result (e.g. one vLLM file per request rate).

Options:
  --out FILE          where to write the result (must end in ${RESULT_FILE_SUFFIX})
  --label key=value   add a label (engine=vllm, gpu=A100x2, quant=awq); repeatable
  --help              this text
`;

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, { '--out': { kind: 'string' }, '--label': { kind: 'string', repeatable: true }, '--help': { kind: 'boolean' } }, 'llmbench import');
  if (flags.has('--help')) {
    process.stdout.write(IMPORT_HELP);
    return 0;
  }
  if (flags.positionals.length === 0) throw new UsageError('give the files or folders to import, like llmbench import benchmarks.json --out guidellm.llmbench.json');
  const out = flags.get('--out');
  if (!out) throw new UsageError(`--out is required: the result file to write, like --out imported${RESULT_FILE_SUFFIX}`);
  if (!out.endsWith(RESULT_FILE_SUFFIX)) throw new UsageError(`--out: '${out}' must end in ${RESULT_FILE_SUFFIX} so the extension opens it as a result`);
  const labels = Object.fromEntries(flags.all('--label').map((text) => parseKeyValue('--label', text, 'a label', 'engine=vllm')));

  const outcome = await importPaths(flags.positionals);
  if (!outcome.ok) {
    process.stderr.write(`llmbench import: ${outcome.error}\n`);
    return 2;
  }
  const doc = { ...outcome.value, labels: { ...outcome.value.labels, ...labels } };
  await writeFile(out, JSON.stringify(doc, null, 2) + '\n');
  const from = doc.importedFrom;
  process.stdout.write(`Imported ${from?.tool}${from?.version ? ` ${from.version}` : ''}: ${doc.steps.length} step(s) -> ${out}\n\n`);
  process.stdout.write(formatTerminalTable(doc));
  if (from?.notes.length) process.stdout.write(`\nHow ${from.tool} differs:\n${from.notes.map((n) => `  - ${n}`).join('\n')}\n`);
  return 0;
}
