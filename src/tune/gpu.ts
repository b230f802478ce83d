import { readGpuMemoryUsed } from '../observe/hardware';

/**
 * GPU memory in use across the machine's devices, read while the trial's server is still up (its
 * weights and KV cache allocated): null when nvidia-smi / npu-smi are absent or report no figure.
 */
export async function readGpuMemoryUsedMiB(): Promise<number | null> {
  const reading = await readGpuMemoryUsed();
  const known = (reading?.gpus ?? []).flatMap((gpu) => (gpu.usedMiB === null ? [] : [gpu.usedMiB]));
  return known.length === 0 ? null : known.reduce((sum, used) => sum + used, 0);
}
