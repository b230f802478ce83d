// The trace readers (src/workload/trace.ts) on files in the publishers' formats (test/fixtures/traces,
// sources in SOURCE.md), the slice and speed options, and bad rows named by file and line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TraceSourceSchema, type TraceSourceInput } from '../../src/format/trace';
import { BadInputError } from '../../src/format/errors';
import { describeLeftOut, openTrace, parseCsvLine, parseDateTime, TraceError, type TraceEntry, type TraceReader } from '../../src/workload/trace';
import { repoRoot } from '../helpers/limited-child';

const fixture = (name: string): string => join(repoRoot, 'test', 'fixtures', 'traces', name);
const dir = mkdtempSync(join(tmpdir(), 'llmbench-trace-'));
let files = 0;
function file(text: string, extension = 'jsonl'): string {
  const path = join(dir, `t${files++}.${extension}`);
  writeFileSync(path, text);
  return path;
}

async function open(source: TraceSourceInput): Promise<TraceReader> {
  return openTrace(TraceSourceSchema.parse(source));
}

async function read(source: TraceSourceInput): Promise<{ entries: TraceEntry[]; reader: TraceReader }> {
  const reader = await open(source);
  const entries: TraceEntry[] = [];
  for await (const entry of reader.entries()) entries.push(entry);
  return { entries, reader };
}

/** Within a microsecond: date-times are ms since 1970, whose doubles keep a quarter of a microsecond. */
const near = (actual: number[], expected: number[], what: string): void => {
  assert.equal(actual.length, expected.length, `${what}: ${actual.join(', ')}`);
  actual.forEach((a, i) => assert.ok(Math.abs(a - (expected[i] as number)) < 1e-3, `${what}[${i}]: ${a}, expected ${expected[i]}`));
};

