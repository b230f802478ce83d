// Token counts a user can trust (issue 21, items 2 and 5): the server's usage can be turned off
// (a flag, a config field, or the extra body's own stream_options), and then every count that is
// not the server's says so, with its share, wherever a step's figures are read: the command line's
// step line and final table, the result view, the Markdown, HTML and CSV exports. The token
// cross-check compares what both sides can count, estimated counts by their bounds only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { RunEventSchema, type RunEvent } from '../../src/format/events';
import { ResultDocumentSchema, type ResultDocument } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { startSimServer } from '../../src/sim/index';
import { createProgressPrinter } from '../../src/cli/progress';
import { formatMarkdownTable, formatTerminalTable } from '../../src/report/tables';
import { renderHtmlReport } from '../../src/report/html';
import { formatStepsCsv } from '../../src/report/csv';
import { buildReportModel } from '../../src/views/report';
import { buildResultView } from '../../src/views/result';
import { repoRoot } from '../helpers/limited-child';
import { startRunnerServer, vllmMetrics } from '../helpers/runner-server';

const OUTPUT_TOKENS = 32;

async function runWithEvents(input: RunConfigInput): Promise<{ doc: ResultDocument; events: RunEvent[] }> {
  const events: RunEvent[] = [];
  const doc = ResultDocumentSchema.parse(await runBenchmark(RunConfigSchema.parse(input), { onEvent: (e) => events.push(RunEventSchema.parse(e)) }));
  return { doc, events };
}

/** What the command line prints for these events, step lines and all. */
function printed(events: RunEvent[]): string {
  let text = '';
  const stream = { isTTY: false, columns: 120, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
  const printer = createProgressPrinter(stream);
  for (const event of events) printer.onEvent(event);
  printer.finish();
  return text;
}

test('usage off by the config field, the --no-usage flag or the extra body: no stream asks for it; on by default', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 2 }));
  t.after(() => server.close());
  const base = { endpoint: { baseUrl: server.baseUrl, model: 'm' }, workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 }, limits: { requests: 1 } } as const;
  const cases: [string, RunConfigInput, unknown][] = [
    ['default', base, { include_usage: true }],
    ['request.usage false', { ...base, request: { usage: false } }, undefined],
    ['the extra body says false', { ...base, request: { extraBody: { stream_options: { include_usage: false, continuous_usage_stats: true } } } }, { include_usage: false, continuous_usage_stats: true }],
    ['the extra body says true, request.usage false', { ...base, request: { usage: false, extraBody: { stream_options: { include_usage: true } } } }, { include_usage: true }],
  ];
  for (const [, input] of cases) await runBenchmark(RunConfigSchema.parse(input), {});
  assert.deepEqual(
    server.bodies.map((b) => b.stream_options),
    cases.map(([, , expected]) => expected),
    'the last case sends what its own extra body says: the user wrote it',
  );
  // The flag is the config field.
  const dry = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'run', '--url', server.baseUrl, '--model', 'm', '--requests', '1', '--no-usage', '--dry-run'], { encoding: 'utf8' });
  assert.equal(dry.status, 0, dry.stderr);
  assert.equal((JSON.parse(dry.stdout) as { config: { request: { usage: boolean } } }).config.request.usage, false);
});

