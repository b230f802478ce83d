// Where a client-bound step and the worker count show: the CLI's step line and final table, the
// live panel (workers, each one's send lateness, the step's warning), the result editor's summary and
// warnings, compare, the report (its model, HTML and Markdown). A file without workers or warnings
// (older, imported) shows neither.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgressPrinter } from '../../src/cli/progress';
import type { RunEvent } from '../../src/format/events';
import { LiveStateSchema } from '../../src/format/messages/live';
import type { ResultDocument, StepWarning } from '../../src/format/result';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';
import { renderHtmlReport } from '../../src/report/html';
import { formatMarkdownTable, formatTerminalTable } from '../../src/report/tables';
import { forReading } from '../../src/results/read-result';
import { buildCompareView } from '../../src/views/compare';
import { tableRows, workersText } from '../../src/views/live';
import { WARNING_MARK } from '../../src/views/step-warnings';
import { buildReportModel } from '../../src/views/report';
import { buildResultView } from '../../src/views/result';
import { summaryItems } from '../../src/views/result-tables';
import { makeDocument, type StepShape } from '../helpers/result-documents';

const WARNING: StepWarning = {
  kind: 'client-bound',
  figures: { busy: 0.97, threshold: 0.9, worker: 0, workers: 2 },
  message: 'The client was busy 97% of the step (limit 90%): it had no time to spare, so tokens waited to be read and timed; TTFT and ITL are inflated by the client. Add workers: --workers 3.',
};

const shapes: StepShape[] = [
  { name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, requests: 10, ttftMs: 20, gapMs: 5, chunks: 4 },
  { name: 'concurrency@256', profile: { kind: 'concurrency', concurrency: 256 }, requests: 10, ttftMs: 40, gapMs: 9, chunks: 4 },
];

function withClient(): ResultDocument {
  const doc = makeDocument(shapes, { workers: { count: 2, reason: 'asked for 2' } });
  const summary = doc.steps[1]!.summary!;
  summary.warnings = [...(summary.warnings ?? []), WARNING];
  return doc;
}

const warningLine = `concurrency@256: ${WARNING.message}`;

test('the result editor, compare and the report say which step was client-bound and with how many workers', () => {
  const doc = withClient();
  const view = buildResultView(forReading(doc, () => false), 'a.llmbench.json');
  assert.ok(view.warnings.includes(warningLine));
  assert.deepEqual(summaryItems(view.summary).find((item) => item.label === 'Workers'), { label: 'Workers', value: '2 (asked for 2)' });

  const plain = makeDocument(shapes);
  const plainView = buildResultView(forReading(plain, () => false), 'b.llmbench.json');
  assert.ok(!plainView.warnings.some((w) => w.includes('The client was')));
  assert.equal(summaryItems(plainView.summary).some((item) => item.label === 'Workers'), false, 'a file that does not say has no Workers line');

  const compare = buildCompareView(forReading(plain, () => false), forReading(doc, () => false), 'b.llmbench.json', 'a.llmbench.json');
  assert.ok(compare.warnings.includes(`B: ${warningLine}`));
  assert.equal(compare.b.workers, '2 (asked for 2)');

  const runs = [{ name: 'plain', doc: plain }, { name: 'bound', doc }];
  const model = buildReportModel(runs);
  assert.deepEqual(model.runs.map((r) => r.stepWarnings.filter((w) => w.includes('The client was'))), [[], [warningLine]]);
  assert.deepEqual(model.runs.map((r) => r.workers), [null, '2 (asked for 2)']);
  const html = renderHtmlReport(model, runs, 'Report', new Date(0));
  assert.ok(html.includes('<th>Workers</th>'));
  assert.ok(html.includes(`<li>${WARNING_MARK} concurrency@256: The client was busy 97% of the step (limit 90%)`));
  const markdown = formatMarkdownTable(doc);
  assert.ok(markdown.includes(`- ${WARNING_MARK} ${warningLine}`));
  assert.ok(markdown.includes('Workers: 2 (asked for 2).'));
  assert.ok(!formatMarkdownTable(plain).includes('The client was'));
});

test("the CLI prints the warning in its log as the step ends, and again under the final table", () => {
  const written: string[] = [];
  const printer = createProgressPrinter({ isTTY: false, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream);
  const doc = withClient();
  printer.onEvent({ type: 'run-start', plannedSteps: [], stepCount: 2, resultPath: null, workers: { count: 2, reason: 'asked for 2' } });
  printer.onEvent({ type: 'step-start', stepIndex: 1, name: 'concurrency@256', profile: shapes[1]!.profile });
  // The gather logs a step's warnings as it ends it (gather.ts endStep), then sends its step-end.
  printer.onEvent({ type: 'log', level: 'warn', message: warningLine });
  printer.onEvent({ type: 'step-end', stepIndex: 1, name: 'concurrency@256', summary: doc.steps[1]!.summary! });
  const text = written.join('');
  assert.match(text, /Step 2: concurrency@256\nwarn: concurrency@256: The client was busy 97% of the step.*\n {2}done: 10 ok, 0 failed, /);
  const table = formatTerminalTable(doc);
  assert.match(table, new RegExp(`concurrency@256 ${WARNING_MARK}`));
  assert.match(table, new RegExp(`\\nWorkers: 2 \\(asked for 2\\)\\.\\n(.*\\n)*${WARNING_MARK} concurrency@256: The client was busy 97%`));
});

test('the live panel shows the workers, each one\'s in-flight count and send lateness, and a finished step\'s warning', () => {
  const state = newLiveState({ id: 'r', model: 'm', baseUrl: 'http://x/v1', profile: 'concurrency', startedAt: '', labels: [], expectedSteps: null, resultPath: null });
  assert.equal(workersText(state), '');
  const events: RunEvent[] = [
    { type: 'run-start', plannedSteps: [], stepCount: 1, resultPath: null, workers: { count: 2, reason: 'asked for 2' } },
    { type: 'step-start', stepIndex: 0, name: 'concurrency@256', profile: shapes[1]!.profile },
    {
      type: 'progress',
      snapshot: {
        stepIndex: 0, elapsedSec: 1, completed: 3, failed: 0, inFlight: 7, plannedRequests: 10, plannedDurationSec: null,
        requestsPerSecond: 3, outputTokensPerSecond: 12, recentTtftMs: [], recentLatencyMs: [],
        workers: [
          { worker: 0, inFlight: 4, sendLatenessMs: { p50: 0.05, p99: 0.8, max: 1.2 } },
          { worker: 1, inFlight: 3, sendLatenessMs: null },
        ],
      },
    },
  ];
  for (const event of events) applyRunEvent(state, event, 1);
  assert.equal(workersText(state), 'Workers: 2 (asked for 2) · #0: 4 in flight, send lateness 0.05 / 0.80 ms · #1: 3 in flight, no send (p50 / p99)');
  applyRunEvent(state, { type: 'step-end', stepIndex: 0, name: 'concurrency@256', summary: withClient().steps[1]!.summary! }, 2);
  // The finished step carries the warning mark in the panel's table; its words are in the panel's log (the gather logged them).
  assert.equal(tableRows(state)[0]?.[0], `concurrency@256\u00a0${WARNING_MARK}`);
  // What the host sends the panel fits the panel's schema.
  assert.ok(LiveStateSchema.safeParse(JSON.parse(JSON.stringify(state))).success);
});
