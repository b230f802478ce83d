// The nvidia-smi and npu-smi parsers on published outputs (test/fixtures/hardware, sources in
// SOURCE.md), and detection with stand-in tools on a temporary PATH: this machine has neither.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectHardware, hardwareLabels, parseNpuSmiInfo, parseNvidiaSmiCsv, readGpuMemoryUsed } from '../../src/observe/hardware';
import { repoRoot } from '../helpers/limited-child';
import { trialGpuMemory } from '../../src/tune/gpu';

const fixture = (name: string): string => readFileSync(join(repoRoot, 'test', 'fixtures', 'hardware', name), 'utf8');

test('nvidia-smi with a header and units: eight A100s, memory and utilisation read, fields not asked for null', () => {
  const gpus = parseNvidiaSmiCsv(fixture('nvidia-smi-a100x8-units.csv'));
  assert.equal(gpus.length, 8);
  assert.deepEqual(gpus[0], { index: 0, name: 'NVIDIA A100-SXM4-80GB', driver: null, memoryTotalMiB: 81920, memoryUsedMiB: 66147, utilizationPercent: 99, powerWatts: null });
  assert.equal(gpus[7]?.memoryUsedMiB, 6247);
  assert.deepEqual(hardwareLabels({ tool: 'nvidia-smi', driver: null, gpus: gpus.map(({ index, name, memoryTotalMiB }) => ({ index, name, memoryTotalMiB })) }), { gpu: '8x NVIDIA A100-SXM4-80GB', gpus: '8' });
});

test('nvidia-smi headers name the columns in any order; extra columns are ignored', () => {
  const l40s = parseNvidiaSmiCsv(fixture('nvidia-smi-l40s-x2.csv'));
  assert.deepEqual(
    l40s.map((g) => [g.index, g.name, g.driver, g.memoryTotalMiB]),
    [
      [0, 'NVIDIA L40S', '575.51.03', 46068],
      [1, 'NVIDIA L40S', '575.51.03', 46068],
    ],
  );
  const [gtx] = parseNvidiaSmiCsv(fixture('nvidia-smi-gtx1050ti.csv'));
  assert.equal(gtx?.name, 'NVIDIA GeForce GTX 1050 Ti');
  assert.equal(gtx?.memoryUsedMiB, 6);
  assert.equal(gtx?.driver, '535.129.03');
});

test('nvidia-smi noheader,nounits reads by the fields asked; a mixed machine labels each kind', () => {
  const gpus = parseNvidiaSmiCsv(fixture('nvidia-smi-a100-display-noheader-nounits.csv'), ['index', 'name', 'memory.used', 'utilization.gpu']);
  assert.equal(gpus.length, 5);
  assert.deepEqual(gpus[4], { index: 4, name: 'NVIDIA A100-SXM4-80GB', driver: null, memoryTotalMiB: null, memoryUsedMiB: 4066, utilizationPercent: 91, powerWatts: null });
  assert.equal(hardwareLabels({ tool: 'nvidia-smi', driver: null, gpus: gpus.map(({ index, name, memoryTotalMiB }) => ({ index, name, memoryTotalMiB })) }).gpu, '4x NVIDIA A100-SXM4-80GB, 1x NVIDIA DGX Display');
});

test('nvidia-smi [N/A] and [Not Supported] become null, not zero', () => {
  const [gpu] = parseNvidiaSmiCsv('0, Tesla T4, 535.54.03, 15360, 0, [N/A], [Not Supported]\n');
  assert.equal(gpu?.utilizationPercent, null);
  assert.equal(gpu?.powerWatts, null);
  assert.equal(gpu?.memoryUsedMiB, 0);
});

