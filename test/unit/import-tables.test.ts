/**
 * Users' own pages (issue 21, items 23 and 24): benchmark tables read by a vocabulary of metric
 * names (English and Chinese, abbreviated or written out, units in the header or in the cell,
 * transposed or not), and EvalScope's older printout with its percentile lines. The pages are in
 * test/helpers/import-samples.ts, each in a layout people use.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultDocumentSchema, type ResultDocument, type StepSummary } from '../../src/format/result';
import { importRuns } from '../../src/import';
import { importTextBlocks } from '../../src/import/text';
import { formatConcurrencyColumnsMarkdown, formatMarkdownTable } from '../../src/report/tables';
import { ENGINES_ZH, EVALSCOPE_OLD_ZH, GUIDELLM_01_CONSOLE, GUIDELLM_WORDS_WIKI, SEVERAL_TABLES, TRANSPOSED_ZH, UNITS_HEADER_AND_CELLS } from '../helpers/import-samples';

async function importText(text: string, name = 'page.md'): Promise<ResultDocument[]> {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-tables-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  const outcome = await importRuns([path]);
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
  return outcome.value.map((doc) => ResultDocumentSchema.parse(doc));
}

/** Figures compared to 1e-9 (2.03 s is 2029.9999999999998 ms in floating point). */
function near(actual: (number | null | undefined)[], expected: (number | null)[], what = ''): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((value, i) => {
    const want = expected[i] ?? null;
    if (want === null) assert.equal(value ?? null, null, `${what} [${i}]: ${value} is not null`);
    else assert.ok(typeof value === 'number' && Math.abs(value - want) <= 1e-9 * Math.max(1, Math.abs(want)), `${what} [${i}]: ${value} != ${want}`);
  });
}

const summaries = (run: ResultDocument | undefined): StepSummary[] => (run?.steps ?? []).map((step) => step.summary as StepSummary);
const notesOf = (run: ResultDocument | undefined): string => (run?.importedFrom?.notes ?? []).join('\n');
const labelsOf = (run: ResultDocument | undefined, keys: string[]) => keys.map((key) => run?.labels[key]);

test('GuideLLM\'s word table (before 0.2) copied into a wiki: a step per row, each figure\'s unit read from its cell', async () => {
  const runs = await importText(GUIDELLM_WORDS_WIKI, 'wiki.md');
  assert.equal(runs.length, 1);
  const [run] = runs;
  assert.equal(run?.importedFrom?.tool, 'GuideLLM');
  assert.deepEqual(run?.steps.map((s) => s.name), ['synchronous', 'asynchronous@1.57 req/sec', 'asynchronous@2.63 req/sec', 'throughput']);
  const [sync, , bold, max] = summaries(run);
  near([sync?.requestsPerSecond, sync?.latencyMs?.mean, sync?.ttftMs?.mean, sync?.tpotMs?.mean, sync?.outputTokensPerSecond], [0.51, 1960, 95.57, 7.31, 130.41], 'synchronous');
  assert.equal(sync?.itlMs, null, 'GuideLLM\'s "Inter Token Latency" is our TPOT, not our ITL');
  near([bold?.outputTokensPerSecond, max?.ttftMs?.mean, max?.outputTokensPerSecond, max?.latencyMs?.mean], [45.36, 6032.15, 1090.51, 10120], 'tokens/second, thousands separators');
  assert.deepEqual(labelsOf(run, ['model', 'gpus', 'gpu', 'engine', 'inputTokens', 'outputTokens']), ['Llama-3.1-8B-Instruct', '1', 'L40S 48GB', 'vllm', '512', '256']);
  assert.match(notesOf(run), /"Inter Token Latency" as TPOT mean/);
  assert.match(notesOf(run), /before 0\.2/);
});

