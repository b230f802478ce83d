// Printouts of other tools as users keep them in notes, for the import tests of the vscode and
// e2e tiers: vLLM's result block, and a page of notes with a context line above each run (model,
// GPUs, engine, token lengths) in Chinese and English, as issue 11 describes.

/** vLLM's result block as `vllm bench serve` prints it, for one concurrency. */
export function vllmBlock(concurrency: number, ttft: number): string {
  return `Maximum request concurrency: ${concurrency}
============ Serving Benchmark Result ============
Successful requests:                     100       
Failed requests:                         0         
Maximum request concurrency:             ${concurrency}         
Benchmark duration (s):                  ${(200 / concurrency).toFixed(2)}     
Total input tokens:                      51200     
Total generated tokens:                  12800     
Request throughput (req/s):              ${(concurrency / 2).toFixed(2)}      
Output token throughput (tok/s):         ${(concurrency * 64).toFixed(2)}    
Total Token throughput (tok/s):          ${(concurrency * 320).toFixed(2)}   
---------------Time to First Token----------------
Mean TTFT (ms):                          ${ttft}     
Median TTFT (ms):                        ${ttft - 5}     
P99 TTFT (ms):                           ${ttft * 2}    
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          10.55     
Median TPOT (ms):                        10.41     
P99 TPOT (ms):                           12.90     
---------------Inter-token Latency----------------
Mean ITL (ms):                           10.52     
Median ITL (ms):                         9.98      
P99 ITL (ms):                            25.31     
==================================================`;
}

export const NOTES = `# 压测记录

- **Qwen2-7B-Instruct-AWQ**, **2** x **L20 48GB**, **SGLang**, prompt_tokens=512, generated_tokens=128

${vllmBlock(4, 60)}

${vllmBlock(16, 90)}

- **Qwen2-7B-Instruct-AWQ**, **2** x **L20 48GB**, **vLLM**, prompt_tokens=512, generated_tokens=128

${vllmBlock(4, 70)}

${vllmBlock(16, 120)}
`;

// Users' own pages holding benchmark tables (issue 21, item 23), written here in the layouts people
// use: GuideLLM's tables before 0.2 (guidellm/core/report.py: "Performance Summary by Benchmark"
// and the tables above it, each cell with its unit, rows `synchronous`, `asynchronous@R req/sec`,
// `throughput`), copied into a wiki or kept as the console printed them (rich tables in panels);
// Chinese pages comparing engines; transposed tables (metrics as rows, loads as columns) under
// 提要 / 细节; units in the headers or in the cells; bold cells, alignment rows, missing trailing
// pipes, full-width bars, thousands separators, and `—` / `-` / `N/A` for missing values.

/**
 * GuideLLM's benchmark table pasted alone: means only (no p50), no request counts, and a step named
 * by the profile's rate ("constant@1.90") where our names say "asynchronous@1.90 req/sec".
 */
export const GUIDELLM_MEANS_TABLE = `| Benchmark | Requests per Second | Request Latency | Time to First Token | Inter Token Latency | Output Token Throughput |
|:---|---:|---:|---:|---:|---:|
| synchronous | 0.51 req/sec | 1.96 sec | 95.57 ms | 7.31 ms | 130.41 tokens/sec |
| constant@1.90 | 1.84 req/sec | 2.25 sec | 120.02 ms | 8.35 ms | 389.20 tokens/sec |
| throughput | 4.26 req/sec | 10.12 sec | 6,032.15 ms | 15.99 ms | 1,090.51 tokens/sec |
`;

/** An English wiki page: GuideLLM's "Performance Summary by Benchmark" copied into Markdown. */
export const GUIDELLM_WORDS_WIKI = `# Llama-3.1-8B-Instruct on 1 x L40S 48GB, vLLM 0.6.1: load test

_Last edited by the perf team. Numbers copied from the GuideLLM report at the end of the sweep._

Setup: \`guidellm --target http://10.1.2.3:8000/v1 --data-type emulated --data "prompt_tokens=512,generated_tokens=256"\`

Performance Summary by Benchmark

| Benchmark | Requests per Second | Request Latency | Time to First Token | Inter Token Latency | Output Token Throughput |
|:---|---:|---:|---:|---:|---:|
| synchronous | 0.51 req/sec | 1.96 sec | 95.57 ms | 7.31 ms | 130.41 tokens/sec |
| asynchronous@1.57 req/sec | 1.52 req/sec | 2.25 sec | 120.02 ms | 8.35 ms | 389.20 tokens/sec |
| **asynchronous@2.63 req/sec** | 2.49 req/sec | 2.79 sec | 141.77 ms | 10.37 ms | 45.36 tokens/second |
| throughput | 4.26 req/sec | 10.12 sec | 6,032.15 ms | 15.99 ms | 1,090.51 tokens/sec |

> The throughput step queues: its TTFT jumps to 6 s. Next: try --max-num-seqs 512.
`;

