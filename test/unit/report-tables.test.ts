import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResultDocument, Stats, StepSummary } from '../../src/format/result';
import { ResultDocumentSchema } from '../../src/format/result';
import {
  formatConcurrencyColumnsMarkdown,
  formatMarkdownTable,
  formatTerminalTable,
  formatVllmBlock,
} from '../../src/report/tables';

function stats(mean: number, p50: number, p90: number, p99: number, count = 10): Stats {
  return { count, mean, std: 1, min: p50 / 2, max: p99 * 2, p50, p66: p50, p75: p90, p80: p90, p90, p95: p99, p98: p99, p99 };
}

function summary(overrides: Partial<StepSummary>): StepSummary {
  return {
    requests: { total: 20, completed: 19, failed: 1 },
    durationSec: 40,
    requestsPerSecond: 0.51,
    outputTokensPerSecond: 45.36,
    totalTokensPerSecond: 145.36,
    ttftMs: stats(95.57, 90, 120, 150),
    itlMs: stats(20, 18, 25, 40, 500),
    tpotMs: stats(21.5, 21, 24, 30),
    latencyMs: stats(1960, 1900, 2500, 3000, 19),
    queueMs: null,
    inputTokens: stats(200, 200, 200, 200, 19),
    outputTokens: stats(90, 90, 90, 90, 19),
    errors: { http: 1 },
    ...overrides,
  };
}

/** A hand-made sweep: three steps, the last one with metrics missing (as in an imported file). */
const doc: ResultDocument = ResultDocumentSchema.parse({
  schemaVersion: 1,
  tool: { name: 'llmbench', version: '0.1.0' },
  createdAt: '2025-01-01T00:00:00Z',
  endpoint: { baseUrl: 'http://127.0.0.1:8000/v1', api: 'chat', model: 'm' },
  labels: {},
  config: {},
  status: 'complete',
  steps: [
    { name: 'synchronous', profile: { kind: 'synchronous' }, summary: summary({}), requests: [] },
    {
      name: 'asynchronous@2.50 req/sec',
      profile: { kind: 'rate', rate: 2.5 },
      summary: summary({ requestsPerSecond: 2.43, latencyMs: stats(2345.6, 2300, 2900, 3500, 19), goodput: 1.25 }),
      requests: [],
    },
    {
      name: 'throughput',
      profile: { kind: 'throughput' },
      summary: summary({ ttftMs: null, tpotMs: null, itlMs: null, durationSec: null, outputTokensPerSecond: null, inputTokens: null, outputTokens: null }),
      requests: [],
    },
  ],
});

const cells = (line: string) => line.split('|').slice(1, -1).map((c) => c.trim());

test('markdown table: header, one row per step, units in every cell, n/a where missing', () => {
  const lines = formatMarkdownTable(doc).split('\n');
  assert.equal(lines[0], '| Benchmark | Requests per Second | Request Latency | Time to First Token | Inter Token Latency | Output Token Throughput |');
  assert.deepEqual(cells(lines[1] ?? ''), ['---', '---', '---', '---', '---', '---']);
  assert.deepEqual(cells(lines[2] ?? ''), ['synchronous', '0.51 req/sec', '1.96 sec', '95.57 ms', '21.50 ms', '45.36 tokens/second']);
  assert.deepEqual(cells(lines[3] ?? ''), ['asynchronous@2.50 req/sec', '2.43 req/sec', '2.35 sec', '95.57 ms', '21.50 ms', '45.36 tokens/second']);
  assert.deepEqual(cells(lines[4] ?? ''), ['throughput', '0.51 req/sec', '1.96 sec', 'n/a', 'n/a', 'n/a']);
  assert.equal(lines[5], '');
  assert.match(lines[6] ?? '', /ITL = time per output token after the first/);
});