test('usage off against the simulator: every count is estimated, and the step line, the final table, the result view and the exports say so with the share', async (t) => {
  const sim = await startSimServer({ preset: 'tiny', seed: 3 });
  t.after(() => sim.close());
  const input = (usage: boolean): RunConfigInput => ({
    endpoint: { baseUrl: sim.baseUrl, model: sim.model },
    workload: { kind: 'synthetic', inputTokens: 64, outputTokens: OUTPUT_TOKENS },
    request: { usage, extraBody: { ignore_eos: true } },
    profile: { kind: 'concurrency', levels: [2] },
    limits: { requests: 6 },
    serverMetrics: { url: 'off' },
  });
  const off = await runWithEvents(input(false));
  const on = await runWithEvents(input(true));
  for (const { doc } of [off, on]) assert.equal(doc.status, 'complete', doc.statusReason ?? '');

  const records = off.doc.steps[0]?.requests ?? [];
  assert.deepEqual([...new Set(records.map((r) => `${r.inputTokensSource}/${r.outputTokensSource}`))], ['estimate/estimate']);
  // The simulator counts with the same estimate, so here the estimate is exact; against a real
  // tokenizer it is not (test/real/llama-counts.test.ts measures how far).
  const served = (await sim.trace()).slice(0, records.length).map((r) => r.outputTokens);
  assert.deepEqual(records.map((r) => r.outputTokens), served);
  assert.deepEqual(off.doc.steps[0]?.summary?.tokenSources, { input: { estimate: 6 }, output: { estimate: 6 } });
  assert.deepEqual(on.doc.steps[0]?.summary?.tokenSources, { input: { usage: 6 }, output: { usage: 6 } });

  const said = "output tokens 100% estimated, input tokens 100% estimated";
  // The command line: the step's own line, and the note under the final table.
  const line = printed(off.events).split('\n').find((l) => l.includes('done:')) ?? '';
  assert.match(line, /tok|ok/);
  assert.ok(line.includes(`not the server's counts: ${said}`), line);
  assert.ok(!printed(on.events).includes('not the server'), 'server counts carry no mark');
  assert.ok(formatTerminalTable(off.doc).includes(`Token counts not reported by the server: concurrency@2: ${said}.`), formatTerminalTable(off.doc));
  assert.ok(!formatTerminalTable(on.doc).includes('not reported by the server'));
  // The result editor's notes.
  const view = buildResultView({ document: off.doc, unfinishedSteps: [] }, 'off.llmbench.json');
  assert.ok(view.notes.some((n) => n.includes(`concurrency@2: ${said}`) && n.includes('TPOT')), view.notes.join('\n'));
  assert.ok(!buildResultView({ document: on.doc, unfinishedSteps: [] }, 'on.llmbench.json').notes.some((n) => n.includes('not reported by the server')));
  // The exports.
  assert.ok(formatMarkdownTable(off.doc).includes(`concurrency@2: ${said}`));
  assert.ok(!formatMarkdownTable(on.doc).includes('not reported by the server'));
  const runs = [
    { name: 'off', doc: off.doc },
    { name: 'on', doc: on.doc },
  ];
  const html = renderHtmlReport(buildReportModel(runs), runs, 'usage');
  assert.equal(html.split('Token counts not reported by the server').length - 1, 1, 'one note, for the run without usage');
  assert.ok(buildReportModel(runs).runs[0]?.definitionNotes.some((n) => n.includes(said)), 'the report view lists it among the run\'s notes');
  const [header, offRow, onRow] = formatStepsCsv(runs).trim().split('\r\n').map((l) => l.split(','));
  const column = (name: string) => (header ?? []).indexOf(name);
  assert.deepEqual([offRow?.[column('output_tokens_estimated_share')], offRow?.[column('input_tokens_estimated_share')], offRow?.[column('output_tokens_tokenizer_share')]], ['1', '1', '0']);
  assert.deepEqual([onRow?.[column('output_tokens_estimated_share')], onRow?.[column('input_tokens_estimated_share')]], ['0', '0']);
});

test('a step cut by its duration leaves a stream with an estimated count: the cross-check still runs, on what both sides can count', async (t) => {
  // Requests 0-2 answer at once with usage; request 3 streams slowly without usage and is cut by the 1 s duration.
  const answer = (index: number) => (index < 3 ? { tokens: 4 } : { tokens: 40, gapMs: 100, usage: false });
  const run = async (extra: number) => {
    // The other client's tokens show from the first request on, as its requests run beside ours.
    let sent = (): number => 0;
    const server = await startRunnerServer(answer, (counts) => vllmMetrics({ ...counts, generatedTokens: counts.generatedTokens + (sent() > 0 ? extra : 0) }));
    sent = () => server.arrivals.length;
    t.after(() => server.close());
    const doc = ResultDocumentSchema.parse(
      await runBenchmark(
        RunConfigSchema.parse({
          endpoint: { baseUrl: server.baseUrl, model: 'm' },
          workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 40 },
          profile: { kind: 'concurrency', levels: [2] },
          // No drain: the duration cuts the slow stream (a drain would let it finish).
          limits: { requests: 4, durationSec: 1, drainSec: 0 },
          serverMetrics: { intervalMs: 200 },
        }),
        {},
      ),
    );
    const cut = doc.steps[0]?.requests.find((r) => r.index === 3);
    assert.equal(cut?.error?.kind, 'cancelled');
    assert.equal(cut?.outputTokensSource, 'estimate');
    assert.ok((cut?.chunkMs.length ?? 0) >= 2, 'the cut stream had begun');
    return (doc.warnings ?? []).filter((w) => w.includes('cross-check'));
  };
  // The server generated what the client received, the cut stream's share included: nothing to say.
  assert.deepEqual(await run(0), []);
  // Another client's 100 tokens: beyond even the most the cut stream could have had (its max_tokens, 40).
  const [warning, ...more] = await run(100);
  console.log(warning);
  assert.deepEqual(more, []);
  assert.match(warning ?? '', /the client received 12 counted and between \d+ and 40 more in 1 requests whose counts are estimates \(tolerance 16\); the server generated \d+ more: another client on the same server/);
});

test('with usage off and no bound on the output, the cross-check says which side it could not check', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 6, usage: false }));
  t.after(() => server.close());
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-cross-check-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const dataset = join(dir, 'prompts.txt');
  writeFileSync(dataset, 'one prompt\nanother prompt\n');
  const doc = await runBenchmark(
    RunConfigSchema.parse({
      endpoint: { baseUrl: server.baseUrl, model: 'm' },
      workload: { kind: 'dataset', path: dataset },
      request: { usage: false },
      limits: { requests: 3 },
      serverMetrics: { intervalMs: 200 },
    }),
    {},
  );
  assert.equal(doc.status, 'complete');
  const warnings = (doc.warnings ?? []).filter((w) => w.includes('cross-check'));
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0] ?? '', /the server counted 18 generated tokens during the run, the client received 0 counted and at least 18 more in 3 requests whose counts are estimates .*only its lower side was checked/);
});