/** A rich table as the console draws it: heavy header box, light body; a row may wrap onto more lines. */
function richTable(header: string[][], rows: string[][][]): string[] {
  const widths = header[0]!.map((_, c) => Math.max(...[...header, ...rows.flat()].map((cells) => (cells[c] ?? '').length)));
  const line = (left: string, fill: string, mid: string, right: string) => left + widths.map((w) => fill.repeat(w + 2)).join(mid) + right;
  const row = (bar: string, cells: string[]) => bar + widths.map((w, c) => ` ${(cells[c] ?? '').padEnd(w)} `).join(bar) + bar;
  return [
    line('┏', '━', '┳', '┓'),
    ...header.map((cells) => row('┃', cells)),
    line('┡', '━', '╇', '┩'),
    ...rows.flatMap((wrapped) => wrapped.map((cells) => row('│', cells))),
    line('└', '─', '┴', '┘'),
  ];
}

/** A rich panel: a titled rounded box around lines. */
function panel(title: string, body: string[]): string[] {
  const width = Math.max(title.length + 4, ...body.map((l) => l.length));
  return [`╭─ ${title} ${'─'.repeat(width - title.length - 1)}╮`, ...body.map((l) => `│ ${l.padEnd(width)} │`), `╰${'─'.repeat(width + 2)}╯`];
}

const G01 = ['synchronous', 'asynchronous@1.57 req/sec', 'throughput'];

