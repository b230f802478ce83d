/**
 * Text import (issue 11, section 1): benchmark printouts inside notes, logs and pasted text. The
 * sample texts are written here in each tool's print layout (vLLM benchmarks/serve.py and
 * vllm/benchmarks/serve.py across versions; EvalScope perf's benchmark_util/log_utils summary as
 * lines and as a tabulate grid with its percentile table; GuideLLM's console and Markdown tables),
 * with English and Chinese context lines, bold markers, `:---:` rows and noise between blocks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseResultDocument, ResultDocumentSchema, type ResultDocument } from '../../src/format/result';
import { importRuns } from '../../src/import';
import { importTextBlocks } from '../../src/import/text';
import { readLineContext } from '../../src/import/text-context';
import { buildResultView } from '../../src/views/result';

const repoRoot = process.env['LLMBENCH_ROOT'] ?? process.cwd();

/** vLLM's block as `vllm bench serve` prints it in 2025: failed count, concurrency, peak figures, asked percentiles, E2EL. */
function vllmBlock2025(o: { concurrency: number; ttft: number; duration: string }): string {
  return `Maximum request concurrency: ${o.concurrency}
100%|██████████████████████████████████████████| 200/200 [00:35<00:00,  5.62it/s]
============ Serving Benchmark Result ============
Successful requests:                     200       
Failed requests:                         0         
Maximum request concurrency:             ${o.concurrency}         
Benchmark duration (s):                  ${o.duration}     
Total input tokens:                      102400    
Total generated tokens:                  25600     
Request throughput (req/s):              5.62      
Output token throughput (tok/s):         1,187.02    
Peak output token throughput (tok/s):    1408.00   
Peak concurrent requests:                16.00     
Total Token throughput (tok/s):          3594.52   
---------------Time to First Token----------------
Mean TTFT (ms):                          ${o.ttft}     
Median TTFT (ms):                        80.02     
P90 TTFT (ms):                           150.50    
P99 TTFT (ms):                           190.44    
P99.9 TTFT (ms):                         201.00    
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          10.55     
Median TPOT (ms):                        10.41     
P90 TPOT (ms):                           11.80     
P99 TPOT (ms):                           12.90     
---------------Inter-token Latency----------------
Mean ITL (ms):                           10.52     
Median ITL (ms):                         9.98      
P90 ITL (ms):                            14.00     
P99 ITL (ms):                            25.31     
----------------End-to-end Latency----------------
Mean E2EL (ms):                          1425.30   
Median E2EL (ms):                        1400.10   
P90 E2EL (ms):                           1600.00   
P99 E2EL (ms):                           1802.77   
==================================================`;
}

/** benchmark_serving.py of 2024 (v0.4/v0.5): no failed count, input token throughput, TTFT and TPOT only. */
const vllmBlock2024 = `Traffic request rate: 4.0
============ Serving Benchmark Result ============
Successful requests:                     1000      
Benchmark duration (s):                  261.09    
Total input tokens:                      215196    
Total generated tokens:                  185671    
Request throughput (req/s):              3.83      
Input token throughput (tok/s):          824.23    
Output token throughput (tok/s):         711.14    
---------------Time to First Token----------------
Mean TTFT (ms):                          52.31     
Median TTFT (ms):                        47.82     
P99 TTFT (ms):                           128.77    
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          21.40     
Median TPOT (ms):                        20.98     
P99 TPOT (ms):                           37.11     
==================================================`;

