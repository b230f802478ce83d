// A repeated step reads as one statistic wherever it is summed up (issue 21, items 8 to 10): the
// report's ranking row (view, HTML, Markdown) gives every figure as the mean across repeats and
// says so; the command line's final table and the Markdown export print one row per step, mean ±
// half-width (each repeat with --per-repeat); compare pairs steps by name and repeat in both its
// tables, and sets a repeated step's interval against a single run's value. Runs of the simulator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunConfigSchema } from '../../src/format/config';
import { ResultDocumentSchema, type ResultDocument, type Step } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { startSimServer, type SimServer } from '../../src/sim/index';
import { formatConcurrencyColumnsMarkdown, formatMarkdownTable, formatRankingMarkdown, formatTerminalTable } from '../../src/report/tables';
import { renderHtmlReport } from '../../src/report/html';
import { buildReportModel, rankingTable } from '../../src/views/report';
import { buildCompareView, pairStepsByRepeat } from '../../src/views/compare';
import { meanInterval } from '../../src/views/repeats';
import { repoRoot } from '../helpers/limited-child';
import { withoutWarningMark } from '../helpers/result-documents';

async function simRun(sim: SimServer, repeats: number | undefined, seed: number): Promise<ResultDocument> {
  return ResultDocumentSchema.parse(
    await runBenchmark(
      RunConfigSchema.parse({
        endpoint: { baseUrl: sim.baseUrl, model: sim.model },
        workload: { kind: 'synthetic', inputTokens: { mean: 64, rangeRatio: 0.5 }, outputTokens: { mean: 24, rangeRatio: 0.5 } },
        request: { extraBody: { ignore_eos: true } },
        profile: { kind: 'concurrency', levels: [1, 4] },
        limits: { requests: 12 },
        serverMetrics: { url: 'off' },
        seed,
        ...(repeats ? { repeat: { count: repeats } } : {}),
      }),
      {},
    ),
  );
}

const stepsNamed = (doc: ResultDocument, name: string): Step[] => doc.steps.filter((s) => s.name === name);
const meanOf = (values: (number | null | undefined)[]): number => meanInterval(values.filter((v): v is number => typeof v === 'number'))?.mean ?? NaN;
const close = (a: number | null | undefined, b: number) => typeof a === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