/** GuideLLM 0.1's whole report as its console printed it: four tables about the same benchmarks, in panels. */
export const GUIDELLM_01_CONSOLE = [
  '$ guidellm --target http://localhost:8000/v1 --model mistralai/Mistral-7B-Instruct-v0.3 --data-type emulated --data prompt_tokens=512,generated_tokens=256',
  ...panel('Benchmarks', ['[10:02:11]   100% synchronous (0.51 req/sec avg)', '[10:04:12]   100% throughput (4.26 req/sec avg)', '[10:06:20]   100% constant@1.57 req/s (1.54 req/sec avg)']),
  '  Generating report... ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ (3/3) [ 0:06:09 < 0:00:00 ]',
  ...panel('GuideLLM Benchmarks Report (guidellm_report.json)', panel('Benchmark Report 1', [
    'Backend(type=openai_server, target=http://localhost:8000/v1, model=mistralai/Mistral-7B-Instruct-v0.3)',
    'Data(type=emulated, source=prompt_tokens=512,generated_tokens=256, tokenizer=mistralai/Mistral-7B-Instruct-v0.3)',
    'Rate(type=sweep, rate=None)',
    'Limits(max_number=None requests, max_duration=120 sec)',
    '',
    '',
    'Requests Data by Benchmark',
    ...richTable(
      [['Benchmark', 'Requests Completed', 'Request Failed', 'Duration', 'Start Time', 'End Time']],
      [
        [[G01[0]!, '61/61', '0/61', '120.13 sec', '10:02:11', '10:04:11']],
        [[G01[1]!, '186/188', '2/188', '120.40 sec', '10:06:20', '10:08:20']],
        [[G01[2]!, '500/500', '0/500', '117.36 sec', '10:04:12', '10:06:09']],
      ],
    ),
    '',
    'Tokens Data by Benchmark',
    ...richTable(
      [['Benchmark', 'Prompt', 'Prompt (1%, 5%, 50%, 95%, 99%)', 'Output', 'Output (1%, 5%, 50%, 95%, 99%)']],
      [
        [[G01[0]!, '512.20', '509.0, 510.0, 512.0, 514.0, 515.0', '255.41', '240.0, 248.0, 256.0, 256.0, 256.0']],
        [[G01[1]!, '511.87', '508.0, 509.0, 512.0, 514.0, 516.0', '254.90', '236.0, 247.0, 256.0, 256.0, 256.0']],
        [[G01[2]!, '512.03', '509.0, 510.0, 512.0, 514.0, 515.0', '255.12', '239.0, 248.0, 256.0, 256.0, 256.0']],
      ],
    ),
    '',
    'Performance Stats by Benchmark',
    ...richTable(
      [
        ['', 'Request Latency [1%, 5%, 10%, 50%, 90%, 95%, 99%]', 'Time to First Token [1%, 5%, 10%, 50%, 90%, 95%,', 'Inter Token Latency [1%, 5%, 10%, 50%, 90% 95%,'],
        ['Benchmark', '(sec)', '99%] (ms)', '99%] (ms)'],
      ],
      [
        [[G01[0]!, '1.90, 1.92, 1.93, 1.96, 1.99, 2.00, 2.03', '88.1, 89.9, 91.0, 94.8, 101.2, 104.0, 110.5', '7.1, 7.2, 7.2, 7.3, 7.4, 7.5, 7.7']],
        [
          [G01[1]!, '2.01, 2.08, 2.12, 2.29, 2.52, 2.60, 2.81', '90.2, 95.5, 98.0, 112.3, 150.7, 166.1,', '8.0, 8.1, 8.2, 8.6, 9.1, 9.3, 9.9'],
          ['', '', '201.9', ''],
        ],
        [
          [G01[2]!, '8.01, 8.55, 8.90, 10.05, 11.40, 11.80, 12.33', '1201.5, 2209.0, 2950.1, 6010.2, 9180.4,', '14.2, 14.8, 15.1, 15.9, 16.9, 17.3, 18.8'],
          ['', '', '9702.3, 10411.0', ''],
        ],
      ],
    ),
    '',
    'Performance Summary by Benchmark',
    ...richTable(
      [['Benchmark', 'Requests per Second', 'Request Latency', 'Time to First Token', 'Inter Token Latency', 'Output Token Throughput']],
      [
        [[G01[0]!, '0.51 req/sec', '1.96 sec', '95.57 ms', '7.31 ms', '130.41 tokens/sec']],
        [[G01[1]!, '1.54 req/sec', '2.31 sec', '118.40 ms', '8.60 ms', '391.92 tokens/sec']],
        [[G01[2]!, '4.26 req/sec', '10.12 sec', '6032.15 ms', '15.99 ms', '1087.93 tokens/sec']],
      ],
    ),
  ])),
  '',
].join('\n');

/** A Chinese page comparing engines: 推理框架 and 并发数 columns, units in the headers, blank cells repeating the row above. */
export const ENGINES_ZH = `# Qwen2.5-7B-Instruct 推理框架压测对比

测试环境：2 x A800 80GB，TP=2，输入=1024，输出=512，evalscope perf --stream

## 结果汇总

| 推理框架 | 并发数 | 吞吐量 (tokens/s) | 首 token 延迟 (ms) | 平均延迟 (s) | P99 延迟 (s) | QPS | 备注 |
| :--- | :---: | ---: | ---: | ---: | ---: | ---: | --- |
| vLLM 0.6.3 | 1 | 62.5 | 45 | 8.21 | 8.40 | 0.12 | |
| | 16 | 812.3 | 120 | 10.05 | 11.92 | 1.59 | 默认参数 |
| | 64 | 1,905.0 | 410 | 17.11 | 21.30 | 3.74 | |
| SGLang 0.3.5 | 1 | 65.1 | 41 | 7.88 | 8.02 | 0.13 | |
| | 16 | **901.7** | 98 | 9.07 | 10.50 | 1.76 | 最好 |
| | 64 | 2,210.4 | 350 | 14.70 | 18.01 | 4.35 | |
| lmdeploy 0.6.2 | 1 | 66.0 | 38 | 7.75 | 7.90 | 0.13 |
| | 16 | 870.2 | — | 9.40 | - | 1.70 | 首 token 未测 |
| | 64 | N/A | N/A | N/A | N/A | N/A | OOM |

结论：高并发下吞吐最高的是 SGLang。
`;