const NOTES = `# 推理框架对比 / Inference engines compared

Written after the May tests. Numbers below are copied from the terminal.

- **Qwen2-7B-Instruct-AWQ**, **2** x **L20 48GB**, **SGLang**, prompt_tokens=512, generated_tokens=128

\`\`\`
${vllmBlock2025({ concurrency: 8, ttft: 85.21, duration: '35.61' })}
\`\`\`

Some noise between runs: the GPU fan was loud; \`nvidia-smi\` showed 98% util.

\`\`\`
${vllmBlock2025({ concurrency: 32, ttft: 150.1, duration: '14.20' })}
\`\`\`

## 4张A100 80GB，vLLM 0.4.2，TP=4，模型 Meta-Llama-3-70B-Instruct-GPTQ-Int4，输入=1024，输出=256

${vllmBlock2024}

## Qwen1.5-14B-Chat-FP8 on 1 x H100 80GB with lmdeploy

2024-06-01 12:00:00,000 - evalscope - INFO - Benchmarking summary: 
 Time taken for tests: 10.739 seconds
 Expected number of requests: 100
 Number of concurrency: 10
 Total requests: 100
 Succeed requests: 98
 Failed requests: 2
 Average QPS: 9.125
 Average latency: 1.055
 Throughput(average output tokens per second): 1,234.5
 Average time to first token: 0.123
 Average input tokens per request: 123.4
 Average output tokens per request: 234.5
 Average time per output token: 0.0043
 Average package per request: 234.5
 Average package latency: 0.004

### Qwen2.5-32B-Instruct, TGI, 8 x H20

2025-01-10 08:00:00,000 - evalscope - INFO - Benchmarking summary:
+-----------------------------------+-----------+
| Key                               |     Value |
+===================================+===========+
| Time taken for tests (s)          |   92.66   |
+-----------------------------------+-----------+
| Number of concurrency             |   64      |
+-----------------------------------+-----------+
| Total requests                    |  1000     |
+-----------------------------------+-----------+
| Succeed requests                  |  1000     |
+-----------------------------------+-----------+
| Failed requests                   |     0     |
+-----------------------------------+-----------+
| Output token throughput (tok/s)   | 2,474.9   |
+-----------------------------------+-----------+
| Total token throughput (tok/s)    | 3,600.2   |
+-----------------------------------+-----------+
| Request throughput (req/s)        |   10.79   |
+-----------------------------------+-----------+
| Average latency (s)               |    5.9102 |
+-----------------------------------+-----------+
| Average time to first token (s)   |    0.4100 |
+-----------------------------------+-----------+
| Average time per output token (s) |    0.0240 |
+-----------------------------------+-----------+
| Average inter-token latency (s)   |    0.0238 |
+-----------------------------------+-----------+
| Average input tokens per request  |  104.3    |
+-----------------------------------+-----------+
| Average output tokens per request |  229.4    |
+-----------------------------------+-----------+
2025-01-10 08:00:00,001 - evalscope - INFO - Percentile results:
+------------+----------+----------+---------+-------------+--------------+---------------+
| Percentile | TTFT (s) | TPOT (s) | ITL (s) | Latency (s) | Input tokens | Output tokens |
+------------+----------+----------+---------+-------------+--------------+---------------+
|    10%     |  0.1000  |  0.0200  | 0.0150  |   4.0000    |      98      |      200      |
|    25%     |  0.2000  |  0.0220  | 0.0180  |   5.0000    |     101      |      215      |
|    50%     |  0.3500  |  0.0240  | 0.0220  |   5.8000    |     104      |      230      |
|    66%     |  0.4200  |  0.0245  | 0.0240  |   6.1000    |     106      |      235      |
|    90%     |  0.7000  |  0.0260  | 0.0300  |   7.2000    |     110      |      250      |
|    99%     |  0.9500  |  0.0290  | 0.0500  |   8.5000    |     118      |      256      |
+------------+----------+----------+---------+-------------+--------------+---------------+

## Llama-3.1-8B-Instruct · 1 x L40S · vLLM · input_len=256, output_len=256 (GuideLLM sweep, copied into Markdown)

| Benchmark | Requests/s | Concurrency | Out Tok/s | TTFT mean (ms) | TTFT p99 (ms) | ITL mean (ms) | ITL p99 (ms) | Latency mean (s) | Latency p99 (s) |
|:---:|:---:|:---:|:---:|:---:|:---:|:---:|:---:|:---:|:---:|
| **synchronous** | 0.56 | 1.00 | 142.0 | 50.1 | 61.2 | 6.8 | 7.2 | 1.78 | 1.90 |
| constant@2.50 | 2.41 | 4.7 | 601.3 | 1090.02 sec | 90.3 | 7.9 | 9.1 | 220.06 sec | 2.41 |
| throughput | 10.2 | 64.0 | 2,480.9 | 800.4 | N/A | 20.1 | 25.0 | 6.30 | 8.10 |
`;

