/**
 * What a table's column (or, in a transposed table, row) heading names, read from the words people
 * use rather than one tool's headers: abbreviations and words, in English and Chinese
 * (`TTFT`, `Time to First Token`, `首 token 延迟`, `首字延迟`; `QPS`, `Requests per Second`;
 * `吞吐量`; `并发数`), a statistic before or after the name (`Mean`, `P99`, `平均`, `中位数`,
 * `99%`), and a unit in the heading (`(ms)`, `（秒）`, `tok/s`) or, when the heading has none,
 * in the cells. A load written as a row or column name (`synchronous`, `asynchronous@1.57 req/sec`,
 * `concurrent@8`, `并发 8`, `c=32`) is read too.
 */
import type { StepProfile } from '../format/result';

/** A per-request metric our statistics hold; times in ms, token counts per request. */
export type StatMetric = 'ttftMs' | 'tpotMs' | 'itlMs' | 'latencyMs' | 'inputTokens' | 'outputTokens';

/** A figure a step has once: rates, duration, request counts. `throughput` is a tokens (or requests) per second of unstated kind. */
export type StepFigure =
  | 'requestsPerSecond'
  | 'outputTokensPerSecond'
  | 'totalTokensPerSecond'
  | 'throughput'
  | 'durationSec'
  | 'requestsTotal'
  | 'requestsCompleted'
  | 'requestsFailed';

export type RunLabel = 'model' | 'engine' | 'gpu' | 'tp' | 'quantization';

export type Heading =
  /** A statistic of a metric; `stat` is a key of our Stats, or (outside) a percentile we have no field for. */
  | { kind: 'stat'; metric: StatMetric; stat: string; unit: string | null }
  /** Several percentiles in one cell, `1.90, 1.92, 1.96`, headed `Request Latency [1%, 5%, 50%] (sec)`. */
  | { kind: 'percentiles'; metric: StatMetric; percentiles: number[]; unit: string | null }
  | { kind: 'figure'; figure: StepFigure; unit: string | null }
  /** The load a row ran at: a concurrency, or a target rate in requests/s. */
  | { kind: 'load'; load: 'concurrency' | 'rate' }
  | { kind: 'label'; label: RunLabel }
  /** The column of row names (`Benchmark`, `指标`, `Metric`, `场景`), or an empty heading. */
  | { kind: 'name' }
  /** A statistic with no metric named (`p50` alone). */
  | { kind: 'bare-stat' }
  | null;

/** What a heading says, for the import notes: `TTFT p99 (ms)`, `output tokens/s`. */
export function describeHeading(heading: Heading): string {
  if (!heading) return 'nothing known';
  switch (heading.kind) {
    case 'stat':
    case 'percentiles': {
      const metric = METRIC_NAMES[heading.metric];
      const stats = heading.kind === 'stat' ? heading.stat : `percentiles ${heading.percentiles.map((p) => `${p}%`).join(', ')}`;
      return `${metric} ${stats}${heading.unit ? ` (${heading.unit})` : ''}`;
    }
    case 'figure':
      return FIGURE_NAMES[heading.figure];
    case 'load':
      return heading.load === 'concurrency' ? 'the concurrency' : 'the target rate (req/s)';
    case 'label':
      return `the ${heading.label} label`;
    case 'name':
      return 'row names';
    case 'bare-stat':
      return 'a statistic of no named metric';
  }
}

/** How the notes name a metric and a per-step figure. */
export const METRIC_NAMES: Record<StatMetric, string> = { ttftMs: 'TTFT', tpotMs: 'TPOT', itlMs: 'ITL', latencyMs: 'latency', inputTokens: 'input tokens', outputTokens: 'output tokens' };
export const FIGURE_NAMES: Record<StepFigure, string> = {
  requestsPerSecond: 'requests/s',
  outputTokensPerSecond: 'output tokens/s',
  totalTokensPerSecond: 'total tokens/s',
  throughput: 'a throughput of unstated kind',
  durationSec: 'the duration',
  requestsTotal: 'the request count',
  requestsCompleted: 'completed requests',
  requestsFailed: 'failed requests',
};

