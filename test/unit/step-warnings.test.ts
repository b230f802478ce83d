/**
 * A step's warnings reach every place its figures are shown (src/views/step-warnings.ts): the
 * command line's log and tables, the live panel, the result editor, compare, the report and the
 * Markdown, CSV and HTML exports. The steps come from real runs against a loopback server; a
 * file written before steady windows says which definition its rates follow.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema } from '../../src/format/config';
import type { RunEvent } from '../../src/format/events';
import type { ResultDocument } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';
import { createProgressPrinter } from '../../src/cli/progress';
import { tableRows } from '../../src/views/live';
import { buildResultView } from '../../src/views/result';
import { buildCompareView } from '../../src/views/compare';
import { buildReportModel } from '../../src/views/report';
import { forReading } from '../../src/results/read-result';
import { formatMarkdownTable, formatTerminalTable, formatVllmBlock } from '../../src/report/tables';
import { formatStepsCsv } from '../../src/report/csv';
import { renderHtmlReport } from '../../src/report/html';
import { stepTable } from '../../src/views/result-tables';
import { startRunnerServer } from '../helpers/runner-server';
import { concurrencySweep } from '../helpers/result-documents';

const TOO_SHORT = /this step is too short for its latency: its rates are mostly ramp-up; run it longer/;

test('a too-short step is warned about in the log, the live panel, the result editor, compare, the report and every export', async (t) => {
  // 300 ms requests, two at a time, four in all: the step sends for 0.3 s, a single latency.
  const server = await startRunnerServer(() => ({ tokens: 2, firstTokenMs: 300 }));
  t.after(() => server.close());
  const written: string[] = [];
  const printer = createProgressPrinter({ isTTY: false, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream);
  const live = newLiveState({ id: 'r', model: 'm', baseUrl: server.baseUrl, profile: 'concurrency', startedAt: new Date(0).toISOString(), labels: [], expectedSteps: null, resultPath: null });
  const doc: ResultDocument = await runBenchmark(
    RunConfigSchema.parse({
      endpoint: { baseUrl: server.baseUrl, model: 'm' },
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 },
      profile: { kind: 'concurrency', levels: [2] },
      limits: { requests: 4 },
    }),
    {
      onEvent: (e: RunEvent) => {
        printer.onEvent(e);
        applyRunEvent(live, e, 0);
      },
    },
  );
  const step = doc.steps[0];
  const [warning] = step?.summary?.warnings ?? [];
  assert.equal(warning?.kind, 'too-short');
  assert.match(warning?.message ?? '', TOO_SHORT);
  const label = 'concurrency@2';

  // The command line: said in the log when the step ends, and marked in its table.
  assert.ok(written.join('').includes(`${step?.name}: ${warning?.message}`), written.join(''));
  const terminal = formatTerminalTable(doc);
  assert.match(terminal, new RegExp(`^${label} \u26a0 +\\|`, 'm'));
  assert.ok(terminal.includes(`\u26a0 ${label}: ${warning?.message}`), terminal);

  // The live panel: the mark in its table, the message in its log.
  assert.match(tableRows(live)[0]?.[0] ?? '', /\u26a0$/);
  assert.ok(live.logs.some((l) => l.level === 'warn' && TOO_SHORT.test(l.message)));

  // The result editor: the step's row, its table and the view's warnings.
  const view = buildResultView(forReading(doc), 'run.llmbench.json');
  assert.deepEqual(view.rows[0]?.warnings, [warning?.message]);
  assert.equal(stepTable(view.rows).rows[0]?.[0], `${label}\u00a0\u26a0`, 'the mark kept on its name\'s line');
  assert.ok(view.warnings.includes(`${label}: ${warning?.message}`), JSON.stringify(view.warnings));

  // Compare: each side's warnings, named by side.
  const compare = buildCompareView(forReading(doc), forReading(concurrencySweep()), 'a.json', 'b.json');
  assert.ok(compare.warnings.includes(`A: ${label}: ${warning?.message}`), JSON.stringify(compare.warnings));

  // The report and its exports.
  const runs = [{ name: 'run', doc }];
  const model = buildReportModel(runs);
  assert.deepEqual(model.runs[0]?.stepWarnings, [`${label}: ${warning?.message}`]);
  const html = renderHtmlReport(model, runs, 'r');
  assert.ok(html.includes('class="notes step-warnings"') && html.includes(`${label}: this step is too short`), 'HTML report');
  const markdown = formatMarkdownTable(doc);
  assert.match(markdown, new RegExp(`^\\| ${label} \u26a0 +\\|`, 'm'));
  assert.ok(markdown.includes(`- \u26a0 ${label}: ${warning?.message}`), markdown);
  assert.ok(formatVllmBlock(doc, 0).includes(`\u26a0 ${warning?.message}`));
  const [header, row] = formatStepsCsv(runs).trimEnd().split('\r\n');
  const columns = header?.split(',') ?? [];
  assert.deepEqual(columns.slice(-2), ['rate_window', 'warnings']);
  assert.match(row ?? '', /,span,"?too-short: this step is too short for its latency/);
});

test('a file written before steady windows says its rates are over first send to last completion, and flags its short steps from what it has', () => {
  // concurrencySweep: 20 requests every 10 ms, latencies of 100 to 400 ms: each step spans less than 3 latencies.
  const old = concurrencySweep();
  for (const step of old.steps) if (step.summary) delete step.summary.rateWindow;
  const view = buildResultView(forReading(old), 'old.json');
  assert.ok(view.notes.some((n) => n.startsWith('This file was written before steady windows')), JSON.stringify(view.notes));
  assert.ok(view.rows.some((r) => r.warnings.some((w) => /too short for its latency.*it ran from its first send to its last completion for/.test(w))));
  assert.match(formatTerminalTable(old), /This file was written before steady windows/);
  // Compared with a run over steady windows, the difference is said.
  const compare = buildCompareView(forReading(old), forReading(concurrencySweep()), 'old.json', 'new.json');
  assert.ok(compare.warnings.some((w) => /^The runs take their rates differently: A was written before steady windows/.test(w)), JSON.stringify(compare.warnings));
  // An imported file keeps its tool's definition: no such note.
  const imported: ResultDocument = { ...old, importedFrom: { tool: 'vllm', version: null, file: 'x.json', notes: [] } };
  assert.ok(!buildResultView(forReading(imported), 'x.json').notes.some((n) => n.startsWith('This file was written before steady windows')));
});