async function importText(text: string, name = 'notes.md'): Promise<ResultDocument[]> {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-text-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  const outcome = await importRuns([path]);
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
  return outcome.value.map((doc) => ResultDocumentSchema.parse(doc));
}

/** The labels a context line gave (what the source states), without the tool's own `source` label. */
const contextLabels = (doc: ResultDocument) => Object.fromEntries(Object.entries(doc.labels).filter(([key]) => key !== 'source'));

test('a Markdown page of notes: one run per context, blocks under one context are its steps, labels from the context lines', async () => {
  const runs = await importText(NOTES);
  assert.deepEqual(
    runs.map((r) => [r.importedFrom?.tool, r.steps.length]),
    [['vllm bench serve', 2], ['vllm bench serve', 1], ['EvalScope perf', 1], ['EvalScope perf', 1], ['GuideLLM', 3]],
  );
  const [sglang, llama70, evalLine, evalGrid, guidellm] = runs as [ResultDocument, ResultDocument, ResultDocument, ResultDocument, ResultDocument];
  assert.deepEqual(contextLabels(sglang), {
    model: 'Qwen2-7B-Instruct-AWQ',
    quantization: 'awq',
    gpus: '2',
    gpu: 'L20 48GB',
    engine: 'sglang',
    inputTokens: '512',
    outputTokens: '128',
    requests: '200',
  });
  assert.deepEqual(contextLabels(llama70), {
    model: 'Meta-Llama-3-70B-Instruct-GPTQ-Int4',
    quantization: 'gptq-int4',
    gpus: '4',
    gpu: 'A100 80GB',
    tp: '4',
    engine: 'vllm',
    inputTokens: '1024',
    outputTokens: '256',
    requests: '1000',
  });
  assert.equal(evalLine.labels['engine'], 'lmdeploy');
  assert.equal(evalLine.labels['quantization'], 'fp8');
  assert.deepEqual([evalLine.labels['gpus'], evalLine.labels['gpu']], ['1', 'H100 80GB']);
  // A deeper heading naming another model and machine replaces those labels, not just adds to them.
  assert.deepEqual(
    [evalGrid.labels['model'], evalGrid.labels['quantization'], evalGrid.labels['engine'], evalGrid.labels['gpus'], evalGrid.labels['gpu']],
    ['Qwen2.5-32B-Instruct', undefined, 'tgi', '8', 'H20'],
  );
  assert.equal(guidellm.labels['model'], 'Llama-3.1-8B-Instruct');
  assert.equal(guidellm.endpoint.model, 'Llama-3.1-8B-Instruct');

  // Each run names the lines it came from (1-based): from its context line to its last block line.
  const lines = NOTES.split('\n');
  for (const run of runs) {
    const range = run.importedFrom?.lines;
    assert.ok(range, 'a text run has a line range');
    const first = lines[range.first - 1] ?? '';
    assert.ok(readLineContext(first).run['model'], `line ${range.first} is the run's context line: ${first}`);
  }
  assert.match(lines[(sglang.importedFrom?.lines?.last ?? 0) - 1] ?? '', /^=+$/);
  // The result view names the lines beside the file.
  const view = buildResultView({ document: sglang, unfinishedSteps: [] }, 'run.llmbench.json');
  assert.match(view.summary.importedFrom ?? '', new RegExp(`notes\\.md lines ${sglang.importedFrom?.lines?.first}-${sglang.importedFrom?.lines?.last}$`));
  assert.match(lines[(evalGrid.importedFrom?.lines?.last ?? 0) - 1] ?? '', /^\+-+/);
});

