// The trace replay table as the result editor, the report and the command line show it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TraceReplaySchema, type Step } from '../../src/format/result';
import { traceTable } from '../../src/views/trace-figures';

const replay = (path: string) =>
  TraceReplaySchema.parse({
    path,
    format: 'mooncake',
    timeScale: 2,
    window: { startSec: 60, endSec: 120 },
    rows: 10,
    requests: 8,
    skipped: { 'time-backwards': { count: 2, firstLine: 4 } },
    failedRequests: null,
    beforeWindow: 0,
    recordedSpanSec: 50,
    scaledSpanSec: 25,
    recordedRates: [],
  });

const step = (path: string): Pick<Step, 'name' | 'profile' | 'summary'> => ({ name: 'trace@2x', profile: { kind: 'trace', trace: replay(path) }, summary: null });

test("the trace table names the file without its folders (a workspace's absolute path pushed the table past a 1000 px view), on POSIX and Windows paths", () => {
  for (const path of ['/home/someone/projects/a-long-workspace-name/traces/mooncake_trace.jsonl', 'C:\\Users\\someone\\traces\\mooncake_trace.jsonl', 'mooncake_trace.jsonl']) {
    const table = traceTable([step(path)]);
    assert.equal(table?.rows[0]?.[1], 'mooncake_trace.jsonl (mooncake, 2x, 60-120 s)', path);
  }
  assert.equal(table(), null);
  function table() {
    return traceTable([{ name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, summary: null }]);
  }
});