test('GuideLLM 0.1\'s whole console report (panels, a header and cells wrapped over two lines): its four tables are one run', async () => {
  const collapsed = GUIDELLM_01_CONSOLE.replace(/ {2,}/g, ' ');
  for (const [variant, text] of [['as printed', GUIDELLM_01_CONSOLE], ['pasted with its spaces collapsed', collapsed]] as const) {
    const runs = await importText(text, 'guidellm.log');
    assert.equal(runs.length, 1, variant);
    const [run] = runs;
    assert.equal(run?.importedFrom?.tool, 'GuideLLM', variant);
    assert.deepEqual(run?.steps.map((s) => s.name), ['synchronous', 'asynchronous@1.57 req/sec', 'throughput'], variant);
    const [sync, rate, max] = summaries(run);
    assert.deepEqual([sync?.requests, rate?.requests], [{ total: 61, completed: 61, failed: 0 }, { total: 188, completed: 186, failed: 2 }], variant);
    near([sync?.durationSec, sync?.requestsPerSecond, sync?.outputTokensPerSecond], [120.13, 0.51, 130.41], `${variant}: requests table and summary`);
    near([sync?.latencyMs?.mean, sync?.latencyMs?.p50, sync?.latencyMs?.p90, sync?.latencyMs?.p95, sync?.latencyMs?.p99], [1960, 1960, 1990, 2000, 2030], `${variant}: latency`);
    near([sync?.ttftMs?.mean, sync?.ttftMs?.p50, sync?.ttftMs?.p90, sync?.ttftMs?.p95, sync?.ttftMs?.p99], [95.57, 94.8, 101.2, 104, 110.5], `${variant}: TTFT`);
    near([sync?.tpotMs?.mean, sync?.tpotMs?.p50, sync?.tpotMs?.p99], [7.31, 7.3, 7.7], `${variant}: ITL as TPOT`);
    near([sync?.inputTokens?.mean, sync?.inputTokens?.p50, sync?.inputTokens?.p95, sync?.inputTokens?.p99, sync?.outputTokens?.mean], [512.2, 512, 514, 515, 255.41], `${variant}: tokens`);
    near([rate?.ttftMs?.p95, rate?.ttftMs?.p99, max?.ttftMs?.p95, max?.ttftMs?.p99], [166.1, 201.9, 9702.3, 10411], `${variant}: a cell wrapped onto the next line`);
    assert.deepEqual(labelsOf(run, ['model', 'inputTokens', 'outputTokens']), ['mistralai/Mistral-7B-Instruct-v0.3', '512', '256'], variant);
    assert.match(notesOf(run), /no field for[^\n]*1%/, `${variant}: the 1%, 5% and 10% percentiles are kept in the notes`);
  }
});

test('a Chinese page comparing engines: a run per engine, 并发数 as the load, units from the headers, a blank engine cell repeats the row above', async () => {
  const runs = await importText(ENGINES_ZH);
  assert.deepEqual(
    runs.map((r) => [r.importedFrom?.tool, r.labels['engine'], r.steps.map((s) => s.name)]),
    [
      ['Benchmark table', 'vllm', ['concurrency@1', 'concurrency@16', 'concurrency@64']],
      ['Benchmark table', 'sglang', ['concurrency@1', 'concurrency@16', 'concurrency@64']],
      ['Benchmark table', 'lmdeploy', ['concurrency@1', 'concurrency@16']],
    ],
  );
  for (const run of runs) {
    assert.deepEqual(labelsOf(run, ['model', 'gpus', 'gpu', 'tp', 'inputTokens', 'outputTokens']), ['Qwen2.5-7B-Instruct', '2', 'A800 80GB', '2', '1024', '512']);
  }
  const [vllm, sglang, lmdeploy] = runs;
  const v16 = summaries(vllm)[1];
  near([v16?.outputTokensPerSecond, v16?.ttftMs?.mean, v16?.latencyMs?.mean, v16?.latencyMs?.p99, v16?.requestsPerSecond], [812.3, 120, 10050, 11920, 1.59], 'vLLM at 16');
  near([summaries(vllm)[2]?.outputTokensPerSecond, summaries(sglang)[1]?.outputTokensPerSecond], [1905, 901.7], 'thousands separator, bold cell');
  const l16 = summaries(lmdeploy)[1];
  near([l16?.ttftMs?.mean, l16?.latencyMs?.mean, l16?.latencyMs?.p99], [null, 9400, null], 'lmdeploy at 16: missing values stay missing');
  const notes = notesOf(lmdeploy);
  assert.match(notes, /首 token 延迟 \(ms\) "—"/);
  assert.match(notes, /P99 延迟 \(s\) "-"/);
  assert.match(notes, /line \d+ \(concurrency@64\)[^\n]*no figure/);
  assert.match(notes, /Not read[^\n]*"备注"/);
  assert.match(notes, /"吞吐量 \(tokens\/s\)"[^\n]*output tokens\/s/);
});

