/**
 * The GPU memory a trial's server holds, read while it is still up (its weights and KV cache
 * allocated): the memory nvidia-smi lists for the compute processes of the server's own processes
 * (its process tree, or a container's processes as docker top lists them), not the whole
 * machine's, which would count every other process on the GPUs. When none of the listed processes
 * is the server's (the tuner in a container with its own pid namespace, a server whose processes
 * cannot be found), the figure is null and the note says why; with npu-smi, which lists no
 * processes here, the devices' total is given and the note says it is every process's.
 */
import { readComputeProcesses, readGpuMemoryUsed } from '../observe/hardware';

/** Memory a device shows in use with no process on it (the driver's own): below this, no compute process means none on the GPUs. */
const UNATTRIBUTED_MIB = 1024;

export interface TrialGpuMemory {
  usedMiB: number | null;
  /** Why `usedMiB` is null, or what it covers beyond the server; null when it is the server's alone. */
  note: string | null;
}

/** `pids`: the server's processes (null when they could not be found). */
export async function trialGpuMemory(pids: readonly number[] | null): Promise<TrialGpuMemory> {
  const processes = await readComputeProcesses();
  if (processes === null) {
    const devices = await readGpuMemoryUsed();
    const known = (devices?.gpus ?? []).flatMap((gpu) => (gpu.usedMiB === null ? [] : [gpu.usedMiB]));
    if (!devices || known.length === 0) return { usedMiB: null, note: null };
    return { usedMiB: known.reduce((sum, used) => sum + used, 0), note: `${devices.tool} lists no processes: this is the memory in use on the devices by every process, not the server's alone.` };
  }
  if (pids === null) return { usedMiB: null, note: 'The server\'s processes could not be found (no /proc here): its GPU memory cannot be told apart from other processes\'.' };
  const own = new Set(pids);
  const ours = processes.filter((p) => own.has(p.pid));
  if (ours.length === 0) {
    if (processes.length === 0) {
      // No compute process at all: a server on the CPU, or processes nvidia-smi cannot name from here.
      const devices = await readGpuMemoryUsed();
      const used = (devices?.gpus ?? []).reduce((sum, gpu) => sum + (gpu.usedMiB ?? 0), 0);
      if (used <= UNATTRIBUTED_MIB) return { usedMiB: 0, note: null };
      return { usedMiB: null, note: `nvidia-smi lists no compute process, yet the devices hold ${used} MiB: the server's GPU memory cannot be told apart (a container or another pid namespace hides its processes).` };
    }
    const n = processes.length;
    return {
      usedMiB: null,
      note: `nvidia-smi lists ${n} compute process${n === 1 ? '' : 'es'}, none of them the trial's server's (processes ${pids.slice(0, 8).join(', ')}${pids.length > 8 ? ', ...' : ''}): its GPU memory cannot be told apart (a container or another pid namespace, whose processes nvidia-smi names by other pids).`,
    };
  }
  if (ours.some((p) => p.usedMiB === null)) return { usedMiB: null, note: 'nvidia-smi does not give the server\'s processes\' memory ([N/A]).' };
  return { usedMiB: ours.reduce((sum, p) => sum + (p.usedMiB as number), 0), note: null };
}
