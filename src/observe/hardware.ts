/**
 * The accelerators of the machine the benchmark runs on (Remote-SSH puts it on the GPU box):
 * NVIDIA GPUs through `nvidia-smi --query-gpu ... --format=csv`, Huawei Ascend NPUs through
 * `npu-smi info`. Read once when a run starts (names, count, driver: the `hardware`/`gpus`
 * labels) and then every interval as `gpu` series. A missing or failing tool never fails a run:
 * it is said once and the run goes on without it.
 */
import { execFile } from 'node:child_process';
import { GPU_SERIES, type Hardware, type MetricSeries } from '../format/server-metrics';
import { fillPlaceholders, GPU_METRICS_TEXT } from '../format/warning-text';

/** What one reading of one device says; null where the tool did not know (`[N/A]`, `[Not Supported]`). */
export interface GpuReading {
  index: number;
  name: string;
  driver: string | null;
  memoryTotalMiB: number | null;
  memoryUsedMiB: number | null;
  utilizationPercent: number | null;
  powerWatts: number | null;
}

/** The fields asked of nvidia-smi, in order. */
export const NVIDIA_QUERY_FIELDS = ['index', 'name', 'driver_version', 'memory.total', 'memory.used', 'utilization.gpu', 'power.draw'] as const;
const NVIDIA_ARGS = [`--query-gpu=${NVIDIA_QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'];

/** `81920 MiB` -> 81920, `[N/A]` -> null. */
function numberOf(cell: string | undefined): number | null {
  if (cell === undefined) return null;
  const match = /^\s*(-?\d+(?:\.\d+)?)(?:\s*[A-Za-z%]+)?\s*$/.exec(cell);
  return match ? Number(match[1]) : null;
}

const textOf = (cell: string | undefined): string | null => {
  const text = cell?.trim() ?? '';
  return text === '' || /^\[.*\]$/.test(text) || text === 'N/A' ? null : text;
};

/**
 * Rows of `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]`. With a header line its
 * column names are used (units in brackets dropped), so any field order reads; without one,
 * `fields` names the columns. Fields not asked for are null; lines that are not rows are skipped.
 */
export function parseNvidiaSmiCsv(text: string, fields: readonly string[] = NVIDIA_QUERY_FIELDS): GpuReading[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  let columns = [...fields];
  if (lines[0] !== undefined && /(^|,\s*)(index|name|driver_version|memory\.\w+)(\s*\[|,|$)/.test(lines[0]) && !/^\s*\d/.test(lines[0])) {
    columns = (lines.shift() as string).split(',').map((c) => c.trim().replace(/\s*\[.*\]$/, ''));
  }
  const at = (cells: string[], field: string): string | undefined => {
    const i = columns.indexOf(field);
    return i < 0 ? undefined : cells[i];
  };
  const readings: GpuReading[] = [];
  for (const [row, line] of lines.entries()) {
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== columns.length) continue;
    const index = at(cells, 'index') === undefined ? row : numberOf(at(cells, 'index'));
    const name = textOf(at(cells, 'name'));
    if (index === null || name === null) continue;
    readings.push({
      index,
      name,
      driver: textOf(at(cells, 'driver_version')),
      memoryTotalMiB: numberOf(at(cells, 'memory.total')),
      memoryUsedMiB: numberOf(at(cells, 'memory.used')),
      utilizationPercent: numberOf(at(cells, 'utilization.gpu')),
      powerWatts: numberOf(at(cells, 'power.draw')),
    });
  }
  return readings;
}

/**
 * The devices of `npu-smi info`: each NPU is two table rows, `| NPU Name | Health | Power(W)
 * Temp(C) Hugepages |` then `| Chip | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB) |`.
 * Memory is the HBM's where the chip has HBM (the 910 series), else its DDR's. The driver is the
 * version in the table's title line.
 */
export function parseNpuSmiInfo(text: string): GpuReading[] {
  const driver = /npu-smi\s+\S+\s+Version:\s*(\S+)/.exec(text)?.[1] ?? null;
  const rows = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.startsWith('|') && !/^\|\s*(NPU|Chip)\s/.test(line))
    .map((line) =>
      line
        .slice(1, line.endsWith('|') ? -1 : undefined)
        .split('|')
        .map((c) => c.trim()),
    );
  const readings: GpuReading[] = [];
  for (let i = 0; i + 1 < rows.length; i++) {
    const head = rows[i]!;
    const chip = rows[i + 1]!;
    const device = /^(\d+)\s+(\S.*)$/.exec(head[0] ?? '');
    if (!device || head.length < 3 || chip.length < 3 || !/^\d+$/.test(chip[0] ?? '') || !/^[0-9A-Fa-f]{4}:/.test(chip[1] ?? '')) continue;
    const power = numberOf(head[2]?.split(/\s+/)[0]);
    const usage = [...(chip[2] ?? '').matchAll(/(\d+)\s*\/\s*(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
    const hbm = usage[1];
    const memory = hbm !== undefined && hbm[1] > 0 ? hbm : usage[0];
    readings.push({
      index: Number(device[1]),
      name: `Ascend ${device[2]!.trim()}`,
      driver,
      memoryTotalMiB: memory?.[1] ?? null,
      memoryUsedMiB: memory?.[0] ?? null,
      utilizationPercent: numberOf((chip[2] ?? '').split(/\s+/)[0]),
      powerWatts: power,
    });
    i++;
  }
  return readings;
}

type Tool = Hardware['tool'];

const TOOLS: { tool: Tool; args: string[]; parse: (text: string) => GpuReading[] }[] = [
  { tool: 'nvidia-smi', args: NVIDIA_ARGS, parse: (text) => parseNvidiaSmiCsv(text) },
  { tool: 'npu-smi', args: ['info'], parse: parseNpuSmiInfo },
];

/** Runs a tool (argument array, no shell); the output, or why it could not (`missing` when it is not on the PATH). */
function runTool(tool: Tool, args: string[], timeoutMs: number): Promise<{ ok: true; text: string } | { ok: false; missing: boolean; reason: string }> {
  return new Promise((resolve) => {
    execFile(tool, args, { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, windowsHide: true }, (error, stdout, stderr) => {
      if (!error) return resolve({ ok: true, text: stdout });
      const code = (error as NodeJS.ErrnoException).code;
      const missing = code === 'ENOENT';
      const detail = String(stderr).trim().split('\n')[0] || error.message;
      resolve({ ok: false, missing, reason: error.killed ? `no answer within ${timeoutMs} ms` : detail });
    });
  });
}

/** How long the first look may take: nvidia-smi takes about a second to start on a cold driver. */
const DETECT_TIMEOUT_MS = 5000;

export interface DetectedHardware {
  hardware: Hardware;
  readings: GpuReading[];
}

/**
 * The accelerators on this machine: nvidia-smi's, else npu-smi's; null when neither tool is on
 * the PATH. A tool that is there but fails is reported through `warn` (once) and skipped.
 */
export async function detectHardware(warn: (message: string) => void): Promise<DetectedHardware | null> {
  for (const { tool, args, parse } of TOOLS) {
    const outcome = await runTool(tool, args, DETECT_TIMEOUT_MS);
    if (!outcome.ok) {
      if (!outcome.missing) warn(fillPlaceholders(GPU_METRICS_TEXT.failed, [tool, outcome.reason]));
      continue;
    }
    const readings = parse(outcome.text);
    if (readings.length === 0) {
      warn(fillPlaceholders(GPU_METRICS_TEXT.noDevice, [tool]));
      continue;
    }
    return {
      hardware: {
        tool,
        driver: readings[0]?.driver ?? null,
        gpus: readings.map(({ index, name, memoryTotalMiB }) => ({ index, name, memoryTotalMiB })),
      },
      readings,
    };
  }
  return null;
}

/** `2x NVIDIA A100-SXM4-80GB` (or `1x L4, 1x T4` for a mixed machine) and the device count, for the run's labels. */
export function hardwareLabels(hardware: Hardware): { gpu: string; gpus: string } {
  const counts = new Map<string, number>();
  for (const gpu of hardware.gpus) counts.set(gpu.name, (counts.get(gpu.name) ?? 0) + 1);
  return { gpu: [...counts].map(([name, n]) => `${n}x ${name}`).join(', '), gpus: String(hardware.gpus.length) };
}

/**
 * GPU memory used right now, per device, in MiB: for the tuner (issue 12), which watches memory
 * while it searches. Null when no supported tool answers. Never throws.
 */
export async function readGpuMemoryUsed(timeoutMs = DETECT_TIMEOUT_MS): Promise<{ tool: Tool; gpus: { index: number; name: string; usedMiB: number | null; totalMiB: number | null }[] } | null> {
  for (const { tool, args, parse } of TOOLS) {
    const outcome = await runTool(tool, args, timeoutMs);
    if (!outcome.ok) continue;
    const readings = parse(outcome.text);
    if (readings.length > 0) return { tool, gpus: readings.map((r) => ({ index: r.index, name: r.name, usedMiB: r.memoryUsedMiB, totalMiB: r.memoryTotalMiB })) };
  }
  return null;
}

/** A process using a GPU, as `nvidia-smi --query-compute-apps` lists it; `usedMiB` null where the tool does not know (`[N/A]`). */
export interface ComputeProcess {
  pid: number;
  usedMiB: number | null;
}

export const NVIDIA_COMPUTE_APPS_ARGS = ['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits'];

/** Rows of `nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits` (a header line, if any, is skipped). */
export function parseComputeApps(text: string): ComputeProcess[] {
  return text.split(/\r?\n/).flatMap((line) => {
    const [pid, used] = line.split(',').map((cell) => cell.trim());
    return pid !== undefined && /^\d+$/.test(pid) ? [{ pid: Number(pid), usedMiB: numberOf(used) }] : [];
  });
}

/**
 * The processes using NVIDIA GPUs now, with their memory (summed by the caller over the processes
 * it owns): null without nvidia-smi, or when it fails. Never throws.
 */
export async function readComputeProcesses(timeoutMs = DETECT_TIMEOUT_MS): Promise<ComputeProcess[] | null> {
  const outcome = await runTool('nvidia-smi', NVIDIA_COMPUTE_APPS_ARGS, timeoutMs);
  return outcome.ok ? parseComputeApps(outcome.text) : null;
}

/** The `gpu` series of one reading, at `tMs` on the run's clock. */
export function gpuSamples(readings: readonly GpuReading[], tMs: number): MetricSeries[] {
  const series: MetricSeries[] = [];
  for (const r of readings) {
    const labels = { gpu: String(r.index) };
    const add = (name: string, value: number | null): void => {
      if (value !== null) series.push({ source: 'gpu', name, kind: 'gauge', labels, samples: [[tMs, value]] });
    };
    add(GPU_SERIES.memoryUsedMiB, r.memoryUsedMiB);
    add(GPU_SERIES.utilizationPercent, r.utilizationPercent);
    add(GPU_SERIES.powerWatts, r.powerWatts);
  }
  return series;
}

/** Reads the detected tool every interval (never two at once) until stopped; failures are said once. */
export class GpuSampler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private warned = false;

  constructor(
    private readonly tool: Tool,
    private readonly intervalMs: number,
    private readonly now: () => number,
    private readonly onSamples: (series: MetricSeries[]) => void,
    private readonly warn: (message: string) => void,
  ) {}

  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.running = this.sampleOnce().finally(() => {
        this.running = null;
        if (!this.stopped) this.timer = setTimeout(tick, this.intervalMs);
      });
    };
    this.timer = setTimeout(tick, this.intervalMs);
  }

  private async sampleOnce(): Promise<void> {
    const entry = TOOLS.find((t) => t.tool === this.tool)!;
    const sentAt = this.now();
    const outcome = await runTool(entry.tool, entry.args, Math.max(200, Math.floor(this.intervalMs * 0.8)));
    if (this.stopped) return;
    if (!outcome.ok) {
      if (!this.warned) this.warn(fillPlaceholders(GPU_METRICS_TEXT.failedDuring, [this.tool, outcome.reason]));
      this.warned = true;
      return;
    }
    const series = gpuSamples(entry.parse(outcome.text), (sentAt + this.now()) / 2);
    if (series.length > 0) this.onSamples(series);
  }

  /** Stops sampling; a reading under way is waited for (bounded by its timeout) and dropped. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