test('Mooncake: the published rows are read from their JSONL as they are, hash ids and all', async () => {
  const { entries, reader } = await read({ path: fixture('mooncake-conversation-head.jsonl') });
  assert.equal(reader.format, 'mooncake');
  assert.deepEqual(entries.map((e) => e.line), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  assert.deepEqual(entries.map((e) => e.index), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  assert.deepEqual(entries.map((e) => e.atMs), [0, 0, 0, 0, 0, 0, 3000, 3000, 3000, 5999, 9000, 12000]);
  assert.deepEqual(entries[3], { index: 3, line: 4, atMs: 0, recordedMs: 0, inputTokens: 2290, outputTokens: 316, hashIds: [0, 42, 43, 44, 45] });
  assert.deepEqual(entries[9]?.hashIds, [0, 773, 774]);
  assert.deepEqual(reader.stats, { format: 'mooncake', rows: 12, entries: 12, skipped: {}, failedRequests: null, beforeWindow: 0, stoppedAt: null, recordedSpanMs: { first: 0, last: 12000 } });
  assert.equal(describeLeftOut(reader.path, reader.stats), null);

  // The README's rows start at 27482 ms: times count from the first row.
  const readme = await read({ path: fixture('mooncake-readme.jsonl') });
  assert.deepEqual(readme.entries.map((e) => [e.atMs, e.recordedMs, e.inputTokens, e.outputTokens, e.hashIds?.length]), [
    [0, 0, 6955, 52, 14],
    [3053, 3053, 6472, 26, 13],
  ]);
});

test('Azure 2023 and 2024: TIMESTAMP date-times (seven decimals; microseconds with a zone, or none) become ms after the first row', async () => {
  const y2023 = await read({ path: fixture('azure-2023-code-head.csv') });
  assert.equal(y2023.reader.format, 'azure');
  near(
    y2023.entries.map((e) => e.atMs),
    [0, 52, 98.189, 140.684, 444.994, 539.187, 698.571, 1016.041, 1299.312, 1299.337, 1398.922, 1399.087, 29479.069],
    'atMs',
  );
  assert.deepEqual(y2023.entries.map((e) => e.line).slice(0, 3), [2, 3, 4]);
  assert.deepEqual(y2023.entries.map((e) => [e.inputTokens, e.outputTokens]).slice(0, 3), [[4808, 10], [3180, 8], [110, 27]]);
  assert.equal(y2023.entries[0]?.hashIds, undefined);

  // CRLF line endings, +00:00 zones, and a row written without decimals.
  const y2024 = await read({ path: fixture('azure-2024-code-head.csv') });
  assert.equal(y2024.reader.format, 'azure');
  near(y2024.entries.map((e) => e.atMs), [0, 7.405, 12.384, 27.915, 73.96, 990.07, 1031.753], 'atMs');
  assert.deepEqual(y2024.entries.map((e) => [e.inputTokens, e.outputTokens]), [[2162, 5], [2399, 6], [76, 15], [2376, 1], [7670, 8], [1452, 3], [584, 3]]);
});

test('date-times: the forms the Azure traces and ISO 8601 write, and impossible dates refused', () => {
  const base = Date.UTC(2024, 4, 10);
  assert.equal(parseDateTime('2024-05-10 00:00:00+00:00'), base);
  assert.ok(Math.abs((parseDateTime('2024-05-10 00:00:00.009930+00:00') as number) - (base + 9.93)) < 1e-6);
  assert.equal(parseDateTime('2024-05-10T02:00:00+02:00'), base);
  assert.equal(parseDateTime('2024-05-10T00:00:00Z'), base);
  assert.equal(parseDateTime('2024-05-09 19:30:00-0430'), base);
  assert.ok(Math.abs((parseDateTime('2023-11-16 18:17:03.9799600') as number) - (Date.UTC(2023, 10, 16, 18, 17, 3) + 979.96)) < 1e-6);
  for (const bad of ['2023-02-30 00:00:00', '2023-13-01 00:00:00', '2023-11-16 24:00:00', '2023-11-16', 'yesterday', '1700000000']) assert.equal(parseDateTime(bad), undefined, bad);
});

test('BurstGPT: Timestamp in seconds; rows with 0 response tokens are failed requests, left out and counted', async () => {
  const { entries, reader } = await read({ path: fixture('burstgpt.csv') });
  assert.equal(reader.format, 'burstgpt');
  assert.deepEqual(entries.map((e) => [e.line, e.atMs, e.inputTokens, e.outputTokens]), [
    [2, 0, 472, 18],
    [4, 113_000, 417, 505],
    [5, 113_000, 25, 161],
    [7, 402_000, 2138, 290],
  ]);
  assert.deepEqual(reader.stats.failedRequests, { count: 2, firstLine: 3 });
  assert.deepEqual(reader.stats.skipped, {});
  assert.equal(describeLeftOut(reader.path, reader.stats), `Trace file ${reader.path}: 2 rows record requests that failed (0 response tokens) and were left out (first at line 3).`);
});

test('a column map reads other JSONL and CSV files: time units, hash id lists, extra and missing fields', async () => {
  const csv = await read({ path: fixture('columns.csv'), columns: { time: 'arrival_us', timeUnit: 'us', inputTokens: 'prompt_tokens', outputTokens: 'completion_tokens', hashIds: 'blocks' } });
  assert.equal(csv.reader.format, 'columns');
  assert.deepEqual(csv.entries.map((e) => [e.atMs, e.inputTokens, e.outputTokens, e.hashIds]), [
    [0, 40, 8, [7, 8]],
    [250, 40, 16, [7, 9]],
    [1000, 12, 4, undefined],
  ]);
  // Names match in another case too; seconds with decimals.
  const jsonl = await read({ path: fixture('columns.jsonl'), format: 'columns', columns: { time: 'T', timeUnit: 's', inputTokens: 'isl', outputTokens: 'OSL' } });
  assert.deepEqual(jsonl.entries.map((e) => [e.atMs, e.inputTokens, e.outputTokens]), [
    [0, 300, 20],
    [250, 120, 7],
    [1500, 64, 64],
  ]);
  await assert.rejects(open({ path: fixture('columns.csv'), columns: { time: 'arrival', timeUnit: 'us', inputTokens: 'prompt_tokens', outputTokens: 'completion_tokens' } }), (error: unknown) => {
    assert.ok(error instanceof TraceError && error instanceof BadInputError);
    assert.match(error.message, /columns\.csv: its header \(line 1\) has no column "arrival" \(it has "request_id", "arrival_us", "prompt_tokens", "completion_tokens", "blocks"\)/);
    return true;
  });
  assert.equal(TraceSourceSchema.safeParse({ path: 'x', format: 'columns' }).success, false);
  assert.equal(TraceSourceSchema.safeParse({ path: 'x', format: 'azure', columns: { time: 't', timeUnit: 's', inputTokens: 'i', outputTokens: 'o' } }).success, false);
});

test('the format is told from the first line, or checked against the one given; an unknown file names the known formats', async () => {
  await assert.rejects(open({ path: file('a,b,c\n1,2,3\n', 'csv') }), /first line \(line 1\) is neither a JSON object nor a known CSV header \(it has "a", "b", "c"\)\. Known formats: mooncake/);
  await assert.rejects(open({ path: file('{"time": 1, "prompt": 3}\n') }), /first row \(line 1\) has the fields "time", "prompt", which are not a Mooncake trace's\. Known formats/);
  await assert.rejects(open({ path: fixture('azure-2023-code-head.csv'), format: 'mooncake' }), /the format given is mooncake \(JSONL\), but line 1 is not a JSON object/);
  await assert.rejects(open({ path: fixture('mooncake-readme.jsonl'), format: 'burstgpt' }), /is JSONL \(line 1 is a JSON object\), but the format given is burstgpt, whose files are CSV/);
  await assert.rejects(open({ path: fixture('burstgpt.csv'), format: 'azure' }), /its header \(line 1\) has no column "ContextTokens", "GeneratedTokens" \(it has "Timestamp", "Model"/);
  // A byte order mark and blank lines before the header are passed over; hash_ids are optional in Mooncake.
  const bom = await read({ path: file('\uFEFF\n\n{"timestamp": 5, "input_length": 3, "output_length": 2}\n\n{"timestamp": 7, "input_length": 4, "output_length": 1, "hash_ids": []}\n') });
  assert.deepEqual(bom.entries.map((e) => [e.line, e.atMs, e.hashIds]), [
    [3, 0, undefined],
    [5, 2, undefined],
  ]);
});

test('time scale, window and max requests: the slice is in the trace\'s own seconds, sending starts at its first row', async () => {
  const path = fixture('azure-2023-code-head.csv');
  const fast = await read({ path, timeScale: 2 });
  near(fast.entries.map((e) => e.atMs).slice(0, 3), [0, 26, 49.0945], 'atMs at 2x');
  near(fast.entries.map((e) => e.recordedMs).slice(0, 3), [0, 52, 98.189], 'recordedMs at 2x');

  const window = await read({ path, window: { startSec: 1, endSec: 1.5 }, timeScale: 0.5 });
  assert.deepEqual(window.entries.map((e) => e.line), [9, 10, 11, 12, 13]);
  near(window.entries.map((e) => e.atMs), [0, 566.542, 566.592, 765.762, 766.092], 'atMs at half speed');
  near(window.entries.map((e) => e.recordedMs), [1016.041, 1299.312, 1299.337, 1398.922, 1399.087], 'recordedMs');
  assert.equal(window.reader.stats.beforeWindow, 7);
  assert.equal(window.reader.stats.stoppedAt, 'window-end');
  assert.deepEqual(window.entries.map((e) => e.index), [0, 1, 2, 3, 4]);

  const open = await read({ path, window: { startSec: 1.3 } });
  assert.deepEqual(open.entries.map((e) => e.line), [12, 13, 14]);

  const first3 = await read({ path, window: { startSec: 0.1 }, maxRequests: 3 });
  assert.deepEqual(first3.entries.map((e) => e.line), [5, 6, 7]);
  assert.equal(first3.reader.stats.stoppedAt, 'max-requests');
  assert.equal(first3.reader.stats.rows, 6);

  await assert.rejects(read({ path, window: { startSec: 40, endSec: 50 } }), (error: unknown) => {
    assert.ok(error instanceof TraceError);
    assert.equal(error.message, `Trace file ${path} has no rows from 40 s to 50 s after its first row: the rows read run from 0 s to 29.479 s. Choose a window inside the trace.`);
    return true;
  });
  await assert.rejects(read({ path, window: { startSec: 2, endSec: 3 } }), /has no rows from 2 s to 3 s after its first row: the rows read run from 0 s to 29\.479 s/);
  assert.equal(TraceSourceSchema.safeParse({ path, window: { startSec: 3, endSec: 2 } }).success, false);
  assert.equal(TraceSourceSchema.safeParse({ path, timeScale: 0 }).success, false);
});

test('reading again starts over; a reader that stops early leaves the rest of a long file unread', async () => {
  const lines = Array.from({ length: 100_000 }, (_, i) => `{"timestamp": ${i * 10}, "input_length": ${(i % 900) + 1}, "output_length": ${(i % 7) + 1}, "hash_ids": [${i % 3}, ${i}]}`);
  const path = file(lines.join('\n') + '\n');
  const reader = await open({ path });
  let count = 0;
  let inputs = 0;
  let ids = 0;
  for await (const entry of reader.entries()) {
    count++;
    inputs += entry.inputTokens;
    ids += entry.hashIds?.[1] ?? 0;
    assert.equal(entry.atMs, (entry.line - 1) * 10);
  }
  // Every line across the 256 KiB chunks read whole.
  assert.equal(count, 100_000);
  assert.equal(inputs, lines.reduce((n, _, i) => n + (i % 900) + 1, 0));
  assert.equal(ids, (99_999 * 100_000) / 2);
  let taken = 0;
  for await (const entry of reader.entries()) {
    assert.equal(entry.index, taken);
    if (++taken === 5) break;
  }
  assert.equal(reader.stats.rows, 5);
});

/** A good Mooncake row at a time (ms). */
const good = (time: number): string => `{"timestamp": ${time}, "input_length": 100, "output_length": 10, "hash_ids": [1, 2]}`;

test('bad rows: each stops the reading with the file, the line, what is wrong and what to do', async () => {
  const cases: Array<[string, RegExp]> = [
    ['{"timestamp": 5, "input_length": 100', /line 2: is not JSON \(.+\): \{"timestamp": 5, "input_length": 100\. Fix or remove the row, or skip such rows and count them \(--skip-bad-rows on the command line, skipBadRows in the trace config\)\.$/],
    ['[1, 2, 3]', /line 2: is not a JSON object: \[1, 2, 3\]\. Fix or remove/],
    ['{"timestamp": 5, "input_length": 100}', /line 2: it has no "output_length" \(its fields: timestamp, input_length\)\. Fix/],
    ['{"timestamp": 5, "input_length": -3, "output_length": 10}', /line 2: its "input_length" is -3: input tokens are a whole number of at least 1\. Fix/],
    ['{"timestamp": 5, "input_length": 100, "output_length": 2.5}', /line 2: its "output_length" is 2\.5: output tokens are a whole number of at least 1\. Fix/],
    ['{"timestamp": 5, "input_length": 0, "output_length": 2}', /line 2: its "input_length" is 0: input tokens/],
    ['{"timestamp": 5, "input_length": "many", "output_length": 2}', /line 2: its "input_length" is "many": input tokens/],
    ['{"timestamp": "soon", "input_length": 1, "output_length": 2}', /line 2: its "timestamp" "soon" is not a number of milliseconds\. Fix/],
    ['{"timestamp": 4, "input_length": 1, "output_length": 2}', /line 2: its time is 6 ms before that of line 1; rows are replayed in file order, so times must not go backwards \(sort the file by time\)\. Fix/],
    ['{"timestamp": 15, "input_length": 1, "output_length": 2, "hash_ids": [1, -2]}', /line 2: its "hash_ids" \[1,-2\] is not a list of whole numbers of 0 or more\. Fix/],
    ['{"timestamp": 15, "input_length": 1, "output_length": 2, "hash_ids": "abc"}', /line 2: its "hash_ids" "abc" is not a list/],
  ];
  for (const [bad, expected] of cases) {
    const path = file(`${good(10)}\n${bad}\n${good(20)}\n`);
    const reader = await open({ path });
    const seen: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const entry of reader.entries()) seen.push(entry.line);
      })(),
      (error: unknown) => {
        assert.ok(error instanceof TraceError, bad);
        assert.ok(error.message.startsWith(`Trace file ${path} line 2: `), error.message);
        assert.match(error.message, expected);
        return true;
      },
    );
    assert.deepEqual(seen, [1], `the row before the bad one was given (${bad})`);
  }
  const csvCases: Array<[string, RegExp]> = [
    ['2023-11-16 18:17:05.0,"12,4', /line 3: it has a quote that is not closed: 2023-11-16 18:17:05\.0,"12,4\. Fix/],
    ['2023-11-16 18:17:05.0,12', /line 3: its "GeneratedTokens" \(field 3\) is missing: the row has 2 fields, the header 3\. Fix/],
    ['2023-11-16 18:17:05.0,,4', /line 3: its "ContextTokens" \(field 2\) is empty\. Fix/],
    ['2023-11-31 18:17:05.0,5,4', /line 3: its "TIMESTAMP" "2023-11-31 18:17:05\.0" is not a date and time such as 2023-11-16 18:17:03\.9799600/],
    ['2023-11-16 18:17:03.0,5,4', /line 3: its time is 979\.96 ms before that of line 2/],
  ];
  for (const [bad, expected] of csvCases) {
    const path = file(`TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,4808,10\n${bad}\n`, 'csv');
    await assert.rejects(read({ path }), (error: unknown) => error instanceof TraceError && error.message.startsWith(`Trace file ${path} line 3: `) && expected.test(error.message));
  }
});

test('bad rows with skipBadRows: skipped, counted by reason with their first line, and the good rows replayed', async () => {
  const rows = [
    good(0),
    'not json',
    '{"timestamp": 5, "input_length": 100}',
    good(10),
    '{"timestamp": 3, "input_length": 100, "output_length": 10}',
    '{"timestamp": 12, "input_length": 1.5, "output_length": 10}',
    '{"timestamp": 4, "input_length": 100, "output_length": 10}',
    good(20),
    '{"timestamp": 25, "input_length": 1, "output_length": 1, "hash_ids": [0.5]}',
  ];
  const { entries, reader } = await read({ path: file(rows.join('\n')), skipBadRows: true });
  assert.deepEqual(entries.map((e) => [e.line, e.atMs]), [
    [1, 0],
    [4, 10],
    [8, 20],
  ]);
  assert.deepEqual(reader.stats.skipped, {
    unparsable: { count: 1, firstLine: 2 },
    'missing-field': { count: 1, firstLine: 3 },
    'time-backwards': { count: 2, firstLine: 5 },
    'bad-length': { count: 1, firstLine: 6 },
    'bad-hash-ids': { count: 1, firstLine: 9 },
  });
  assert.equal(reader.stats.rows, 9);
  assert.equal(
    describeLeftOut(reader.path, reader.stats),
    `Trace file ${reader.path}: 6 bad rows were skipped: 1 unreadable as a row (line 2); 1 with a field missing (line 3); 2 with times going backwards (first at line 5); ` +
      '1 with a token count that is not a whole number of at least 1 (line 6); 1 with hash ids that are not a list of whole numbers (line 9).',
  );
  // Every row bad: the message says so and what was skipped.
  const path = file('{"timestamp": 1}\nnope\n');
  await assert.rejects(read({ path, format: 'mooncake', skipBadRows: true }), (error: unknown) => {
    assert.ok(error instanceof TraceError);
    assert.match(error.message, /has no rows to replay: 2 rows were read and none could be replayed\. Trace file .+: 2 bad rows were skipped: 1 with a field missing \(line 1\); 1 unreadable as a row \(line 2\)\.$/);
    return true;
  });
});

test('empty files, headers alone, a missing file and a folder get messages that say so', async () => {
  await assert.rejects(open({ path: file('') }), /is empty: it has no rows to replay\.$/);
  await assert.rejects(open({ path: file('\n  \n\n') }), /is empty: it has no rows to replay/);
  const header = file('Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n', 'csv');
  await assert.rejects(read({ path: header }), (error: unknown) => error instanceof TraceError && error.message === `Trace file ${header} has no rows to replay: it has only its header.`);
  const failedOnly = file('Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n3,ChatGPT,10,0,10,API log\n', 'csv');
  await assert.rejects(read({ path: failedOnly }), /has no rows to replay: 1 row was read and none could be replayed\. .+1 row records a request that failed \(0 response tokens\) and was left out \(line 2\)\./);
  await assert.rejects(open({ path: join(dir, 'missing.jsonl') }), (error: unknown) => error instanceof TraceError && /missing\.jsonl was not found\.$/.test(error.message));
  const folder = join(dir, 'folder.jsonl');
  mkdirSync(folder);
  await assert.rejects(open({ path: folder }), /folder\.jsonl is a folder, not a file/);
});

test('CSV lines: quoted fields hold commas and doubled quotes', () => {
  assert.deepEqual(parseCsvLine('a,"b,c",d'), ['a', 'b,c', 'd']);
  assert.deepEqual(parseCsvLine('"say ""hi""",,x'), ['say "hi"', '', 'x']);
  assert.deepEqual(parseCsvLine('1,"[7, 8]"'), ['1', '[7, 8]']);
  assert.deepEqual(parseCsvLine(''), ['']);
  assert.equal(parseCsvLine('1,"open'), null);
});