test('vLLM blocks: every figure in ms, thousands separators read, percentiles kept by name, absent ones null', async () => {
  const [sglang, llama70] = await importText(NOTES);
  const [light, heavy] = sglang?.steps ?? [];
  assert.deepEqual([light?.name, heavy?.name], ['concurrency@8', 'concurrency@32']);
  const s = light?.summary;
  assert.deepEqual(s?.requests, { total: 200, completed: 200, failed: 0 });
  assert.equal(s?.durationSec, 35.61);
  assert.equal(s?.outputTokensPerSecond, 1187.02);
  assert.equal(s?.peakOutputTokensPerSecond, 1408);
  assert.equal(s?.inputTokens?.mean, 512);
  assert.deepEqual(
    [s?.ttftMs?.mean, s?.ttftMs?.p50, s?.ttftMs?.p90, s?.ttftMs?.p99, s?.ttftMs?.p95, s?.ttftMs?.std, s?.ttftMs?.count],
    [85.21, 80.02, 150.5, 190.44, null, null, 200],
  );
  assert.equal(s?.itlMs?.p90, 14);
  assert.equal(s?.latencyMs?.p99, 1802.77);
  assert.equal(heavy?.summary?.ttftMs?.mean, 150.1);
  assert.ok(sglang?.importedFrom?.notes.some((n) => /P99\.9 TTFT \(ms\) 201\.00/.test(n)), 'a percentile outside our set is kept in the notes');

  // The 2024 layout: a rate step (the "Traffic request rate" line above it), no ITL or E2EL.
  const old = llama70?.steps[0];
  assert.equal(old?.name, 'asynchronous@4.00 req/sec');
  assert.equal(old?.summary?.durationSec, 261.09);
  assert.equal(old?.summary?.tpotMs?.p99, 37.11);
  assert.equal(old?.summary?.itlMs, null);
  assert.equal(old?.summary?.latencyMs, null);
});

test('EvalScope summaries: the old line form and the grid with its percentile table, seconds to ms', async () => {
  const [, , line, grid] = await importText(NOTES);
  const a = line?.steps[0]?.summary;
  assert.equal(line?.steps[0]?.name, 'concurrency@10');
  assert.deepEqual(a?.requests, { total: 100, completed: 98, failed: 2 });
  assert.equal(a?.durationSec, 10.739);
  assert.equal(a?.requestsPerSecond, 9.125);
  assert.equal(a?.outputTokensPerSecond, 1234.5);
  assert.ok(Math.abs((a?.latencyMs?.mean ?? 0) - 1055) < 1e-9);
  assert.ok(Math.abs((a?.ttftMs?.mean ?? 0) - 123) < 1e-9);
  // This printout's "Average time per output token" is the test's duration / all output tokens (EvalScope before November 2024).
  assert.equal(a?.tpotMs, null);
  assert.ok(line?.importedFrom?.notes.some((n) => /"Average time per output token"[^\n]*not TPOT/.test(n)));
  assert.equal(a?.ttftMs?.p50, null, 'no percentile table: no percentiles');

  const b = grid?.steps[0]?.summary;
  assert.equal(grid?.steps[0]?.name, 'concurrency@64');
  assert.equal(b?.totalTokensPerSecond, 3600.2);
  const near = (actual: number | null | undefined, expected: number) => assert.ok(Math.abs((actual ?? NaN) - expected) < 1e-9, `${actual} != ${expected}`);
  near(b?.ttftMs?.mean, 410);
  near(b?.ttftMs?.p50, 350);
  near(b?.ttftMs?.p66, 420);
  near(b?.ttftMs?.p99, 950);
  near(b?.itlMs?.p90, 30);
  near(b?.latencyMs?.p90, 7200);
  assert.equal(b?.outputTokens?.p99, 256);
  assert.equal(b?.ttftMs?.p95, null);
  assert.ok(grid?.importedFrom?.notes.some((n) => /no field for .*10% TTFT \(s\) 0\.1 .*; 25% TTFT \(s\) 0\.2 /.test(n)), 'the 10% and 25% rows are kept in the notes');
});

