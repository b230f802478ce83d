/**
 * Every request in flight holds a socket, and a socket is a file descriptor. Past the process's
 * limit (`ulimit -n`) connections fail at once with EMFILE, on the client, without ever reaching
 * the server: such a run measures nothing. The limit is checked before a run starts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { BadInputError } from '../format/errors';

/** Descriptors beyond the connections: the result file, a retry's fresh socket, the worker's pipes, a tokenizer read. */
const HEADROOM = 64;

export interface FileDescriptorLimit {
  soft: number;
  hard: number;
}

/** `Max open files` of this process from /proc (Linux); null where that cannot be read. */
export function fileDescriptorLimit(limitsText?: string): FileDescriptorLimit | null {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return null;
    }
  }
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!match) return null;
  const value = (field: string | undefined): number => (field === 'unlimited' ? Infinity : Number(field));
  const soft = value(match[1]);
  const hard = value(match[2]);
  return Number.isNaN(soft) || Number.isNaN(hard) ? null : { soft, hard };
}

function openDescriptors(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}

/**
 * Refuses, before anything is sent or written, a run whose most connections at once cannot be
 * opened under this process's descriptor limit. Node.js cannot raise the limit itself, so the
 * message says how to.
 */
export function checkFileDescriptors(connections: number, limit = fileDescriptorLimit()): void {
  if (limit === null || !Number.isFinite(limit.soft)) return;
  const needed = openDescriptors() + connections + HEADROOM;
  if (needed <= limit.soft) return;
  const suggestion = Math.max(needed, 1024);
  const raise =
    suggestion <= limit.hard
      ? `raise it first with \`ulimit -n ${suggestion}\` (the hard limit is ${Number.isFinite(limit.hard) ? limit.hard : 'unlimited'})`
      : `the hard limit is ${limit.hard}, so an administrator must raise it (limits.conf, LimitNOFILE)`;
  throw new BadInputError(
    `${connections} requests in flight need about ${needed} open files, but this process may open only ${limit.soft} (ulimit -n): ${raise}, or lower the concurrency.`,
  );
}