test('the ranking row of a repeated run: every figure the mean across the step\'s repeats, and the row says so', async (t) => {
  const sim = await startSimServer({ preset: 'tiny', seed: 4, hardware: { stepBaseMs: 3 } });
  t.after(() => sim.close());
  const doc = await simRun(sim, 3, 1);
  const model = buildReportModel([{ name: 'repeated', doc }], { stat: 'p90' });
  const row = model.ranking[0];
  const steps = stepsNamed(doc, 'concurrency@4');
  assert.equal(row?.step, 'concurrency@4');
  assert.equal(row?.repeats, 3);
  assert.ok(close(row?.requestsPerSecond, meanOf(steps.map((s) => s.summary?.requestsPerSecond))), `${row?.requestsPerSecond}`);
  assert.ok(close(row?.outputTokensPerSecond, meanOf(steps.map((s) => s.summary?.outputTokensPerSecond))));
  assert.ok(close(row?.ttftMs, meanOf(steps.map((s) => s.summary?.ttftMs?.p90))));
  assert.ok(close(row?.tpotMs, meanOf(steps.map((s) => s.summary?.tpotMs?.p90))));
  assert.ok(close(row?.latencyMs, meanOf(steps.map((s) => s.summary?.latencyMs?.p90))));
  assert.ok(close(row?.load, meanOf(steps.map((s) => s.summary?.achievedConcurrency))));
  // No figure of the row is one repeat's alone.
  for (const key of ['requestsPerSecond', 'latencyMs'] as const) {
    const own = steps.map((s) => (key === 'requestsPerSecond' ? s.summary?.requestsPerSecond : s.summary?.latencyMs?.p90));
    assert.ok(own.every((v) => !close(row?.[key], v ?? NaN)), `${key} is no single repeat's: ${row?.[key]} among ${own.join(', ')}`);
  }
  // The view's and the HTML's cells, and the Markdown ranking, say which statistic.
  const cells = rankingTable(model).rows[0] ?? [];
  assert.match(cells[2] ?? '', /^concurrency@4 \(mean of 3 repeats\)\n/);
  assert.match(cells[3] ?? '', / ± /);
  assert.ok(renderHtmlReport(model, [{ name: 'repeated', doc }], 'r').includes('concurrency@4 (mean of 3 repeats)'));
  const markdown = formatRankingMarkdown(model);
  assert.ok(markdown.includes('| concurrency@4 (mean of 3 repeats), '), markdown);
  assert.match(markdown, /every figure of its row .* is the mean of its repeats' values/);
});

test('the final table and the Markdown export: one row per step, mean ± half-width; --per-repeat gives each repeat', async (t) => {
  const sim = await startSimServer({ preset: 'tiny', seed: 5, hardware: { stepBaseMs: 3 } });
  t.after(() => sim.close());
  const doc = await simRun(sim, 3, 2);
  const steps = stepsNamed(doc, 'concurrency@1');
  const rps = meanInterval(steps.map((s) => s.summary?.requestsPerSecond as number));
  const rpsCell = `${rps?.mean.toFixed(2)} ± ${rps?.halfWidth?.toFixed(2)}`;
  const table = formatTerminalTable(doc);
  const rows = table.split('\n').filter((line) => line.startsWith('concurrency@'));
  assert.deepEqual(rows.map((line) => withoutWarningMark(line.split('|')[0]?.trim() ?? '')), ['concurrency@1 (3 repeats)', 'concurrency@4 (3 repeats)'], table);
  assert.ok(rows[0]?.includes(rpsCell), `${rows[0]} holds ${rpsCell}`);
  assert.match(table, /mean of its repeats' values ± the half-width of its 95% Student's t interval/);
  const perRepeat = formatTerminalTable(doc, { perRepeat: true }).split('\n').filter((line) => line.startsWith('concurrency@'));
  assert.deepEqual(perRepeat.map((line) => withoutWarningMark(line.split('|')[0]?.trim() ?? '')), ['concurrency@1 #1', 'concurrency@4 #1', 'concurrency@1 #2', 'concurrency@4 #2', 'concurrency@1 #3', 'concurrency@4 #3']);
  const markdown = formatMarkdownTable(doc);
  // A step with a warning (a loaded machine makes its client the limit) carries its mark beside its name.
  const unmarked = markdown.split('\n').map((line) => line.replace(/ \u26a0 \|/, ' |'));
  assert.ok(unmarked.some((line) => line.startsWith(`| concurrency@1 (3 repeats) | ${rpsCell} req/sec |`)), markdown);
  assert.equal(markdown.split('\n').filter((line) => line.startsWith('| concurrency@')).length, 2);
  assert.match(formatConcurrencyColumnsMarkdown(doc), /\| Concurrency \| 1 \(3 repeats\) \| 4 \(3 repeats\) \|/);

  // The command lines: `llmbench report --format md`, and its --per-repeat.
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-repeat-tables-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'run.llmbench.json'), JSON.stringify(doc));
  for (const [flags, rowsWanted] of [[[], 2], [['--per-repeat'], 6]] as const) {
    const out = join(dir, `report${flags.length}.md`);
    const cli = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'report', join(dir, 'run.llmbench.json'), '--format', 'md', '--out', out, ...flags], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    const text = readFileSync(out, 'utf8');
    const stepRows = text.split('\n').filter((line) => /^\| concurrency@\d/.test(line) && line.includes('req/sec |') && !line.includes('(mean of'));
    assert.equal(stepRows.length, rowsWanted, text);
  }
  // `llmbench run`'s final table, and its --per-repeat.
  for (const [flags, rowsWanted] of [[[], ['concurrency@1 (2 repeats)']], [['--per-repeat'], ['concurrency@1 #1', 'concurrency@1 #2']]] as const) {
    const cli = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'run', '--sim', 'tiny', '--concurrency', '1', '--requests', '3', '--repeat', '2', '--out', join(dir, `run${flags.length}.llmbench.json`), ...flags], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(cli.stdout.split('\n').filter((line) => line.startsWith('concurrency@')).map((line) => withoutWarningMark(line.split('|')[0]?.trim() ?? '')), rowsWanted, cli.stdout);
  }
});

