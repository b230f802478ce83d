/**
 * Processes as Linux's /proc shows them: a process's parent, process group, state, start time and
 * command line; the processes a launched server consists of (its process group and every
 * descendant, which a daemonising child escapes the group as); and which processes hold a
 * listening TCP port. The tuner tells the server it launched from a stranger that took its pid or
 * its port with these. Where /proc is not there (macOS, Windows) the answers are null: unknown,
 * never a guess.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcEntry {
  pid: number;
  ppid: number;
  /** The process group. */
  pgid: number;
  /** One letter: R running, S sleeping, Z zombie (ended, not yet reaped), ... */
  state: string;
  /** Clock ticks after boot when it started (field 22 of /proc/PID/stat): with the pid, it names one process for good. */
  startTime: string;
}

/** /proc/PID/stat read, or null when there is no such process (or no /proc). */
export function readProcEntry(pid: number): ProcEntry | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, pgid] = fields;
  const startTime = fields[19];
  if (state === undefined || ppid === undefined || pgid === undefined || startTime === undefined) return null;
  return { pid, ppid: Number(ppid), pgid: Number(pgid), state, startTime };
}

/** A process's command line, its arguments as it was given them; null when it cannot be read. */
export function readCommandLine(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return text === '' ? null : text.replace(/\0$/, '').split('\0');
  } catch {
    return null;
  }
}

/** Every process of this machine (of this pid namespace), or null without /proc. */
export function allProcesses(): ProcEntry[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  return names.filter((name) => /^\d+$/.test(name)).flatMap((name) => readProcEntry(Number(name)) ?? []);
}

/**
 * The processes of a launched server that still live: its process group (led by `leader`) and
 * every descendant of its members, including those that left the group (`setsid`, a daemon's
 * double fork keeps the parent chain only until its parent exits). Zombies are left out. Null
 * without /proc.
 */
export function processTree(leader: number): ProcEntry[] | null {
  const processes = allProcesses();
  if (!processes) return null;
  const inTree = new Set(processes.filter((p) => p.pgid === leader || p.pid === leader).map((p) => p.pid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of processes) {
      if (!inTree.has(p.pid) && inTree.has(p.ppid)) {
        inTree.add(p.pid);
        grew = true;
      }
    }
  }
  return processes.filter((p) => inTree.has(p.pid) && p.state !== 'Z');
}

/** The inodes of the sockets listening on TCP `port` (any address, IPv4 and IPv6); null without /proc/net/tcp. */
export function listeningInodes(port: number): Set<string> | null {
  const inodes = new Set<string>();
  let readAny = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    readAny = true;
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const cells = line.trim().split(/\s+/);
      const local = cells[1];
      if (local === undefined || cells[3] !== '0A') continue; // 0A: LISTEN
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port && cells[9] !== undefined) inodes.add(cells[9]);
    }
  }
  return readAny ? inodes : null;
}

/** The processes among `pids` with one of the sockets `inodes` open (a socket is shared by a fork's parent and child). */
export function holdersOf(inodes: ReadonlySet<string>, pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return false;
    }
    return fds.some((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return target.startsWith('socket:[') && inodes.has(target.slice(8, -1));
      } catch {
        return false;
      }
    });
  });
}

/**
 * Who listens on TCP `port`: the processes holding its listening socket (those this process may
 * read the file descriptors of; another user's are not seen). Null without /proc; an empty list
 * when nobody listens, or only processes we cannot see.
 */
export function portListeners(port: number): number[] | null {
  const inodes = listeningInodes(port);
  if (inodes === null) return null;
  if (inodes.size === 0) return [];
  return holdersOf(inodes, (allProcesses() ?? []).map((p) => p.pid));
}

/** "4242 (`vllm serve m --port 8000`)": a process as a message names it. */
export function describeProcess(pid: number): string {
  const argv = readCommandLine(pid);
  return argv ? `${pid} (\`${argv.join(' ').slice(0, 120)}\`)` : String(pid);
}
