// The one reader of result files (src/results/read-result.ts) on a file written by a real `llmbench
// run` process: while that process runs, its file reads as running; after `kill -9` it reads as
// partial (interrupted) with the unfinished step summarised from its records, and the report says
// so instead of passing it off as complete or dropping the step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readResultText } from '../../src/results/read-result';
import { INTERRUPTED_REASON } from '../../src/results/writer';
import { loadRuns } from '../../src/report/load';
import { buildReportModel } from '../../src/views/report';

const repoRoot = process.env.LLMBENCH_ROOT ?? resolve(__dirname, '../../..');
const cliPath = join(repoRoot, 'dist', 'cli.js');

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a running file reads as running while its writer lives, and as partial after kill -9; the report flags it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-read-'));
  const file = join(dir, 'killed.llmbench.json');
  // Long enough (2,000 requests one at a time) that it is surely still running when killed.
  const child = spawn(process.execPath, [cliPath, 'run', '--sim', 'tiny', '--requests', '2000', '--output-tokens', '16', '--input-tokens', '16', '--out', file], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const live = await waitFor('some requests in the file', () => {
      if (!existsSync(file)) return undefined;
      const read = readResultText(readFileSync(file, 'utf8'));
      return read.ok && read.value.document.steps[0] && read.value.document.steps[0].requests.length >= 5 ? read.value : undefined;
    });
    assert.equal(live.document.status, 'running', 'the writer is alive');
    assert.deepEqual(live.unfinishedSteps, [0]);
    assert.ok(live.document.steps[0]!.summary, 'an unfinished step gets a summary from its records');

    child.kill('SIGKILL');
    await exited;
    const read = readResultText(readFileSync(file, 'utf8'));
    assert.ok(read.ok, read.ok ? '' : read.error);
    const { document, unfinishedSteps } = read.value;
    assert.equal(document.status, 'partial');
    assert.equal(document.statusReason, INTERRUPTED_REASON);
    assert.deepEqual(unfinishedSteps, [0]);
    const recorded = document.steps[0]!.requests.length;
    assert.equal(document.steps[0]!.summary!.requests.total, recorded, 'the summary covers every recorded request');

    const { runs, problems } = await loadRuns([file]);
    assert.deepEqual(problems, []);
    const model = buildReportModel(runs);
    assert.equal(model.runs[0]!.status, `partial (1 step unfinished): ${INTERRUPTED_REASON}`);
    assert.ok(model.charts.some((chart) => chart.curves.some((curve) => curve.points.length > 0)), 'the unfinished step is drawn, not dropped');
  } finally {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an empty file is called empty, not invalid JSON', () => {
  const read = readResultText('  \n');
  assert.ok(!read.ok);
  assert.match(read.error, /^The file is empty/);
});