/** Heading text in one form: full-width characters folded (`（秒）` to `(秒)`), lower case, Markdown marks gone. */
const normalized = (text: string) => text.normalize('NFKC').replace(/\*\*|__|`/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
/** Without spaces, hyphens and underscores: `首 Token 延迟` and `首token延迟`, `Inter-Token Latency` and `inter token latency` are one. */
const squeezed = (text: string) => text.replace(/[\s_\-*]+/g, '');
const words = (text: string) => text.split(/[^a-z0-9%]+/).filter((w) => w !== '');

const TOKEN_RATE = /(tokens?|toks?)\s*\/\s*(s|sec|secs|second|秒)\b|(tokens?|toks?)\s*\/\s*(s|sec|秒)$|tokens?\s*per\s*sec(ond)?|\btps\b|token\/秒/;
const REQUEST_RATE = /(req|reqs|requests?)\s*\/\s*(s|sec|second|秒)\b|(req|reqs|requests?)\s*\/\s*(s|sec|秒)$|\brps\b|\bqps\b|requests?\s*per\s*sec(ond)?|每秒请求/;

/** The unit a heading states: a rate (`tok/s`, `req/s`) or a time (`ms`, `s`). */
function headingUnit(text: string): string | null {
  if (TOKEN_RATE.test(text)) return 'tok/s';
  if (REQUEST_RATE.test(text)) return 'req/s';
  const m =
    text.match(/[([]\s*(ms|msec|milliseconds?|s|sec|secs|seconds?|毫秒|秒)\s*[)\]]/) ??
    text.match(/(?:^|[\s/,])(ms|msec|sec|secs|seconds|毫秒|秒)\s*$/) ??
    text.match(/\/\s*(s|ms)\s*$/) ??
    text.match(/(毫秒|秒)/);
  const unit = m?.[1];
  if (!unit) return null;
  return /^(ms|msec|milli|毫秒)/.test(unit) ? 'ms' : 's';
}

/** The statistic a heading names: `mean`, `p50`, `p99`, `std`, `min`, `max`; `p99.9` or `p10` when outside our set; null for none. */
function headingStat(text: string, tight: string): string | null {
  const percentile =
    text.match(/\b(?:p|tp)\s?(\d{1,2}(?:\.\d+)?)\b/)?.[1] ??
    text.match(/\b(\d{1,2}(?:\.\d+)?)\s*(?:%|th\b|percentile)/)?.[1] ??
    tight.match(/(\d{1,2}(?:\.\d+)?)(?:%)?分位/)?.[1] ??
    tight.match(/(?:^|[^a-z0-9])p(\d{1,2})(?![0-9])/)?.[1];
  if (percentile) return percentile === '50' ? 'p50' : `p${percentile}`;
  if (/\bmedian\b|中位/.test(text)) return 'p50';
  if (/\b(mean|avg|average)\b|平均|均值/.test(text)) return 'mean';
  if (/\b(std|stdev|stddev)\b|标准差/.test(text)) return 'std';
  if (/\b(min|minimum)\b|最小/.test(text)) return 'min';
  if (/\b(max|maximum)\b|最大/.test(text)) return 'max';
  return null;
}

/** Percentages listed in a heading: `[1%, 5%, 10%, 50%, 90% 95%, 99%]` (GuideLLM 0.1 left out a comma). */
function listedPercentiles(text: string): number[] {
  const list = text.match(/[[(]([^\])]*%[^\])]*)[\])]/)?.[1] ?? '';
  return [...list.matchAll(/(\d+(?:\.\d+)?)\s*%/g)].map((m) => Number(m[1]));
}

const LABELS: [RegExp, RunLabel][] = [
  [/^(model|models|modelname|模型|模型名|模型名称)$/, 'model'],
  [/^(engine|engines|framework|backend|server|inferenceengine|servingengine|推理框架|框架|引擎|推理引擎|后端|服务框架|部署框架)$/, 'engine'],
  [/^(gpu|gpus|gpu型号|gputype|hardware|device|accelerator|显卡|硬件|卡型|设备|加速卡|机型|gpu数量?)$/, 'gpu'],
  [/^(tp|tpsize|tensorparallel|tensorparallelsize|张量并行|tp数)$/, 'tp'],
  [/^(quantization|quant|量化|量化方式|dtype|精度)$/, 'quantization'],
];

const NAME_COLUMN = /^(|benchmark|benchmarks|metadatabenchmark|metric|metrics|指标|性能指标|场景|测试场景|case|scenario|config|configuration|setup|配置|测试项|strategy|profile|load|负载|name|名称|项目|run|test)$/;

/** What a column or row heading names (see the module comment); null for a heading this vocabulary does not know. */
export function readHeading(raw: string): Heading {
  const text = normalized(raw);
  const tight = squeezed(text);
  const bare = squeezed(text.replace(/[([][^)\]]*[)\]]/g, ''));
  const w = words(text);
  if (NAME_COLUMN.test(bare)) return { kind: 'name' };
  for (const [pattern, label] of LABELS) if (pattern.test(bare)) return { kind: 'label', label };
  // Shares and resources are no figure of ours: a success rate is not a count, memory not a time.
  if (/successrate|成功率|errorrate|错误率|失败率|memory|显存|内存|利用率|utili[sz]ation|peak|峰值|cost|成本|价格|price|accuracy|准确率|mmlu|gsm8k/.test(tight)) return null;
  const unit = headingUnit(text);
  const stat = headingStat(text, tight);
  const percentiles = listedPercentiles(text);
  const statOf = (metric: StatMetric): Heading => {
    if (percentiles.length >= 2) return { kind: 'percentiles', metric, percentiles, unit };
    return { kind: 'stat', metric, stat: stat ?? 'mean', unit };
  };
  if (w.includes('ttft') || /timetofirst|firsttoken(latency|time)?|首(字|token|包|词|个token)/.test(tight)) return statOf('ttftMs');
  if (w.includes('tpot') || /timeperoutputtoken|每(个)?(输出)?token|单token|perout(put)?token|outputtokenlatency/.test(tight)) return statOf('tpotMs');
  if (w.includes('itl') || /intertoken|interchunk|token间|字间/.test(tight)) return statOf('itlMs');
  // A token or request rate before "latency" words: `Output tok/s`, `QPS`, `吞吐量 (tokens/s)`.
  if (/input(token)?s?throughput|prompt(token)?s?throughput|输入吞吐|prefillthroughput|输入token吞吐/.test(tight)) return null;
  if (/total(token)?s?throughput|tottok|totaltok|总吞吐|totaltps/.test(tight) || (unit === 'tok/s' && /\btot(al)?\b|总/.test(text))) return figureOf('totalTokensPerSecond', stat, unit);
  if (/output(token)?s?throughput|outputtoks?\/|outtok|gen\.?toks?|generat(ion|ed)(token)?s?(throughput|\/s|persec)|decode(throughput|speed)|输出吞吐|生成速度|生成吞吐|输出速度|输出token吞吐|outputtps/.test(tight) || (unit === 'tok/s' && /\b(out|output|gen)\b|输出|生成/.test(text))) {
    return figureOf('outputTokensPerSecond', stat, unit);
  }
  // GuideLLM's console groups "Per Second" under "Request Stats".
  const perSecond = /persecond|每秒/.test(tight) && !/tok/.test(tight);
  if (unit === 'req/s' || perSecond || /requestthroughput|reqthroughput|请求吞吐/.test(tight) || w.includes('rps') || w.includes('qps')) {
    // `Request rate (req/s)` is the load asked for; `QPS` and `Request throughput (req/s)` what was measured.
    if (/requestrate|targetrate|请求速率/.test(tight)) return { kind: 'load', load: 'rate' };
    return figureOf('requestsPerSecond', stat, 'req/s');
  }
  if (unit === 'tok/s' || /throughput|吞吐/.test(tight)) return figureOf('throughput', stat, unit);
  // 耗时 / 用时 ("time spent") with a statistic is a request's latency (平均耗时), without one the test's duration.
  if (/duration|timetaken|elapsed|testtime|benchmarktime|totaltime|wallclock|测试时长|总时长|总时间|总耗时|总用时/.test(tight)) return figureOf('durationSec', null, unit);
  if (/耗时|用时/.test(tight) && !stat) return figureOf('durationSec', null, unit);
  if (w.includes('e2el') || w.includes('e2e') || w.includes('lat') || /latency|endtoend|延迟|时延|响应时间|耗时|用时|端到端/.test(tight)) return statOf('latencyMs');
  if (/^(concurrency|concurrent|conc\.?|maxconcurrency|parallel|parallelism|users|clients|并发|并发数|并发度|并发量|并行|并行数|用户数)$/.test(bare) || /(?<!张量|流水线|数据)并[发行]/.test(tight)) {
    return { kind: 'load', load: 'concurrency' };
  }
  if (/concurrency/.test(tight) && !/tensor|pipeline|data/.test(tight)) return { kind: 'load', load: 'concurrency' };
  if (/^(rate|requestrate|targetrate|arrivalrate|请求速率|请求率|到达率|发送速率|目标qps)$/.test(bare)) return { kind: 'load', load: 'rate' };
  if (/success(ful)?|succeed|completed|成功|完成/.test(tight)) return figureOf('requestsCompleted', null, null);
  if (/fail(ed|ure)?|errors?$|失败|错误/.test(tight)) return figureOf('requestsFailed', null, null);
  if (/^(requests|totalrequests|numrequests|numprompts|请求数|请求总数|总请求数|请求数量)$/.test(bare)) return figureOf('requestsTotal', null, null);
  if (/^(prompt|input)$|input(tokens?|len|length)|prompt(tokens?|len|length)|输入(token|长度|tokens)|^输入$/.test(bare)) return statOf('inputTokens');
  if (/^(output|completion)$|output(tokens?|len|length)|completion(tokens?)|generatedtokens|输出(token|长度|tokens)|^输出$/.test(bare)) return statOf('outputTokens');
  if (stat) return { kind: 'bare-stat' };
  return null;
}

/** A per-step figure is one value: a column of its p99 (`P99 Output tok/s`) is nothing we hold. */
function figureOf(figure: StepFigure, stat: string | null, unit: string | null): Heading {
  if (stat !== null && stat !== 'mean') return null;
  return { kind: 'figure', figure, unit };
}

/** The load steps of GuideLLM are named by: `synchronous`, `throughput`, `constant@2.50`, `poisson@1.0`, `concurrent@8`, `asynchronous@1.57 req/sec`. */
export const GUIDELLM_STRATEGY = /^(synchronous|throughput|constant|poisson|concurrent|async(?:hronous)?)(?:\s*@\s*([\d.,]+)(?:\s*req\/s(?:ec)?)?)?$/i;

/**
 * The load a row or column is named by: GuideLLM's strategies, our own step names
 * (`concurrency@8`), or words (`并发 8`, `8 并发`, `concurrency=8`, `c=8`, `rate 2.5`,
 * `2.5 req/s`). A bare number (`8`) is a concurrency only where `bareNumber` says so (the column
 * heads of a transposed table). Null when the name states no load.
 */
export function loadIn(name: string, bareNumber = false): StepProfile | null {
  const text = name.normalize('NFKC').replace(/\*\*|__|`/g, '').trim();
  const strategy = text.match(GUIDELLM_STRATEGY);
  if (strategy) {
    const kind = (strategy[1] ?? '').toLowerCase();
    const number = strategy[2] ? Number(strategy[2].replace(/,/g, '')) : null;
    if (kind === 'synchronous') return { kind: 'synchronous' };
    if (kind === 'throughput') return { kind: 'throughput' };
    if (number === null || !(number > 0)) return null;
    if (kind === 'concurrent') return Number.isInteger(number) ? { kind: 'concurrency', concurrency: number } : null;
    if (kind === 'constant' || kind === 'poisson') return { kind: 'rate', rate: number, arrival: kind };
    return { kind: 'rate', rate: number };
  }
  const concurrency =
    text.match(/(?:并发数?|并行数?|concurrency|concurrent|conc\.?|parallel|users?|\bc)\s*[=:：@]?\s*(\d+)\b/i)?.[1] ??
    text.match(/\b(\d+)\s*(?:路?并发|个并发|并发数|concurrent|users?|clients?)/i)?.[1] ??
    (bareNumber ? text.match(/^(\d+)$/)?.[1] : undefined);
  if (concurrency && Number(concurrency) > 0) return { kind: 'concurrency', concurrency: Number(concurrency) };
  const rate =
    text.match(/(?:request\s*rate|rate|qps|rps|请求速率)\s*[=:：@]?\s*(\d+(?:\.\d+)?)/i)?.[1] ?? text.match(/(\d+(?:\.\d+)?)\s*(?:req\/s(?:ec)?|rps|qps)\b/i)?.[1];
  if (rate && Number(rate) > 0) return { kind: 'rate', rate: Number(rate) };
  return null;
}
