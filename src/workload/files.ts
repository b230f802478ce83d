import { readFile } from 'node:fs/promises';
import type { ParseOutcome } from '../format/result';

/** A text file's content, or why it could not be read, worded to follow the file's name: "was not found". */
export async function readTextFile(path: string): Promise<ParseOutcome<string>> {
  try {
    return { ok: true, value: await readFile(path, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, error: 'was not found' };
    if (code === 'EISDIR') return { ok: false, error: 'is a folder, not a file' };
    return { ok: false, error: `could not be read (${code ?? String(error)})` };
  }
}