test('npu-smi info: each NPU from its two rows, HBM memory, power, AICore, the driver from the title', () => {
  const [one] = parseNpuSmiInfo(fixture('npu-smi-910b3-23.0.1.txt'));
  assert.deepEqual(one, { index: 4, name: 'Ascend 910B3', driver: '23.0.1', memoryTotalMiB: 65536, memoryUsedMiB: 3161, utilizationPercent: 0, powerWatts: 93.6 });
  const two = parseNpuSmiInfo(fixture('npu-smi-910b2c-25.0.rc1.2.txt'));
  assert.deepEqual(
    two.map((n) => [n.index, n.name, n.memoryUsedMiB, n.utilizationPercent, n.powerWatts, n.driver]),
    [
      [0, 'Ascend 910B2C', 35738, 6, 118.6, '25.0.rc1.2'],
      [1, 'Ascend 910B2C', 35761, 11, 143.2, '25.0.rc1.2'],
    ],
  );
});

/** A folder with stand-in tools that print a fixture (or fail), put first on the PATH for `body`. */
async function withTools(tools: Record<string, string>, body: () => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-tools-'));
  const path = process.env.PATH;
  try {
    for (const [name, script] of Object.entries(tools)) {
      writeFileSync(join(dir, name), `#!/bin/sh\n${script}\n`);
      chmodSync(join(dir, name), 0o755);
    }
    // Only the stand-ins and the shell's own folder: a real nvidia-smi elsewhere must not answer.
    process.env.PATH = `${dir}:/bin:/usr/bin`;
    await body();
  } finally {
    process.env.PATH = path;
    rmSync(dir, { recursive: true, force: true });
  }
}

test('detection: nvidia-smi when present (its query form), npu-smi otherwise, nothing and no warning when neither is', async () => {
  const csv = join(repoRoot, 'test', 'fixtures', 'hardware', 'nvidia-smi-a100x8-units.csv');
  const warnings: string[] = [];
  await withTools({ 'nvidia-smi': `case "$1" in --query-gpu=index,name,driver_version,memory.total,memory.used,utilization.gpu,power.draw) printf '0, NVIDIA H100 80GB HBM3, 550.54.15, 81559, 1024, 3, 71.5\\n1, NVIDIA H100 80GB HBM3, 550.54.15, 81559, 2048, 5, [N/A]\\n';; *) cat '${csv}';; esac` }, async () => {
    const found = await detectHardware((m) => warnings.push(m));
    assert.equal(found?.hardware.tool, 'nvidia-smi');
    assert.equal(found?.hardware.driver, '550.54.15');
    assert.deepEqual(found?.readings[1], { index: 1, name: 'NVIDIA H100 80GB HBM3', driver: '550.54.15', memoryTotalMiB: 81559, memoryUsedMiB: 2048, utilizationPercent: 5, powerWatts: null });
    assert.deepEqual((await readGpuMemoryUsed())?.gpus.map((g) => g.usedMiB), [1024, 2048]);
  });
  const npu = join(repoRoot, 'test', 'fixtures', 'hardware', 'npu-smi-910b2c-25.0.rc1.2.txt');
  await withTools({ 'npu-smi': `[ "$1" = info ] && cat '${npu}'` }, async () => {
    const found = await detectHardware((m) => warnings.push(m));
    assert.equal(found?.hardware.tool, 'npu-smi');
    assert.deepEqual(found && hardwareLabels(found.hardware), { gpu: '2x Ascend 910B2C', gpus: '2' });
  });
  await withTools({}, async () => {
    assert.equal(await detectHardware((m) => warnings.push(m)), null);
    assert.equal(await readGpuMemoryUsed(), null);
    assert.deepEqual(await trialGpuMemory([process.pid]), { usedMiB: null, note: null });
  });
  assert.deepEqual(warnings, []);
});

test('a tool that is there but fails is said once, and the other is tried', async () => {
  const warnings: string[] = [];
  await withTools({ 'nvidia-smi': 'echo "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver." >&2; exit 9' }, async () => {
    assert.equal(await detectHardware((m) => warnings.push(m)), null);
  });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? '', /nvidia-smi is on the PATH but failed \(NVIDIA-SMI has failed because it could not communicate/);
});