test('GuideLLM Markdown table: a step per row, GuideLLM ITL as our TPOT, a broken cell kept and flagged, N/A is n/a', async () => {
  const guidellm = (await importText(NOTES)).at(-1);
  assert.deepEqual(guidellm?.steps.map((s) => s.name), ['synchronous', 'asynchronous@2.50 req/sec', 'throughput']);
  const [sync, rate, throughput] = guidellm?.steps ?? [];
  assert.equal(sync?.summary?.requestsPerSecond, 0.56);
  assert.equal(sync?.summary?.achievedConcurrency, 1);
  assert.equal(sync?.summary?.tpotMs?.mean, 6.8);
  assert.equal(sync?.summary?.itlMs, null);
  assert.equal(sync?.summary?.latencyMs?.mean, 1780);
  assert.equal(throughput?.summary?.outputTokensPerSecond, 2480.9);
  assert.equal(throughput?.summary?.ttftMs?.p99, null);
  // "1090.02 sec" in a row whose latency is "220.06 sec": kept (converted to ms), and flagged.
  assert.equal(rate?.summary?.ttftMs?.mean, 1_090_020);
  assert.equal(rate?.summary?.latencyMs?.mean, 220_060);
  const notes = guidellm?.importedFrom?.notes ?? [];
  const rowLine = NOTES.split('\n').findIndex((l) => l.startsWith('| constant@2.50')) + 1;
  assert.ok(notes.some((n) => n.includes(`asynchronous@2.50 req/sec (line ${rowLine}): TTFT mean 1090020 ms is longer than the latency mean 220060 ms`)), notes.join('\n'));
  assert.ok(notes.some((n) => /TTFT p99 \(ms\) "N\/A"/.test(n)));
});

test('GuideLLM console tables: the grouped "Benchmarks Stats" table and a box-drawn one', async () => {
  const console = `guidellm benchmark --target http://localhost:8000 --rate-type sweep --max-seconds 30
Benchmarks Stats:
=======================================================================================================================================================
Metadata     | Request Stats         || Out Tok/sec| Tot Tok/sec| Req Latency (ms)||| TTFT (ms)          ||| ITL (ms)        ||| TPOT (ms)       ||
    Benchmark| Per Second| Concurrency|        mean|        mean| mean| median|  p99|  mean| median|    p99| mean| median|  p99| mean| median|  p99
-------------|-----------|------------|------------|------------|-----|-------|-----|------|-------|-------|-----|-------|-----|-----|-------|-----
  synchronous|       0.23|        1.00|        58.7|       293.7| 4.36|   4.27| 4.91|  59.8|   59.1|   63.1| 16.8|   16.5| 19.0| 16.8|   16.5| 18.9
   throughput|       3.89|       29.65|       996.1|      4979.5| 7.62|   7.62| 7.68| 817.7|  784.0| 1387.9| 26.7|   26.8| 29.3| 26.6|   26.7| 29.2
constant@0.69|       0.65|        2.93|       165.1|       825.3| 4.54|   4.57| 4.58|  71.9|   73.5|   80.0| 17.3|   17.1| 18.0| 17.2|   17.0| 17.9
=======================================================================================================================================================
`;
  const [run] = await importText(console, 'guidellm.log');
  assert.equal(run?.importedFrom?.tool, 'GuideLLM');
  assert.deepEqual(run?.steps.map((s) => s.name), ['synchronous', 'asynchronous@0.69 req/sec', 'throughput']);
  const sync = run?.steps[0]?.summary;
  assert.deepEqual([sync?.requestsPerSecond, sync?.achievedConcurrency, sync?.outputTokensPerSecond, sync?.totalTokensPerSecond], [0.23, 1, 58.7, 293.7]);
  assert.deepEqual([sync?.ttftMs?.mean, sync?.ttftMs?.p50, sync?.ttftMs?.p99], [59.8, 59.1, 63.1]);
  assert.deepEqual([sync?.tpotMs?.mean, sync?.tpotMs?.p50, sync?.tpotMs?.p99], [16.8, 16.5, 19]);
  // The console heads latency "(ms)" but prints seconds.
  assert.deepEqual([sync?.latencyMs?.mean, sync?.latencyMs?.p99], [4360, 4910]);
  assert.ok(run?.importedFrom?.notes.some((n) => /prints seconds/.test(n)));
  assert.equal(run?.labels['model'], undefined, 'no context line: no model label');

  const box = `### DeepSeek-R1-Distill-Qwen-7B, 2 x A10 24GB, XInference
┏━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Benchmark     ┃ Requests/s ┃ TTFT mean (ms) ┃ TTFT p90 (ms)  ┃ ITL p99 (ms)  ┃ Latency mean  ┃
┃               ┃            ┃                ┃                ┃               ┃ (s)           ┃
┡━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ synchronous   │ 0.41       │ 95.2           │ 120.0          │ 22.1          │ 2.41          │
│ concurrent@16 │ 4.80       │ 310.7          │ 505.5          │ 31.9          │ 3.30          │
└───────────────┴────────────┴────────────────┴────────────────┴───────────────┴───────────────┘`;
  const [boxed] = await importText(box, 'pasted.txt');
  assert.deepEqual(boxed?.steps.map((s) => s.name), ['synchronous', 'concurrency@16']);
  assert.equal(boxed?.steps[1]?.summary?.ttftMs?.p90, 505.5);
  assert.equal(boxed?.steps[1]?.summary?.latencyMs?.mean, 3300, 'a header wrapped over two lines still names the unit');
  assert.equal(boxed?.steps[1]?.summary?.tpotMs, null);
  assert.ok(boxed?.importedFrom?.notes.some((n) => /without their mean.*tpotMs p99/.test(n)), 'a p99 without a mean is named, not silently lost');
  assert.deepEqual([boxed?.labels['engine'], boxed?.labels['gpus'], boxed?.labels['gpu']], ['xinference', '2', 'A10 24GB']);
});

