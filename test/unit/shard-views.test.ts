/**
 * A shard run's file in the views (src/views/shards.ts): the coordinator's file of a real 2-shard run
 * of dist/cli.js against the simulator opens like any other, with its shards (host, clock offset ±
 * uncertainty, state, send lateness) in the result view, compare, the report and its HTML export,
 * and on the result page itself (its built bundle in jsdom). The writer's shards section, whose
 * states change in place while the run goes, keeps the file whole at every write.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompareViewSchema, ResultViewSchema } from '../../src/format/messages/result';
import { ReportModelSchema } from '../../src/format/messages/report';
import type { RequestRecord, ResultDocument, ShardsInfo } from '../../src/format/result';
import { forReading, readResultText, type ReadResult } from '../../src/results/read-result';
import { ResultWriter, type ResultHead } from '../../src/results/writer';
import { buildResultView } from '../../src/views/result';
import { buildCompareView } from '../../src/views/compare';
import { buildReportModel } from '../../src/views/report';
import { shardsSection } from '../../src/views/shards';
import { renderHtmlReport } from '../../src/report/html';
import { startSimServer, type SimServer } from '../../src/sim/index';
import { closedPort } from '../helpers/cli-server';
import { cliPath } from '../helpers/limited-child';
import { openPage } from '../helpers/webview-page';

let sim: SimServer | null = null;
test.after(async () => {
  await sim?.close();
});

/** Runs `node dist/cli.js run FLAGS` as `shards` processes (1: one plain process); ends them all by pid whatever happens. */
async function runCli(flags: string[], out: string, shards: number, dir: string): Promise<void> {
  const port = await closedPort();
  const children: ChildProcess[] = [];
  try {
    const outputs: string[] = [];
    const codes = await Promise.all(
      Array.from({ length: shards }, (_, i) => {
        const argv = [cliPath, 'run', ...flags, '--out', out, ...(shards > 1 ? ['--shards', String(shards), '--shard', String(i), '--coordinator', `127.0.0.1:${port}`] : [])];
        const child = spawn(process.execPath, argv, { cwd: dir, env: { ...process.env, LLMBENCH_RUN_TOKEN: 'shard-views-test-token-0123' }, stdio: ['ignore', 'pipe', 'pipe'] });
        children.push(child);
        outputs[i] = '';
        child.stdout?.on('data', (d: Buffer) => (outputs[i] += d.toString()));
        child.stderr?.on('data', (d: Buffer) => (outputs[i] += d.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        return new Promise<number | null>((resolve) => child.on('close', (code) => (clearTimeout(timer), resolve(code))));
      }),
    );
    assert.deepEqual(codes, codes.map(() => 0), outputs.join('\n----\n'));
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

function readFile(path: string): ReadResult {
  const r = readResultText(readFileSync(path, 'utf8'));
  assert.ok(r.ok, `${path}: ${r.ok ? '' : r.error}`);
  return r.value;
}

/** The coordinator's file of a real 2-shard run, and a one-process run of the same plan. */
let files: Promise<{ sharded: ReadResult; single: ReadResult }> | null = null;
function realRuns(): Promise<{ sharded: ReadResult; single: ReadResult }> {
  files ??= (async () => {
    sim ??= await startSimServer({ preset: 'tiny', speedup: 20 });
    const dir = mkdtempSync(join(tmpdir(), 'llmbench-shard-views-'));
    const flags = ['--url', sim.baseUrl, '--model', sim.model, '--input-tokens', '32', '--output-tokens', '8', '--server-metrics', 'off', '--profile', 'concurrency', '--concurrency', '2,4', '--requests', '16', '--warmup', '0'];
    await runCli(flags, join(dir, 'sharded.llmbench.json'), 2, dir);
    await runCli(flags, join(dir, 'single.llmbench.json'), 1, dir);
    return { sharded: readFile(join(dir, 'sharded.llmbench.json')), single: readFile(join(dir, 'single.llmbench.json')) };
  })();
  return files;
}

const column = (section: { table: { columns: { label: string }[]; rows: string[][] } }, label: string): string[] => {
  const at = section.table.columns.findIndex((c) => c.label === label);
  assert.ok(at >= 0, `no column ${label}`);
  return section.table.rows.map((row) => row[at]!);
};

test("a real 2-shard run's merged file opens like any other: the result view has its steps and a shards section with each shard's host, offset ± uncertainty, state and send lateness", async () => {
  const { sharded } = await realRuns();
  const doc = sharded.document;
  const view = ResultViewSchema.parse(buildResultView(sharded, 'sharded.llmbench.json'));
  assert.equal(view.summary.status, 'complete');
  assert.deepEqual(view.rows.map((r) => [r.name, r.total]), [['concurrency@2', 16], ['concurrency@4', 16]]);
  assert.ok(view.charts.length > 0);
  const shards = view.shards;
  assert.ok(shards, 'a shards section');
  assert.deepEqual(column(shards, 'Shard'), ['0 (coordinator)', '1']);
  assert.deepEqual(column(shards, 'Host'), doc.shards!.members.map((m) => m.host));
  assert.deepEqual(column(shards, 'State'), ['done', 'done']);
  assert.equal(column(shards, 'Clock offset')[0], '0.00 ± 0.00');
  const [offset, uncertainty] = column(shards, 'Clock offset')[1]!.split(' ± ').map(Number);
  assert.equal(offset, Number(doc.shards!.members[1]!.offsetMs!.toFixed(2)) + 0, 'its offset (a rounded -0 reads 0)');
  assert.equal(uncertainty, Number(doc.shards!.members[1]!.uncertaintyMs!.toFixed(2)));
  // A finished run: its lateness over the whole run, each shard its own requests (k mod 2).
  assert.deepEqual(column(shards, 'Requests'), ['16', '16']);
  const records = doc.steps.flatMap((s) => s.requests);
  for (const [i, max] of column(shards, 'Send lateness max').entries()) {
    const own = records.filter((r) => r.worker === i).map((r) => r.sentMs - r.scheduledMs);
    assert.equal(max, Math.max(...own).toFixed(1), `shard ${i}'s max lateness`);
  }
  assert.ok(shards.notes.some((n) => n.startsWith(`2 shards, coordinated by shard 0 at ${doc.shards!.coordinator}`)), shards.notes.join('\n'));
  assert.ok(shards.notes.includes('Send lateness: over the whole run.'));
});

test('while the run goes, the section shows the step running now: its lateness per shard and each shard as the file says (running, lost)', async () => {
  const { sharded } = await realRuns();
  const done = sharded.document;
  // The coordinator's file as it was during the second step, shard 1 just lost: what the result editor reads as it follows it.
  const last = done.steps[1]!;
  const running: ResultDocument = {
    ...done,
    status: 'running',
    statusReason: null,
    finishedAt: null,
    shards: { ...done.shards!, members: done.shards!.members.map((m) => ({ ...m, state: m.shard === 1 ? 'lost' : 'running' })) },
    steps: [done.steps[0]!, { ...last, summary: null, requests: last.requests.slice(0, 10) }],
  };
  const live = forReading(running, () => true);
  const section = ResultViewSchema.parse(buildResultView(live, 'sharded.llmbench.json')).shards!;
  assert.deepEqual(column(section, 'State'), ['running', 'lost']);
  const inStep = (shard: number): number[] => last.requests.slice(0, 10).filter((r) => r.worker === shard).map((r) => r.sentMs - r.scheduledMs).sort((a, b) => a - b);
  assert.deepEqual(column(section, 'Requests'), [String(inStep(0).length), String(inStep(1).length)]);
  assert.deepEqual(column(section, 'Send lateness max'), [Math.max(...inStep(0)).toFixed(1), Math.max(...inStep(1)).toFixed(1)]);
  assert.ok(section.notes.includes('Send lateness: in the step running now, concurrency@4.'), section.notes.join('\n'));
  assert.ok(section.notes.some((n) => n.startsWith('Lost during the run: shard 1.')));
  // Before its first step: nothing sent yet.
  const before = shardsSection({ ...running, steps: [], shards: { ...running.shards!, members: running.shards!.members.map((m) => ({ ...m, state: 'registered' })) } })!;
  assert.deepEqual(column(before, 'State'), ['registered', 'registered']);
  assert.deepEqual(column(before, 'Requests'), ['0', '0']);
  assert.ok(before.notes.includes('Send lateness: no step has started yet.'));
  // The same file once its writer is gone: nothing says `running` as if it still were.
  const cut = ResultViewSchema.parse(buildResultView(forReading(running, () => false), 'sharded.llmbench.json')).shards!;
  assert.deepEqual(column(cut, 'State'), ['running when its file was last written', 'lost']);
  // A file written before the states (every shard `registered`), finished.
  // An offset that rounds to nothing is unsigned.
  const tiny = shardsSection({ ...done, shards: { ...done.shards!, members: done.shards!.members.map((m) => ({ ...m, offsetMs: m.shard === 1 ? -0.001 : m.offsetMs })) } })!;
  assert.match(column(tiny, 'Clock offset')[1]!, /^0\.00 ± /);
  const older = shardsSection({ ...done, shards: { ...done.shards!, members: done.shards!.members.map((m) => ({ ...m, state: 'registered' })) } })!;
  assert.deepEqual(column(older, 'State'), ['took part (its end not recorded)', 'took part (its end not recorded)']);
});

test("compare and the report show a shard run's shards beside a one-process run, and the HTML export writes them", async () => {
  const { sharded, single } = await realRuns();
  assert.equal(ResultViewSchema.parse(buildResultView(single, 'single.llmbench.json')).shards, null, 'a one-process run has no shards section');
  const compare = CompareViewSchema.parse(buildCompareView(single, sharded, 'single.llmbench.json', 'sharded.llmbench.json'));
  assert.ok(compare.shards);
  assert.deepEqual(column(compare.shards, 'Run'), ['B', 'B']);
  assert.deepEqual(column(compare.shards, 'State'), ['done', 'done']);
  assert.ok(compare.shards.notes.includes('A ran in one process (no shards).'), compare.shards.notes.join('\n'));
  assert.ok(compare.shards.notes.some((n) => n.startsWith('B: 2 shards, coordinated by shard 0')));
  assert.deepEqual(compare.deltas.map((d) => [d.stepA, d.stepB]), [['concurrency@2', 'concurrency@2'], ['concurrency@4', 'concurrency@4']], 'the same plan pairs step by step');

  const runs = [
    { name: 'one process', doc: single.document },
    { name: 'two shards', doc: sharded.document },
  ];
  const model = ReportModelSchema.parse(buildReportModel(runs));
  assert.deepEqual(model.shards.map((s) => s.name), ['two shards']);
  assert.deepEqual(column(model.shards[0]!, 'State'), ['done', 'done']);
  const html = renderHtmlReport(model, runs, 'report');
  assert.match(html, /<h2>Shards: two shards<\/h2>/);
  for (const m of sharded.document.shards!.members) assert.ok(html.includes(`${m.offsetMs!.toFixed(2)} ± ${m.uncertaintyMs!.toFixed(2)}`), `shard ${m.shard}'s offset in the HTML`);
});

test('the result page draws the shards section of a shard run (its built bundle in jsdom), and none for a one-process run', async () => {
  const { sharded, single } = await realRuns();
  const page = openPage('result');
  page.send({ type: 'show', view: buildResultView(sharded, 'sharded.llmbench.json') });
  const section = page.document.querySelector('#shards-section');
  assert.ok(section, 'a shards section');
  assert.equal(section.querySelector('h2')?.textContent, 'Shards');
  const cells = [...section.querySelectorAll('.shards-table tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent));
  assert.deepEqual(cells.map((row) => [row[0], row[3]]), [['0 (coordinator)', 'done'], ['1', 'done']]);
  assert.deepEqual(page.scriptErrors, []);
  const plain = openPage('result');
  plain.send({ type: 'show', view: buildResultView(single, 'single.llmbench.json') });
  assert.ok(plain.document.querySelector('.step-table'), 'the page was drawn');
  assert.equal(plain.document.querySelector('#shards-section'), null);
  page.close();
  plain.close();
});

test("the compare and report pages draw a shard run's shards (their built bundles in jsdom)", async () => {
  const { sharded, single } = await realRuns();
  const compare = openPage('compare');
  compare.send({ type: 'show-compare', view: buildCompareView(single, sharded, 'single.llmbench.json', 'sharded.llmbench.json') });
  const section = compare.document.querySelector('#shards-compare');
  assert.ok(section, 'a shards section in compare');
  const rows = [...section.querySelectorAll('.shards-table tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent));
  assert.deepEqual(rows.map((row) => [row[0], row[1], row[4]]), [['B', '0 (coordinator)', 'done'], ['B', '1', 'done']]);
  assert.match(section.textContent ?? '', /A ran in one process \(no shards\)\./);
  assert.deepEqual(compare.scriptErrors, []);
  compare.close();

  const runs = [
    { name: 'one process', doc: single.document },
    { name: 'two shards', doc: sharded.document },
  ];
  const report = openPage('report');
  report.send({ type: 'model', title: 'Report', model: buildReportModel(runs), problems: [] });
  const heads = [...report.document.querySelectorAll('h2')].map((h) => h.textContent);
  assert.ok(heads.includes('Shards: two shards'), heads.join(', '));
  assert.equal(report.document.querySelectorAll('table.shards tbody tr').length, 2);
  assert.deepEqual(report.scriptErrors, []);
  report.close();
});

test("the writer's shards section: states change in place while a step is open and at the run's end; the file is whole after every write and no record moves", async () => {
  const { sharded } = await realRuns();
  const real = sharded.document;
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-shards-writer-'));
  const path = join(dir, 'w.llmbench.json');
  const member = (shard: number, host: string) => ({ shard, state: 'registered' as const, host, pid: 100 + shard, offsetMs: shard * 0.5, uncertaintyMs: 0.05, rttMs: 0.1 });
  // A host name beyond ASCII: the room is kept in bytes.
  const shards: ShardsInfo = { runId: 'r-1', count: 3, configHash: 'h', coordinator: '127.0.0.1:9', members: [member(0, 'nœud-0'), member(1, 'node-1'), { shard: 2, state: 'missing', host: null, pid: null, offsetMs: null, uncertaintyMs: null, rttMs: null }] };
  const { status: _s, statusReason: _r, finishedAt: _f, steps: _steps, warnings: _w, sampledAfterSteps: _a, importedFrom: _i, ...rest } = real;
  const writer = new ResultWriter(path, { ...rest, shards } as ResultHead);
  const read = () => {
    const parsed = readResultText(readFileSync(path, 'utf8'), () => true);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    return { states: parsed.value.document.shards!.members.map((m) => m.state), records: parsed.value.document.steps.flatMap((st) => st.requests.map((r) => r.index)) };
  };
  const running: ShardsInfo = { ...shards, members: shards.members.map((m) => (m.state === 'missing' ? m : { ...m, state: 'running' })) };
  writer.setShards(running);
  assert.deepEqual(read(), { states: ['running', 'running', 'missing'], records: [] });
  const step = real.steps[0]!;
  writer.startStep(step.name, step.profile);
  const [first, second] = step.requests as [RequestRecord, RequestRecord];
  writer.addRecord(first);
  const lost: ShardsInfo = { ...running, members: running.members.map((m) => (m.shard === 1 ? { ...m, state: 'lost' } : m)) };
  writer.setShards(lost);
  assert.deepEqual(read(), { states: ['running', 'lost', 'missing'], records: [first.index] });
  // The step goes on after the change: records still reach the file.
  writer.addRecord(second);
  assert.deepEqual(read(), { states: ['running', 'lost', 'missing'], records: [first.index, second.index] });
  writer.setShards({ ...lost, members: lost.members.map((m) => (m.shard === 0 ? { ...m, state: 'done' } : m)) }, 'with-next-write');
  assert.deepEqual(read().states, ['running', 'lost', 'missing'], 'not written yet');
  const doc = writer.finish('partial', 'shard 1 lost');
  assert.deepEqual(read(), { states: ['done', 'lost', 'missing'], records: [first.index, second.index] });
  assert.equal(doc.shards?.members[0]?.state, 'done');
  assert.throws(() => writer.setShards({ ...shards, coordinator: 'a-much-longer-coordinator-name.cluster.local:40000' }), /outgrew the room kept for it/);
});