/** Transposed tables (metrics as rows, loads as columns) under 提要 and 细节; the second with full-width bars and parentheses. */
export const TRANSPOSED_ZH = `## DeepSeek-R1-Distill-Qwen-32B，4张910B，MindIE，输入=1024，输出=1024

### 提要

| 指标 | 并发 1 | 并发 8 | 并发 32 |
|:--:|:--:|:--:|:--:|
| 首字延迟 | 0.21 秒 | 0.35 秒 | 1.02 秒 |
| 平均延迟 | 24.8 秒 | 31.6 秒 | 49.9 秒 |
| 输出吞吐 | 41.3 tokens/s | 259.1 tokens/s | 656.6 tokens/s |
| QPS | 0.04 | 0.25 | 0.64 |
| 显存占用 | 61 GB | 62 GB | 64 GB |

### 细节

｜指标｜并发1｜并发8｜并发32｜
｜---｜---｜---｜---｜
｜首 Token 延迟 P99（毫秒）｜260｜480｜1,530｜
｜平均每 token 耗时（毫秒）｜24.1｜30.2｜47.3｜
｜P99 延迟（秒）｜25.3｜33.0｜55.2｜
`;

/** EvalScope perf's printout before its November 2024 refactor (evalscope/perf/http_client.py summary_result). */
export function evalscopeOldBlock(o: { parallel: number; time: number; qps: number; latency: number; ttft: number; tokensPerSecond: number; packages: number; ttftPercentiles: number[]; latencyPercentiles: number[] }): string {
  const percentiles = (values: number[]) => [50, 66, 75, 80, 90, 95, 98, 99].map((p, i) => `     p${p}: ${values[i]!.toFixed(4)}`).join('\n');
  return `Benchmarking summary: 
 Time taken for tests: ${o.time.toFixed(3)} seconds
 Expected number of requests: 1000
 Number of concurrency: ${o.parallel}
 Total requests: 1000
 Succeed requests: 1000
 Failed requests: 0
 Average QPS: ${o.qps.toFixed(3)}
 Average latency: ${o.latency.toFixed(3)}
 Throughput(average output tokens per second): ${o.tokensPerSecond.toFixed(3)}
 Average time to first token: ${o.ttft.toFixed(3)}
 Average input tokens per request: 40.296
 Average output tokens per request: 240.520
 Average time per output token: ${(1 / o.tokensPerSecond).toFixed(5)}
 Average package per request: ${o.packages.toFixed(3)}
 Average package latency: ${(o.latency / o.packages).toFixed(3)}
 Percentile of time to first token: 
${percentiles(o.ttftPercentiles)}
 Percentile of request latency: 
${percentiles(o.latencyPercentiles)}`;
}

const LATENCY_8 = [3.231, 3.7402, 4.2011, 4.4109, 4.9522, 5.6301, 6.3502, 6.8377];
const LATENCY_32 = [3.7702, 4.4101, 4.8499, 5.1201, 5.8803, 6.5902, 7.3305, 8.0501];

/**
 * A Chinese page of EvalScope runs against a server without streaming: a summary table with no
 * units (bare concurrencies as column heads, latency percentiles as bare p50 / p90 rows), then
 * each run's printout, whose "time to first token" is the whole latency.
 */
export const EVALSCOPE_OLD_ZH = `## 实验结果（MindIE）

❌ **--stream 不要加，经常出问题。**

### Qwen1.5-7B-Chat

| 指标 | 8 | 32 | 128 |
| --- | --- | --- | --- |
| 用时 | 402.118 | 121.502 | 53.004 |
| QPS | 2.487 | 8.230 | 18.866 |
| 延迟 | 3.198 | 3.741 | 6.127 |
| 吞吐量 | 598.312 | 1980.404 | 4545.871 |
| p50 | 3.2310 | 3.7702 | 6.1654 |
| p90 | 4.9522 | 5.8803 | 9.6001 |

- 平均每个请求的输入 token 数: 40
- 平均每个请求的输出 token 数: 240

- parallel 8
\`\`\`
${evalscopeOldBlock({ parallel: 8, time: 402.118, qps: 2.487, latency: 3.198, ttft: 3.198, tokensPerSecond: 598.312, packages: 1, ttftPercentiles: LATENCY_8, latencyPercentiles: LATENCY_8 })}
\`\`\`

- parallel 32
\`\`\`
${evalscopeOldBlock({ parallel: 32, time: 121.502, qps: 8.23, latency: 3.741, ttft: 3.741, tokensPerSecond: 1980.404, packages: 1, ttftPercentiles: LATENCY_32, latencyPercentiles: LATENCY_32 })}
\`\`\`

### Qwen1.5-7B-Chat, 加 --stream 的一次

\`\`\`
${evalscopeOldBlock({
  parallel: 1, time: 3906.25, qps: 0.256, latency: 3.859, ttft: 0.007, tokensPerSecond: 23.317, packages: 93.1,
  ttftPercentiles: [0.0021, 0.0023, 0.0025, 0.003, 0.0526, 0.0526, 0.0526, 0.0526],
  latencyPercentiles: [3.9317, 3.9828, 4.0153, 7.2801, 7.7003, 7.7003, 7.7003, 7.7003],
})}
\`\`\`
`;