test('terminal table: the live panel\'s table of means, aligned, in the views\' names, units and figures', () => {
  // It printed GuideLLM's names ("ITL" for TPOT), latency in seconds and figures without separators.
  const lines = formatTerminalTable(doc).trimEnd().split('\n');
  assert.deepEqual(cells(`|${lines[0]}|`), ['Benchmark', 'req/s', 'output tok/s', 'TTFT (mean, ms)', 'TPOT (mean, ms)', 'latency (mean, ms)', 'requests (ok / failed)']);
  assert.match(lines[1] ?? '', /^-+$/);
  assert.deepEqual(cells(`|${lines[2]}|`), ['synchronous', '0.51', '45', '95.6', '21.50', '1,960', '19 / 1']);
  assert.deepEqual(cells(`|${lines[3]}|`), ['asynchronous@2.50 req/sec', '2.43', '45', '95.6', '21.50', '2,346', '19 / 1']);
  assert.deepEqual(cells(`|${lines[4]}|`), ['throughput', '0.51', 'n/a', 'n/a', 'n/a', '1,960', '19 / 1']);
  // Aligned: every column separator sits at the same offset on every table line.
  const separators = (line: string) => [...line.matchAll(/ \| /g)].map((m) => m.index);
  for (const line of [lines[2], lines[3], lines[4]]) assert.deepEqual(separators(line ?? ''), separators(lines[0] ?? ''));
  assert.match(lines.at(-2) ?? '', /TPOT: time per output token after the first, which GuideLLM and AIPerf call ITL/);
  // A file written before steady windows says how its rates were taken, under the table.
  assert.match(lines.at(-1) ?? '', /^This file was written before steady windows: its rates are over each step's first send to its last completion/);
});

test('concurrency-as-columns table: one column per level, rows checked cell by cell', () => {
  const lines = formatConcurrencyColumnsMarkdown(doc).trimEnd().split('\n');
  assert.deepEqual(cells(lines[0] ?? ''), ['Concurrency', '1', '2.5 req/s', 'throughput']);
  const byLabel = new Map(lines.slice(2).map((l) => [cells(l)[0], cells(l).slice(1)]));
  assert.deepEqual(byLabel.get('Time taken'), ['40.00 s', '40.00 s', 'n/a']);
  assert.deepEqual(byLabel.get('QPS'), ['0.51 req/s', '2.43 req/s', '0.51 req/s']);
  assert.deepEqual(byLabel.get('Average latency'), ['1.960 s', '2.346 s', '1.960 s']);
  assert.deepEqual(byLabel.get('Output throughput'), ['45.36 tok/s', '45.36 tok/s', 'n/a']);
  assert.deepEqual(byLabel.get('Latency p50'), ['1.900 s', '2.300 s', '1.900 s']);
  assert.deepEqual(byLabel.get('Latency p90'), ['2.500 s', '2.900 s', '2.500 s']);
  assert.deepEqual(byLabel.get('Failures'), ['1 of 20', '1 of 20', '1 of 20']);
});

test("vLLM block: vLLM's headings and 40-column labels, values from the step", () => {
  const block = formatVllmBlock(doc, 1);
  const lines = block.trimEnd().split('\n');
  assert.equal(lines[0], '============ Serving Benchmark Result ============');
  assert.equal(lines.at(-1), '='.repeat(50));
  const value = (label: string) => {
    const line = lines.find((l) => l.startsWith(label));
    assert.ok(line, `line ${label}`);
    assert.equal(line.indexOf(line.slice(41).trim()), 41, 'value starts at column 41');
    return line.slice(41).trim();
  };
  assert.equal(value('Successful requests:'), '19');
  assert.equal(value('Failed requests:'), '1');
  assert.equal(value('Request rate configured (RPS):'), '2.50');
  assert.equal(value('Benchmark duration (s):'), '40.00');
  assert.equal(value('Total input tokens:'), '3800');
  assert.equal(value('Total generated tokens:'), '1710');
  assert.equal(value('Request throughput (req/s):'), '2.43');
  assert.equal(value('Request goodput (req/s):'), '1.25');
  assert.equal(value('Output token throughput (tok/s):'), '45.36');
  assert.equal(value('Total token throughput (tok/s):'), '145.36');
  assert.ok(lines.includes('---------------Time to First Token----------------'));
  assert.ok(lines.includes('-----Time per Output Token (excl. 1st token)------'));
  assert.ok(lines.includes('---------------Inter-token Latency----------------'));
  assert.ok(lines.includes('----------------End-to-end Latency----------------'));
  assert.equal(value('Mean TTFT (ms):'), '95.57');
  assert.equal(value('Median TPOT (ms):'), '21.00');
  assert.equal(value('P99 ITL (ms):'), '40.00');
  assert.equal(value('Mean E2EL (ms):'), '2345.60');
});

test('vLLM block: no goodput line without an SLO, n/a for missing values, totals from throughput when no token stats', () => {
  const lines = formatVllmBlock(doc, 2).split('\n');
  assert.ok(!lines.some((l) => l.startsWith('Request goodput')));
  const value = (label: string) => lines.find((l) => l.startsWith(label))?.slice(41).trim();
  assert.equal(value('Benchmark duration (s):'), 'n/a');
  assert.equal(value('Total generated tokens:'), 'n/a');
  assert.equal(value('Mean TTFT (ms):'), 'n/a');
  assert.equal(value('Mean E2EL (ms):'), '1960.00');
  assert.throws(() => formatVllmBlock(doc, 3), /step 3 does not exist/);
});