test('SGLang bench_serving\'s block (vLLM\'s layout with lines of its own) is a run of its own tool', async () => {
  const sglang = `## DeepSeek-V3, 8 x H200, SGLang
============ Serving Benchmark Result ============
Backend:                                 sglang-oai-chat
Traffic request rate:                    inf       
Max request concurrency:                 32        
Successful requests:                     320       
Benchmark duration (s):                  88.40     
Total input tokens:                      327680    
Total generated tokens:                  81920     
Total generated tokens (retokenized):    81877     
Request throughput (req/s):              3.62      
Input token throughput (tok/s):          3706.79   
Output token throughput (tok/s):         926.70    
Total token throughput (tok/s):          4633.49   
Concurrency:                             31.42     
----------------End-to-End Latency----------------
Mean E2E Latency (ms):                   8679.25   
Median E2E Latency (ms):                 8650.01   
P90 E2E Latency (ms):                    9100.40   
P99 E2E Latency (ms):                    9700.77   
---------------Time to First Token----------------
Mean TTFT (ms):                          702.11    
Median TTFT (ms):                        640.50    
P99 TTFT (ms):                           1500.02   
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          31.30     
Median TPOT (ms):                        31.10     
P99 TPOT (ms):                           35.90     
---------------Inter-Token Latency----------------
Mean ITL (ms):                           31.28     
Median ITL (ms):                         30.02     
P95 ITL (ms):                            40.11     
P99 ITL (ms):                            80.54     
Max ITL (ms):                            1210.33   
==================================================
`;
  const [run] = await importText(sglang, 'sglang.md');
  assert.equal(run?.importedFrom?.tool, 'SGLang bench_serving');
  assert.equal(run?.labels['source'], 'SGLang bench_serving');
  assert.equal(run?.labels['engine'], 'sglang');
  const s = run?.steps[0]?.summary;
  assert.equal(run?.steps[0]?.name, 'concurrency@32');
  assert.equal(s?.achievedConcurrency, 31.42);
  assert.deepEqual([s?.latencyMs?.mean, s?.latencyMs?.p50, s?.latencyMs?.p90, s?.latencyMs?.p99], [8679.25, 8650.01, 9100.4, 9700.77]);
  assert.deepEqual([s?.itlMs?.p95, s?.itlMs?.max], [40.11, 1210.33]);
  assert.equal(s?.ttftMs?.max, null);
  assert.ok(run?.importedFrom?.notes[0]?.startsWith('Printed by SGLang\'s bench_serving'));
});