test('transposed tables under 提要 and 细节 (metrics as rows, loads as columns, full-width bars): one run, the two tables joined', async () => {
  const runs = await importText(TRANSPOSED_ZH);
  assert.equal(runs.length, 1);
  const [run] = runs;
  assert.deepEqual(run?.steps.map((s) => s.name), ['concurrency@1', 'concurrency@8', 'concurrency@32']);
  assert.deepEqual(labelsOf(run, ['model', 'gpus', 'gpu', 'engine', 'inputTokens', 'outputTokens']), ['DeepSeek-R1-Distill-Qwen-32B', '4', '910B', 'mindie', '1024', '1024']);
  const [, c8, c32] = summaries(run);
  near([c8?.ttftMs?.mean, c8?.ttftMs?.p99, c8?.latencyMs?.mean, c8?.latencyMs?.p99, c8?.tpotMs?.mean, c8?.outputTokensPerSecond, c8?.requestsPerSecond], [350, 480, 31600, 33000, 30.2, 259.1, 0.25], 'concurrency 8');
  near([c32?.ttftMs?.p99], [1530]);
  assert.match(notesOf(run), /Not read[^\n]*"显存占用"/);
});

test('a transposed table without units: bare column heads are concurrencies, Little\'s law says the latency is in seconds, bare p50/p90 rows are not read', async () => {
  const runs = await importText(EVALSCOPE_OLD_ZH);
  assert.deepEqual(runs.map((r) => [r.importedFrom?.tool, r.steps.length]), [['Benchmark table', 3], ['EvalScope perf', 2], ['EvalScope perf', 1]]);
  const [table] = runs;
  assert.deepEqual(table?.steps.map((s) => s.name), ['concurrency@8', 'concurrency@32', 'concurrency@128']);
  const [c8, , c128] = summaries(table);
  near([c8?.durationSec, c8?.requestsPerSecond, c8?.latencyMs?.mean, c8?.outputTokensPerSecond, c128?.latencyMs?.mean], [402.118, 2.487, 3198, 598.312, 6127]);
  assert.equal(c8?.latencyMs?.p50, null, 'a row named p50 names no metric');
  const notes = notesOf(table);
  assert.match(notes, /"延迟"[^\n]*seconds[^\n]*Little's law/);
  assert.match(notes, /bare number[^\n]*concurrenc/);
  assert.match(notes, /Not read[^\n]*"p50"[^\n]*"p90"/);
});

test('units in the header or in the cells read the same; a table without trailing pipes', async () => {
  const runs = await importText(UNITS_HEADER_AND_CELLS);
  assert.deepEqual(runs.map((r) => [r.labels['engine'], r.steps.map((s) => s.name)]), [['vllm', ['concurrency@1', 'concurrency@4', 'concurrency@16']], ['tgi', ['concurrency@1', 'concurrency@4', 'concurrency@16']]]);
  for (const run of runs) assert.deepEqual(labelsOf(run, ['model', 'gpus', 'gpu']), ['Mistral-7B-Instruct-v0.3', '1', 'A100 80GB']);
  const v16 = summaries(runs[0])[2];
  near([v16?.ttftMs?.mean, v16?.tpotMs?.mean, v16?.latencyMs?.mean, v16?.outputTokensPerSecond, v16?.totalTokensPerSecond], [64.2, 17, 4410, 928.9, 2789]);
  const t16 = summaries(runs[1])[2];
  near([t16?.ttftMs?.mean, t16?.tpotMs?.mean, t16?.latencyMs?.mean, t16?.outputTokensPerSecond], [81, 18.6, 4830, 848.1]);
});

test('a page of several tables: label columns make runs, hardware and accuracy tables are not benchmarks, unread columns are named', async () => {
  const runs = await importText(SEVERAL_TABLES);
  assert.deepEqual(runs.map((r) => [r.labels['engine'], r.steps.map((s) => s.name)]), [['vllm', ['concurrency@1', 'concurrency@32']], ['tgi', ['concurrency@1', 'concurrency@32']]]);
  for (const run of runs) assert.deepEqual(labelsOf(run, ['model', 'gpus', 'gpu']), ['Llama-3.1-8B-Instruct', '1', 'H100']);
  const v32 = summaries(runs[0])[1];
  near([v32?.ttftMs?.mean, v32?.ttftMs?.p99, v32?.itlMs?.mean, v32?.requestsPerSecond, v32?.outputTokensPerSecond], [58.1, 190.4, 11.5, 19.4, 3104]);
  assert.equal(v32?.tpotMs, null);
  assert.match(notesOf(runs[0]), /Not read[^\n]*"Notes"/);
  assert.match(notesOf(runs[0]), /"Model" as the model label/);
});

test('a table without loads takes its load from the line above it; without one it is named in the refusal', async () => {
  const table = `| Engine | TTFT (ms) | Output tok/s |\n|---|---|---|\n| vLLM | 35 | 1,200 |\n| SGLang | 31 | 1,350 |\n`;
  const refused = importTextBlocks({ path: 'loads.md', text: `# Qwen2-7B-Instruct\n\n${table}` });
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.error, /loads\.md: no benchmark result found[^]*line 3[^]*no load/);
  const runs = await importText(`# Qwen2-7B-Instruct\n\n## 并发 32\n\n${table}`);
  assert.deepEqual(runs.map((r) => [r.labels['engine'], r.steps.map((s) => s.name), r.steps[0]?.summary?.outputTokensPerSecond]), [['vllm', ['concurrency@32'], 1200], ['sglang', ['concurrency@32'], 1350]]);
  // Beside a table that imports, one without loads is named in the notes of what was imported.
  const [imported] = await importText(`${UNITS_HEADER_AND_CELLS}\n## Other engines\n\n${table}`);
  assert.match(notesOf(imported), /not imported: line \d+: a table of TTFT, output tokens\/s with no load/);
});

