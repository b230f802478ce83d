/**
 * Whether a process that a file names (the writer of a result file, the server a tuner launched)
 * still runs. A pid means something only on the host that gave it: a file read on another machine
 * (a shared folder, a copied file) may name a pid that, here, is some other process. So a process
 * is asked about only on its own host; one recorded elsewhere, or with no host, is not known to run.
 * And a pid is reused once its process ends: where the record has the process's start time (Linux),
 * a process with that pid that started at another time is another process.
 */
import { hostname } from 'node:os';
import { readProcEntry } from './proc';

/** A process as a file records it. */
export interface RecordedProcess {
  pid: number;
  host: string;
  /** Its start time as /proc/PID/stat gives it, where known: tells it from a later process given the same pid. */
  startTime?: string;
}

/** This process's record with its start time (where /proc tells it), or with `pid`, that of another process of this host. */
export function identifiedOnThisHost(pid: number = process.pid): RecordedProcess {
  const startTime = readProcEntry(pid)?.startTime;
  return { pid, host: hostname(), ...(startTime !== undefined ? { startTime } : {}) };
}

/** This process's record, or (with `pid`) that of another process started on this host. */
export function onThisHost(pid: number = process.pid): RecordedProcess {
  return { pid, host: hostname() };
}

/**
 * Whether the process still runs on this host, or with `group`, whether any process of the group
 * it leads does. False for a process recorded on another host or not recorded at all.
 */
export function isAlive(recorded: RecordedProcess | undefined, options: { group?: boolean } = {}): boolean {
  if (!recorded || recorded.host !== hostname()) return false;
  if (recorded.startTime !== undefined && !options.group) {
    const now = readProcEntry(recorded.pid);
    if (now && now.startTime !== recorded.startTime) return false;
  }
  try {
    process.kill(options.group ? -recorded.pid : recorded.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