test('EvalScope\'s Performance Test Summary Report: the model from its Basic Information, a step per concurrency', async () => {
  const report = `╭──────────────────────────────────────────────────────────────────────────────╮
│ Performance Test Summary Report                                              │
╰──────────────────────────────────────────────────────────────────────────────╯

Basic Information:
┌───────────────────────────┬──────────────────────────────────────────────────┐
│ Model                     │ Qwen2.5-7B-Instruct-AWQ                          │
│ Test Dataset              │ openqa                                           │
│ API Type                  │ openai                                           │
│ Total Generated           │ 98,304 tokens                                    │
│ Total Test Time           │ 120.55 seconds                                   │
│ Avg Output Rate           │ 815.46 tokens/sec                                │
└───────────────────────────┴──────────────────────────────────────────────────┘


                                    Detailed Performance Metrics
┏━━━━━━━┳━━━━━━┳━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━━┓
┃ Conc. ┃ Rate ┃   RPS ┃ Avg Lat.(s) ┃ P99 Lat.(s) ┃ Avg TTFT(s) ┃ P99 TTFT(s) ┃ Avg TPOT(s) ┃ P99 TPOT(s) ┃ Gen. toks/s ┃ Success Rate ┃
┡━━━━━━━╇━━━━━━╇━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━━┩
│     1 │  INF │  0.42 │       2.380 │       2.512 │       0.051 │       0.090 │       0.018 │       0.019 │      107.53 │       100.0% │
│    10 │  INF │  3.12 │       3.201 │       4.007 │       0.133 │       0.402 │       0.024 │       0.031 │      799.10 │       100.0% │
│    50 │  INF │  6.80 │       7.355 │       9.870 │       0.951 │       2.733 │       0.052 │       0.070 │     1740.61 │        98.0% │
└───────┴──────┴───────┴─────────────┴─────────────┴─────────────┴─────────────┴─────────────┴─────────────┴─────────────┴──────────────┘
`;
  const [run] = await importText(report, 'performance_summary.txt');
  assert.equal(run?.importedFrom?.tool, 'EvalScope perf');
  assert.deepEqual([run?.labels['model'], run?.labels['quantization']], ['Qwen2.5-7B-Instruct-AWQ', 'awq']);
  assert.deepEqual(run?.steps.map((s) => s.name), ['concurrency@1', 'concurrency@10', 'concurrency@50']);
  const heavy = run?.steps[2]?.summary;
  assert.deepEqual([heavy?.requestsPerSecond, heavy?.outputTokensPerSecond], [6.8, 1740.61]);
  assert.deepEqual([heavy?.latencyMs?.mean, heavy?.latencyMs?.p99, heavy?.ttftMs?.mean, heavy?.ttftMs?.p99, heavy?.tpotMs?.mean, heavy?.tpotMs?.p99], [7355, 9870, 951, 2733, 52, 70]);
  assert.equal(heavy?.ttftMs?.p50, null);
});

test('context lines: stated labels only, in English and Chinese', () => {
  const read = (line: string) => readLineContext(line).run;
  assert.deepEqual(read('- **Qwen2-7B-Instruct-AWQ**, **2** x **L20 48GB**, **SGLang**, prompt_tokens=512, generated_tokens=128'), {
    model: 'Qwen2-7B-Instruct-AWQ',
    quantization: 'awq',
    gpus: '2',
    gpu: 'L20 48GB',
    engine: 'sglang',
    inputTokens: '512',
    outputTokens: '128',
  });
  assert.deepEqual(read('4张A100，MindIE'), { gpus: '4', gpu: 'A100', engine: 'mindie' });
  assert.deepEqual(read('TP=4, Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8'), { model: 'Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8', quantization: 'gptq-int8', tp: '4', gpus: '4' });
  assert.deepEqual(read('The results below were measured yesterday afternoon.'), {}, 'nothing stated, nothing guessed');
  assert.deepEqual(readLineContext('并发 32').step, { concurrency: 32 });
});

