/**
 * The runs of a report from paths: result files, folders of them, and other tools' files (imported
 * on the fly). A file that cannot be read is reported by name and reason; the others still load.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readResultText } from '../results/read-result';
import { RESULT_FILE_SUFFIX } from '../format/result';
import { importPaths } from '../import';
import { runName, type ReportRun } from '../views/report';

async function filesUnder(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { recursive: true });
  return entries.filter((e) => e.endsWith(RESULT_FILE_SUFFIX)).sort().map((e) => join(path, e));
}

export interface LoadedRuns {
  runs: ReportRun[];
  /** One sentence per path that could not be read, naming it. */
  problems: string[];
}

export async function loadRuns(paths: readonly string[]): Promise<LoadedRuns> {
  const runs: ReportRun[] = [];
  const problems: string[] = [];
  for (const path of paths) {
    let files: string[];
    try {
      files = await filesUnder(path);
    } catch {
      problems.push(`${path}: does not exist or cannot be read.`);
      continue;
    }
    if (files.length === 0) problems.push(`${path}: no ${RESULT_FILE_SUFFIX} files in this folder.`);
    for (const file of files) {
      const text = await readFile(file, 'utf8').catch(() => null);
      if (text === null) {
        problems.push(`${file}: cannot be read.`);
        continue;
      }
      const parsed = readResultText(text);
      if (parsed.ok) {
        const { document, unfinishedSteps } = parsed.value;
        runs.push({ name: runName(document, file), doc: document, source: file, unfinishedSteps });
        continue;
      }
      const imported = file.endsWith(RESULT_FILE_SUFFIX) ? null : await importPaths([file]);
      if (imported?.ok) runs.push({ name: runName(imported.value, file), doc: imported.value, source: file });
      else problems.push(`${file}: ${imported ? imported.error : parsed.error}`);
    }
  }
  return { runs, problems };
}