test('compare pairs by name and repeat in both tables; a repeated step meets a single one as its interval against that value', async (t) => {
  const sim = await startSimServer({ preset: 'tiny', seed: 6, hardware: { stepBaseMs: 3 } });
  t.after(() => sim.close());
  const repeated = await simRun(sim, 3, 3);
  const single = await simRun(sim, undefined, 4);
  const read = (document: ResultDocument) => ({ document, unfinishedSteps: [] });
  // Only A repeated: each of A's repeats meets B's step of its name.
  assert.deepEqual(pairStepsByRepeat(repeated.steps, single.steps), [[0, 0], [1, 1], [2, 0], [3, 1], [4, 0], [5, 1]]);
  assert.deepEqual(pairStepsByRepeat(repeated.steps, repeated.steps), [0, 1, 2, 3, 4, 5].map((i) => [i, i]));

  const view = buildCompareView(read(repeated), read(single), 'a.llmbench.json', 'b.llmbench.json');
  assert.deepEqual(view.deltas.map((d) => [d.stepA, d.stepB]), [
    ['concurrency@1 (mean of 3 repeats)', 'concurrency@1'],
    ['concurrency@4 (mean of 3 repeats)', 'concurrency@4'],
  ]);
  const rpsCell = view.deltas[0]?.cells.find((c) => c.metric === 'requestsPerSecond');
  const repeats = stepsNamed(repeated, 'concurrency@1').map((s) => s.summary?.requestsPerSecond as number);
  const across = meanInterval(repeats);
  assert.ok(close(rpsCell?.a, across?.mean ?? NaN), 'A is the mean across its repeats, not one repeat');
  assert.equal(rpsCell?.b, stepsNamed(single, 'concurrency@1')[0]?.summary?.requestsPerSecond);
  assert.equal(rpsCell?.rule, 'repeat-interval-single');
  const inside = Math.abs((rpsCell?.b ?? 0) - (across?.mean ?? 0)) <= (across?.halfWidth ?? 0);
  assert.equal(rpsCell?.verdict === 'same', inside, `B ${rpsCell?.b} against ${across?.mean} ± ${across?.halfWidth}: ${rpsCell?.verdict}`);
  assert.match(view.noiseRule, /^Only A repeated its profile \(3 repeats\)/);
  assert.match(view.noiseRule, /single value is "within noise" when it lies inside that interval/);
  assert.ok(view.notes.some((n) => n.startsWith('Only A repeated its profile: the delta table compares its mean across repeats')));
  // The delta table's pairing is the server table's: each of A's repeats beside B's step.
  assert.deepEqual(view.server === null ? null : view.server.table.rows.map((r) => r[0]), null, 'no server metrics in these runs');
  const withServer = buildCompareView(read(withSamples(repeated)), read(withSamples(single)), 'a', 'b');
  assert.deepEqual(withServer.server?.table.rows.map((r) => r[0]), [
    'concurrency@1 #1 / concurrency@1',
    'concurrency@4 #1 / concurrency@4',
    'concurrency@1 #2 / concurrency@1',
    'concurrency@4 #2 / concurrency@4',
    'concurrency@1 #3 / concurrency@1',
    'concurrency@4 #3 / concurrency@4',
  ]);
});

/** A run given server samples over each step's span (a gauge at its start and end), so that compare draws a server table. */
function withSamples(doc: ResultDocument): ResultDocument {
  const samples = doc.steps.flatMap((s) => [
    [s.startMs ?? 0, 1],
    [s.endMs ?? 0, 2],
  ]) as [number, number][];
  return {
    ...doc,
    serverMetrics: { url: 'http://127.0.0.1:9/metrics', engine: 'vllm', intervalMs: 1000, families: ['vllm:num_requests_running'], allowList: [], maxSeries: 64 },
    sampledAfterSteps: [{ name: 'vllm:num_requests_running', labels: {}, kind: 'gauge', source: 'server', samples }],
  };
}