/** One comparison written twice: units in the headers (vLLM), units in the cells and no trailing pipes (TGI). */
export const UNITS_HEADER_AND_CELLS = `# Mistral-7B-Instruct-v0.3 on 1 x A100 80GB

## vLLM 0.5.4 (units in the header)

| Concurrency | TTFT (ms) | TPOT (ms) | E2E Latency (s) | Output tok/s | Total tok/s |
|---|---|---|---|---|---|
| 1 | 21.4 | 11.9 | 3.06 | 83.6 | 251.1 |
| 4 | 30.8 | 13.1 | 3.38 | 302.8 | 909.2 |
| 16 | 64.2 | 17.0 | 4.41 | 928.9 | 2,789.0 |

## TGI 2.2.0 (units in the cells)

| Concurrency | TTFT | TPOT | E2E Latency | Output throughput
|---|---|---|---|---
| 1 | 24.9 ms | 12.3 ms | 3.17 s | 80.7 tok/s
| 4 | 35.5 ms | 14.0 ms | 3.61 s | 283.6 tok/s
| 16 | 0.081 s | 18.6 ms | 4.83 s | 848.1 tok/s
`;

/** A page of several tables: hardware and accuracy tables (not benchmarks) around results with label and note columns. */
export const SEVERAL_TABLES = `# Weekly inference notes (2024-W38)

## Hardware

| GPU | Memory | Driver | CUDA |
|---|---|---|---|
| H100 SXM | 80 GB | 550.54.15 | 12.4 |

## Serving results

| Model | GPU | Engine | Concurrency | Mean TTFT (ms) | P99 TTFT (ms) | Mean ITL (ms) | Req/s | Output tok/s | Notes |
|---|---|---|---|---|---|---|---|---|---|
| Llama-3.1-8B-Instruct | 1 x H100 | vLLM | 1 | 14.8 | 21.0 | 6.2 | 0.95 | 158.3 | warm cache |
| Llama-3.1-8B-Instruct | 1 x H100 | vLLM | 32 | 58.1 | 190.4 | 11.5 | 19.4 | 3,104.0 | |
| Llama-3.1-8B-Instruct | 1 x H100 | TGI | 1 | 16.0 | 24.4 | 6.5 | 0.91 | 150.9 | |
| Llama-3.1-8B-Instruct | 1 x H100 | TGI | 32 | 71.9 | 260.0 | 13.2 | 17.1 | 2,736.2 | restart between runs |

## Accuracy (not part of the load test)

| Model | MMLU | GSM8K | Notes |
|---|---|---|---|
| Llama-3.1-8B-Instruct | 68.1 | 84.5 | 5-shot |
`;

/** Every page above, by name (the fuzz test mutates each). */
export const TABLE_PAGES: Record<string, string> = {
  'guidellm-words-wiki.md': GUIDELLM_WORDS_WIKI,
  'guidellm-0.1-console.log': GUIDELLM_01_CONSOLE,
  'engines-zh.md': ENGINES_ZH,
  'transposed-zh.md': TRANSPOSED_ZH,
  'evalscope-old-zh.md': EVALSCOPE_OLD_ZH,
  'units.md': UNITS_HEADER_AND_CELLS,
  'several-tables.md': SEVERAL_TABLES,
};