test('EvalScope\'s older printout: the percentiles under "Percentile of ..." lines are read; one package per request means it did not stream, so TTFT is unmeasured', async () => {
  const [, nonStreamed, streamed] = await importText(EVALSCOPE_OLD_ZH);
  assert.deepEqual(nonStreamed?.steps.map((s) => s.name), ['concurrency@8', 'concurrency@32']);
  const [c8, c32] = summaries(nonStreamed);
  near([c8?.latencyMs?.mean, c8?.latencyMs?.p50, c8?.latencyMs?.p66, c8?.latencyMs?.p90, c8?.latencyMs?.p99, c32?.latencyMs?.p99], [3198, 3231, 3740.2, 4952.2, 6837.7, 8050.1], 'latency percentiles');
  assert.equal(c8?.ttftMs, null, 'not streamed: the "time to first token" is the whole reply');
  assert.match(notesOf(nonStreamed), /package per request[^\n]*did not stream[^\n]*TTFT/);
  const s = summaries(streamed)[0];
  near([s?.ttftMs?.mean, s?.ttftMs?.p50, s?.ttftMs?.p99, s?.latencyMs?.p80, s?.latencyMs?.p99], [7, 2.1, 52.6, 7280.1, 7700.3], 'streamed');
  // The older printout's "Average time per output token" is the test's duration / all output tokens (1 / output tokens/s).
  assert.equal(s?.tpotMs, null);
  assert.match(notesOf(streamed), /"Average time per output token"[^\n]*not TPOT/);
});

