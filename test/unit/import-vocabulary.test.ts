/**
 * The vocabulary tables are read by (issue 21, item 23): headings in English and Chinese, written
 * out or abbreviated, with a statistic and a unit or without, and the loads rows and columns are
 * named by. Each heading below is one people write (GuideLLM's, EvalScope's, vLLM's words, and
 * those of users' own pages).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeHeading, loadIn, readHeading } from '../../src/import/text-vocabulary';

const HEADINGS: [string, string][] = [
  // Abbreviations and words, English
  ['TTFT (ms)', 'TTFT mean (ms)'],
  ['Time to First Token', 'TTFT mean'],
  ['Mean TTFT (ms)', 'TTFT mean (ms)'],
  ['P99 TTFT (ms)', 'TTFT p99 (ms)'],
  ['Median TTFT', 'TTFT p50'],
  ['TTFT p99.9', 'TTFT p99.9'],
  ['TTFT (ms) median', 'TTFT p50 (ms)'],
  ['Inter Token Latency', 'ITL mean'],
  ['Inter-token latency (ms) p90', 'ITL p90 (ms)'],
  ['ITL (ms) p99', 'ITL p99 (ms)'],
  ['TPOT', 'TPOT mean'],
  ['Time per Output Token (ms)', 'TPOT mean (ms)'],
  ['Request Latency', 'latency mean'],
  ['Req Latency (ms) mean', 'latency mean (ms)'],
  ['E2E Latency (s)', 'latency mean (s)'],
  ['Mean E2EL (ms)', 'latency mean (ms)'],
  ['Avg Lat.(s)', 'latency mean (s)'],
  ['Latency [sec]', 'latency mean (s)'],
  ['Request Latency [1%, 5%, 10%, 50%, 90%, 95%, 99%] (sec)', 'latency percentiles 1%, 5%, 10%, 50%, 90%, 95%, 99% (s)'],
  ['Requests per Second', 'requests/s'],
  ['Request Stats Per Second', 'requests/s'],
  ['Req/s', 'requests/s'],
  ['QPS', 'requests/s'],
  ['RPS', 'requests/s'],
  ['Request throughput (req/s)', 'requests/s'],
  ['Output Token Throughput', 'output tokens/s'],
  ['Out Tok/sec mean', 'output tokens/s'],
  ['Output tok/s', 'output tokens/s'],
  ['Gen. toks/s', 'output tokens/s'],
  ['Total tok/s', 'total tokens/s'],
  ['Total Token throughput (tok/s)', 'total tokens/s'],
  ['Throughput (tokens/s)', 'a throughput of unstated kind'],
  ['Concurrency', 'the concurrency'],
  ['Max Concurrency', 'the concurrency'],
  ['Request Rate', 'the target rate (req/s)'],
  ['Duration', 'the duration'],
  ['Benchmark duration (s)', 'the duration'],
  ['Requests Completed', 'completed requests'],
  ['Failed', 'failed requests'],
  ['Prompt', 'input tokens mean'],
  ['Output tokens', 'output tokens mean'],
  ['Model', 'the model label'],
  ['Engine', 'the engine label'],
  ['GPU', 'the gpu label'],
  ['TP', 'the tp label'],
  ['Benchmark', 'row names'],
  ['p50', 'a statistic of no named metric'],
  // Chinese, with and without spaces, full-width parentheses
  ['首 token 延迟 (ms)', 'TTFT mean (ms)'],
  ['首Token延迟（秒）', 'TTFT mean (s)'],
  ['首字延迟', 'TTFT mean'],
  ['平均首字延迟 (ms)', 'TTFT mean (ms)'],
  ['P99 首 token 延迟', 'TTFT p99'],
  ['首 Token 延迟 P99（毫秒）', 'TTFT p99 (ms)'],
  ['平均每 token 耗时（毫秒）', 'TPOT mean (ms)'],
  ['token 间延迟', 'ITL mean'],
  ['延迟', 'latency mean'],
  ['平均延迟 (s)', 'latency mean (s)'],
  ['端到端延迟', 'latency mean'],
  ['中位数延迟', 'latency p50'],
  ['99分位延迟(ms)', 'latency p99 (ms)'],
  ['TP99 时延', 'latency p99'],
  ['平均耗时 (s)', 'latency mean (s)'],
  ['吞吐量', 'a throughput of unstated kind'],
  ['吞吐量 (tokens/s)', 'a throughput of unstated kind'],
  ['输出吞吐 (tokens/s)', 'output tokens/s'],
  ['生成速度', 'output tokens/s'],
  ['总吞吐', 'total tokens/s'],
  ['每秒请求数', 'requests/s'],
  ['并发数', 'the concurrency'],
  ['并行数', 'the concurrency'],
  ['用时', 'the duration'],
  ['耗时 (s)', 'the duration'],
  ['输入 token 数', 'input tokens mean'],
  ['输出长度', 'output tokens mean'],
  ['推理框架', 'the engine label'],
  ['模型', 'the model label'],
  ['显卡', 'the gpu label'],
  ['张量并行', 'the tp label'],
  ['指标', 'row names'],
  // Nothing we read: shares, resources, remarks
  ['Success Rate', 'nothing known'],
  ['成功率', 'nothing known'],
  ['GPU Memory (GB)', 'nothing known'],
  ['显存占用', 'nothing known'],
  ['Peak output token throughput (tok/s)', 'nothing known'],
  ['P99 Output tok/s', 'nothing known'],
  ['备注', 'nothing known'],
  ['Notes', 'nothing known'],
  ['Start Time', 'nothing known'],
];

test('headings in English and Chinese: the metric, its statistic and its unit', () => {
  const wrong = HEADINGS.filter(([heading, expected]) => describeHeading(readHeading(heading)) !== expected).map(
    ([heading, expected]) => `${heading}: ${describeHeading(readHeading(heading))}, expected ${expected}`,
  );
  assert.deepEqual(wrong, []);
});

test('the load a row or column is named by', () => {
  const cases: [string, boolean, object | null][] = [
    ['synchronous', false, { kind: 'synchronous' }],
    ['throughput', false, { kind: 'throughput' }],
    ['constant@2.50', false, { kind: 'rate', rate: 2.5, arrival: 'constant' }],
    ['poisson@1.0', false, { kind: 'rate', rate: 1, arrival: 'poisson' }],
    ['concurrent@8', false, { kind: 'concurrency', concurrency: 8 }],
    ['asynchronous@1.57 req/sec', false, { kind: 'rate', rate: 1.57 }],
    ['**asynchronous@2.63 req/sec**', false, { kind: 'rate', rate: 2.63 }],
    ['concurrency@16', false, { kind: 'concurrency', concurrency: 16 }],
    ['并发 8', false, { kind: 'concurrency', concurrency: 8 }],
    ['并发32', false, { kind: 'concurrency', concurrency: 32 }],
    ['64 并发', false, { kind: 'concurrency', concurrency: 64 }],
    ['concurrency=32', false, { kind: 'concurrency', concurrency: 32 }],
    ['c=4', false, { kind: 'concurrency', concurrency: 4 }],
    ['parallel 8', false, { kind: 'concurrency', concurrency: 8 }],
    ['rate 2.5', false, { kind: 'rate', rate: 2.5 }],
    ['2.5 req/s', false, { kind: 'rate', rate: 2.5 }],
    ['8', true, { kind: 'concurrency', concurrency: 8 }],
    // A bare number is a row index as often as a load: only a transposed table's column heads read it.
    ['8', false, null],
    ['vLLM 0.6.3', false, null],
    ['Qwen2-7B-Instruct', false, null],
  ];
  for (const [name, bare, expected] of cases) assert.deepEqual(loadIn(name, bare), expected, name);
});
