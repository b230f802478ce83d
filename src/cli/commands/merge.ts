/**
 * `llmbench merge FILES... --out FILE`: the files of one shard run (the coordinator's and each
 * shard's own) into one result file, with exact percentiles from the raw records
 * (src/results/merge.ts). Files of another run, plan or seed are refused with both files named.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RESULT_FILE_SUFFIX } from '../../format/result';
import { BadInputError } from '../../format/errors';
import { mergeShardFiles, type ShardFile } from '../../results/merge';
import { readResultText } from '../../results/read-result';
import { formatTerminalTable } from '../../report/tables';
import { parseFlags, UsageError } from '../args';

const MERGE_HELP = `Usage: llmbench merge FILE... --out NAME${RESULT_FILE_SUFFIX}

Merges the result files of one shard run (\`llmbench run --shards N\`, docs/scale-out.md): shard 0's
file, which its coordinator wrote as the records streamed in, and each other shard's own file
(NAME.shard-I${RESULT_FILE_SUFFIX}). Each shard's records come from the file holding most of them,
so a run whose coordinator was lost is put back together from the shards' files. Every step is
summarized again from the raw records. Files of another run, plan or seed are refused.

Options:
  --out FILE   the merged result file
  --help       this text
`;

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, { '--out': { kind: 'string' }, '--help': { kind: 'boolean' } }, 'llmbench merge');
  if (flags.has('--help')) {
    process.stdout.write(MERGE_HELP);
    return 0;
  }
  const out = flags.get('--out');
  if (out === undefined) throw new UsageError(`--out FILE is required: where the merged result goes (see llmbench merge --help)`);
  if (flags.positionals.length === 0) throw new UsageError('give the shard files to merge: llmbench merge FILE... --out FILE');
  const files: ShardFile[] = flags.positionals.map((path) => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new UsageError(`${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    const read = readResultText(text);
    if (!read.ok) throw new UsageError(`${path} is not a result file: ${read.error}`);
    return { path, doc: read.value.document };
  });
  let merged;
  try {
    merged = mergeShardFiles(files, resolve(out));
  } catch (error) {
    if (error instanceof BadInputError) throw new UsageError(error.message);
    throw error;
  }
  process.stdout.write(formatTerminalTable(merged));
  const records = merged.steps.reduce((n, s) => n + s.requests.length, 0);
  process.stdout.write(`\nMerged ${files.length} files: ${records} requests of ${merged.shards?.count ?? 0} shards into ${out} (${merged.status}${merged.statusReason ? `: ${merged.statusReason}` : ''})\n`);
  return merged.status === 'complete' ? 0 : 1;
}