test('a `# ...` comment inside a fenced code block is no heading: the section\'s labels stay in force', async () => {
  const table = (loads: number[], latency: number[]) =>
    `| 指标 | ${loads.join(' | ')} |\n| --- | ${loads.map(() => '---').join(' | ')} |\n| QPS | ${loads.map((c, i) => (c / (latency[i] ?? 1)).toFixed(3)).join(' | ')} |\n| 延迟 | ${latency.join(' | ')} |\n`;
  const page = `## 实验结果（vLLM）\n\n### Qwen1.5-7B-Chat\n\n${table([8, 16], [20.3, 21.5])}\n\`\`\`py\n# 数据\nconcurrency = [8, 16]\n\`\`\`\n\n### Qwen2.5-72B-Chat\n\n${table([16, 32], [53.4, 54.3])}`;
  const runs = await importText(page);
  assert.deepEqual(runs.map((r) => [r.labels['model'], r.labels['engine']]), [['Qwen1.5-7B-Chat', 'vllm'], ['Qwen2.5-72B-Chat', 'vllm']]);
});

test('a negative placeholder is no figure, and two rows of one load are both kept and named', async () => {
  const [run] = await importText('| Concurrency | TTFT (ms) | Output tok/s |\n|---|---|---|\n| 8 | -1 | 700 |\n| 8 | 40 | 710 |\n');
  assert.deepEqual(run?.steps.map((s) => [s.name, s.summary?.ttftMs?.mean ?? null]), [['concurrency@8', null], ['concurrency@8', 40]]);
  assert.match(notesOf(run), /TTFT \(ms\) "-1"/);
  assert.match(notesOf(run), /Lines 3 and 4 are both concurrency@8/);
});

test('LLM Bench\'s own Markdown layouts (GuideLLM\'s words table, concurrency columns) read back with the same figures', async () => {
  const [run] = await importText(UNITS_HEADER_AND_CELLS);
  assert.ok(run);
  // A request count and latency percentiles, which the concurrency-columns layout prints.
  run.steps.forEach((step, i) => {
    if (!step.summary?.latencyMs) return;
    step.summary.requests = { total: 100, completed: 100 - i, failed: i };
    step.summary.latencyMs = { ...step.summary.latencyMs, p50: step.summary.latencyMs.mean - 10, p90: step.summary.latencyMs.mean + 200 };
  });
  const [words] = await importText(formatMarkdownTable(run));
  const [columns] = await importText(formatConcurrencyColumnsMarkdown(run));
  assert.deepEqual(words?.steps.map((s) => s.name), run.steps.map((s) => s.name));
  assert.deepEqual(columns?.steps.map((s) => s.name), run.steps.map((s) => s.name));
  run.steps.forEach((step, i) => {
    const s = step.summary;
    const w = words?.steps[i]?.summary;
    const c = columns?.steps[i]?.summary;
    // The words table prints two decimals (latency in seconds); our TPOT is its "Inter Token Latency".
    near([w?.ttftMs?.mean, w?.tpotMs?.mean, w?.outputTokensPerSecond], [s?.ttftMs?.mean ?? null, s?.tpotMs?.mean ?? null, s?.outputTokensPerSecond ?? null], `words, ${step.name}`);
    assert.ok(Math.abs((w?.latencyMs?.mean ?? NaN) - (s?.latencyMs?.mean ?? NaN)) <= 5, `words latency ${w?.latencyMs?.mean}`);
    near([c?.outputTokensPerSecond, c?.latencyMs?.mean, c?.latencyMs?.p50, c?.latencyMs?.p90], [s?.outputTokensPerSecond ?? null, s?.latencyMs?.mean ?? null, s?.latencyMs?.p50 ?? null, s?.latencyMs?.p90 ?? null], `columns, ${step.name}`);
    assert.deepEqual(c?.requests, s?.requests);
  });
});

test('a transposed table under a Rate corner: its bare-number column heads are target rates', async () => {
  const [run] = await importText('| Rate | 0.5 | 2.5 |\n|---|---|---|\n| TTFT (ms) | 30 | 45 |\n| E2E (s) | 2.1 | 2.6 |\n');
  assert.deepEqual(run?.steps.map((s) => [s.name, s.summary?.ttftMs?.mean, s.summary?.latencyMs?.mean]), [['asynchronous@0.50 req/sec', 30, 2100], ['asynchronous@2.50 req/sec', 45, 2600]]);
  assert.match(notesOf(run), /bare number \(0\.5, 2\.5\) are read as target rates/);
});
