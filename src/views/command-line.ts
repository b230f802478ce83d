/**
 * An argv written as one line of POSIX shell that runs as the same arguments: shown by the tune
 * views (the best trial's server command), and written into the sbatch scripts of
 * `llmbench cluster slurm`, where each word must reach the program exactly as the user gave it.
 */

/** Words made only of these characters mean themselves to a POSIX shell (no globbing, expansion, `~` or `=cmd`). */
const SAFE_WORD = /^[A-Za-z0-9_\-+=.,/:@%^]+$/;

/**
 * One word for a POSIX shell: itself when it is plain, otherwise single-quoted, each `'` closed,
 * escaped and reopened (`'\''`). Inside single quotes nothing is special, newlines included.
 */
export function shellWord(word: string): string {
  return SAFE_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An argv as one line a POSIX shell runs as the same arguments: words with other characters are single-quoted. */
export function commandLine(argv: readonly string[]): string {
  return argv.map(shellWord).join(' ');
}
