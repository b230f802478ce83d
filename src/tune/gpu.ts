/**
 * GPU memory in use, recorded with each trial. The seam where an nvidia-smi reader plugs in
 * (issue 13 brings one); until then no figure is known and trials record null.
 */
export async function readGpuMemoryUsedMiB(): Promise<number | null> {
  return null;
}
