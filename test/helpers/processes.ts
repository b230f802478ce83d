/**
 * The processes of this machine whose argv matches, read from /proc: how tests check that a server
 * they had launched (through a tune, a panel) is gone, by what it runs rather than by a pid they
 * were never told.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** "pid: argv" of every other process whose argv `matches`. */
export function processesWhere(matches: (argv: string[]) => boolean): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .flatMap((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
        return matches(argv) ? [`${pid}: ${argv.join(' ')}`] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}
