import { readFileSync } from 'node:fs';

/**
 * A process's resident set in KiB from /proc (Linux): VmHWM is its peak so far (which takes in its
 * worker threads), VmRSS its size now. Null once the process has gone, or where /proc has no such line.
 */
export function residentKiB(pid: number | 'self', field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