test('a vLLM block in a container log or commented in a script: the prefix on every line is cut off', async () => {
  const log = vllmBlock2025({ concurrency: 64, ttft: 312.5, duration: '61.02' })
    .split('\n')
    .map((line) => `vllm-bench-1  | ${line}`)
    .join('\n');
  const [run] = await importText(`vllm-bench-1  | Starting benchmark for Llama-3.1-8B-Instruct\n${log}\nvllm-bench-1 exited with code 0\n`, 'compose.log');
  const s = run?.steps[0]?.summary;
  assert.equal(run?.steps[0]?.name, 'concurrency@64');
  assert.deepEqual([s?.durationSec, s?.ttftMs?.mean, s?.outputTokensPerSecond, s?.latencyMs?.p99], [61.02, 312.5, 1187.02, 1802.77]);
  assert.equal(run?.labels['model'], 'Llama-3.1-8B-Instruct');

  // A block kept as comments in a shell script.
  const commented = vllmBlock2024.split('\n').map((line) => `# ${line}`).join('\n');
  const [script] = await importText(`#!/bin/bash\n# Qwen2-7B-Instruct on 1 x A100 80GB, vLLM\n${commented}\npython3 benchmark_serving.py --request-rate 4\n`, 'run.sh');
  assert.equal(script?.steps[0]?.name, 'asynchronous@4.00 req/sec');
  assert.equal(script?.steps[0]?.summary?.tpotMs?.p99, 37.11);
  assert.deepEqual([script?.labels['model'], script?.labels['gpus'], script?.labels['gpu'], script?.labels['engine']], ['Qwen2-7B-Instruct', '1', 'A100 80GB', 'vllm']);
});

test('a block under a step line takes its load from it; a text with no block is refused with what is read', async () => {
  const text = `模型：Qwen2-7B-Instruct，单卡 A100

并发 16
${vllmBlock2024.replace('Traffic request rate: 4.0\n', '')}
`;
  const [run] = await importText(text);
  assert.equal(run?.steps[0]?.name, 'concurrency@16');
  assert.deepEqual([run?.labels['model'], run?.labels['gpus'], run?.labels['gpu']], ['Qwen2-7B-Instruct', '1', 'A100']);
  const refused = importTextBlocks({ path: 'empty.md', text: '# Nothing here\n\n| a | b |\n|---|---|\n| 1 | 2 |\n' });
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.error, /empty\.md: no benchmark result found/);
});

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('llmbench import NOTES --out DIR writes one result per run and prints a line each; --out FILE needs exactly one run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-text-cli-'));
  const notes = join(dir, 'notes.md');
  writeFileSync(notes, NOTES);
  const out = join(dir, 'imported');
  const result = await runCli(['import', notes, '--out', out, '--label', 'team=perf']);
  assert.equal(result.code, 0, result.stderr);
  const files = readdirSync(out).sort();
  assert.equal(files.length, 5);
  assert.equal(files[0], '01-qwen2-7b-instruct-awq-sglang-2xl20-48gb.llmbench.json');
  const printed = result.stdout.trim().split('\n');
  assert.equal(printed.length, 6);
  assert.match(printed[0] ?? '', /01-qwen2-7b-instruct-awq-sglang-2xl20-48gb\.llmbench\.json: vllm bench serve, 2 step\(s\) from .*notes\.md lines \d+-\d+; .*model=Qwen2-7B-Instruct-AWQ.*team=perf/);
  for (const file of files) {
    const parsed = parseResultDocument(readFileSync(join(out, file), 'utf8'));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.equal(parsed.value.labels['team'], 'perf');
  }
  const again = await runCli(['import', notes, '--out', out]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(readdirSync(out).length, 10, 'a second import into the folder adds files, it does not overwrite');
  assert.ok(readdirSync(out).includes('01-qwen2-7b-instruct-awq-sglang-2xl20-48gb-2.llmbench.json'));
  const single = await runCli(['import', notes, '--out', join(dir, 'one.llmbench.json')]);
  assert.equal(single.code, 2);
  assert.match(single.stderr, /found 5 runs .*holds one\. Give a folder/);
  assert.deepEqual(readdirSync(dir).sort(), ['imported', 'notes.md'], 'nothing written when refused');
});
