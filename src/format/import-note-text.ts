/**
 * The notes the importers keep with an imported run (`importedFrom.notes`: how the tool's figures
 * differ from ours, what was left out), as templates in the form of src/format/warning-text.ts: the
 * importer fills one (so a result file and the English views read these words), and a view in
 * another language words a stored note again from the same template (sayWarning,
 * src/views/step-warnings.ts). A heading or cell quoted from the user's file fills a placeholder
 * and stays as written.
 */
export const IMPORT_NOTE_TEXT = {
  aiperf: {
    tpot: 'AIPerf\'s "inter_token_latency" is (latency - TTFT) / (output tokens - 1): our TPOT, imported as TPOT. Its "inter_chunk_latency" (ICL) is our ITL.',
    outputTokens: 'Output tokens are AIPerf\'s output_sequence_length, reasoning tokens included (as a server\'s usage counts them).',
    percentiles: 'AIPerf keeps p1, p5, p25, p50, p75, p90, p95 and p99: p66, p80 and p98 show as n/a. AIPerf does not write its version into these files.',
    recordsOnly: 'Imported from the per-request records alone: the summary was computed by LLM Bench from them, and the load profile is unknown.',
    totalTokens: 'Total tokens/s is (total_isl + total_osl) / benchmark_duration from the summary.',
  },
  evalscope: {
    tpot: 'TPOT is (latency - TTFT) / (output tokens - 1) and ITL every gap between streamed chunks, pooled: both as ours.',
    percentiles: 'EvalScope leaves non-streamed requests out of TTFT; its percentiles are nearest-rank (ours interpolate), p66/p80/p98 exist only in older versions.',
    legacyKeys: 'Read with the older key set (times in seconds); EvalScope does not write its version into these files.',
    currentKeys: 'Read with the 2025 key set (times in ms); EvalScope does not write its version into these files.',
    notStreamed:
      '"Average package per request" is {0}: the run did not stream (each reply came in one piece), so its "time to first token" is the whole latency: kept as latency, TTFT left unmeasured (n/a).',
    legacyTpot:
      '"Average time per output token" ({0} s) is 1 / output tokens/s: as EvalScope wrote it before 2025, the test\'s duration / all output tokens, not TPOT: not imported (n/a).',
    noPercentileFile: 'No benchmark_percentile.json beside the summary: only averages are known, percentiles show as n/a.',
  },
  guidellm: {
    itl: 'GuideLLM\'s "ITL" (inter_token_latency_ms: (last token - first token) / (output tokens - 1)) is our TPOT and is imported as TPOT.',
    tpot: 'GuideLLM\'s own "TPOT" (time_per_output_token_ms) includes the first token\'s wait, so it is not imported; our ITL (each gap between streamed chunks) is not in GuideLLM files: n/a.',
    statistics: 'Statistics are over successful requests; GuideLLM has no p66, p80 or p98 (n/a). Latency is converted from seconds to ms.',
    requestsPerSecond:
      "Requests/s is ours: successful requests / duration. GuideLLM's own figure (a duration-weighted mean rate) is kept in config.guidellmRequestsPerSecond, by step. Output tokens/s and concurrency are GuideLLM's time-weighted means.",
    noMetadata: 'The file has no metadata block, so it was written by GuideLLM before 0.4; its exact version is not recorded.',
    sampled: 'GuideLLM keeps only a sample of individual requests; they are not imported.',
  },
  llmperf: {
    itl: 'LLMPerf\'s "inter_token_latency_s" is end-to-end latency / output tokens (the first token\'s wait included): it is not our TPOT and is not imported. Our TPOT is computed per request from the individual responses when they are beside the summary.',
    tokens: "LLMPerf counts output tokens by re-tokenizing the text with a Llama tokenizer, not from the server's usage.",
    rate: "Requests/s is LLMPerf's completed requests per minute / 60; the duration is completed requests / that rate.",
    std: "LLMPerf's stddev is pandas' sample standard deviation (divides by n - 1); it is converted to our population std (divides by n): std * sqrt((n - 1) / n).",
    noSendTimes: 'Individual responses carry no send times: every request is placed at 0 ms; its TTFT and latency are exact.',
    individualOnly: 'Imported from the individual responses alone: statistics were computed by LLM Bench from them; duration and rates are unknown.',
  },
  vllm: {
    definitions: 'TTFT, TPOT (latency - TTFT) / (output tokens - 1) and ITL (every gap between streamed chunks, pooled) are defined as ours.',
    percentiles: 'vLLM stores only the mean, median, std and the percentiles asked with --metric-percentiles (p99 by default): other percentiles show as n/a.',
    throughput: 'Request throughput is successful requests / benchmark duration, as ours.',
    missing: 'The file has no {0}: those values show as n/a (request counts as unknown).',
    noStatistics: 'No {0} statistics in the file (vLLM saves e2el only when --percentile-metrics names it): n/a.',
    noSendTimes: 'Per-request lists (--save-detailed) carry no send times: every request is placed at 0 ms; its TTFT, gaps and latency are exact.',
  },
  /** Printouts and tables read from text (src/import/text.ts, src/import/text-benchmark-table.ts). */
  text: {
    sglang:
      'Printed by SGLang\'s bench_serving, forked from vLLM\'s benchmark_serving: its TTFT, TPOT, ITL and E2E latency are computed as vLLM\'s (the notes below); its "Concurrency" is the mean number of requests in flight.',
    percentilesOutside: "Percentiles given that LLM Bench's statistics have no field for (kept here as written): {0}.",
    evalscopePrintedTpot:
      'This printout\'s "Average time per output token" (EvalScope before its November 2024 rewrite) is the test\'s duration / all output tokens, 1 / output tokens/s, not TPOT: not imported (n/a).',
    noPercentileTable: 'No percentile table under the summary: only averages are known, percentiles show as n/a.',
    evalscopeTable:
      'Read from EvalScope\'s "Performance Test Summary Report" table: request counts and durations are not in it (they read unknown); its success rate is not a count and is not imported.',
    evalscopeTableDefinitions: "TPOT is (latency - TTFT) / (output tokens - 1), as ours; EvalScope's percentiles are nearest-rank (ours interpolate).",
    unreadable: 'Cells that are not a figure, left out (n/a): {0}.',
    contradiction: '{0} (line {1}): {2} {3} {4} ms is longer than the latency {3} {5} ms; kept as written, check the source.',
    tablesNotRead: 'Tables in {0} not imported: {1}.',
    bareRates: 'Columns headed by a bare number ({0}) are read as target rates (req/s).',
    bareConcurrencies: 'Columns headed by a bare number ({0}) are read as concurrencies.',
    hintedConcurrency: 'Rows with no load of their own take the one stated above the table (concurrency {0}).',
    hintedRate: 'Rows with no load of their own take the one stated above the table (rate {0} req/s).',
    notRead: 'Not read: {0}.',
    throughputAssumed: '"{0}" names no kind of throughput: read as output tokens/s.',
    measuredConcurrency: 'A concurrency column beside loads named by the rows is read as the measured mean concurrency.',
    noCounts: 'The table gives no request counts: they read unknown.',
    guidellmConsoleSeconds: 'GuideLLM\'s console heads request latency "(ms)" but prints seconds (as its JSON stores them): read as seconds.',
    guidellmUnitless: 'Columns without a unit read as GuideLLM prints them (latency in seconds, TTFT and ITL in ms): {0}.',
    guidellmPrinted: "Read from GuideLLM's printed table: requests/s, output tokens/s and concurrency are GuideLLM's own (time-weighted from 0.4) figures.",
    guidellmBefore02:
      'Read from GuideLLM\'s tables as it printed them before 0.2 ("Performance Summary by Benchmark" and the tables above it): requests/s is completed requests / duration and output tokens/s all output tokens / duration, as ours.',
    anyTable:
      'Read from a table of figures by what its headings name: the figures are as the page states them; how the tool that measured them defines TTFT, TPOT and ITL cannot be told from a table.',
    guidellmWords:
      'The table is headed with GuideLLM\'s words (as LLM Bench\'s Markdown export heads it too): its "Inter Token Latency" is GuideLLM\'s, (last token - first token) / (output tokens - 1), our TPOT, and is read as TPOT.',
    withoutMean: 'Statistics given without their mean are not stored (LLM Bench keeps a metric with its mean): {0}.',
    twice: 'Figures given twice with different values (the first kept): {0}.',
    rowNoLoad: 'line {0}: {1} states no load (no concurrency or rate column, row name or line above saying one): left out.',
    rowNoFigure: 'line {0} ({1}): no figure in the row: left out.',
    rowTwice: 'Lines {0} and {1} are both {2}: kept as two steps of that name, check the source.',
  },
} as const;

/** The unit a table's time column without one is read in (src/import/text-benchmark-table.ts), by unit: its `{1}` a `why`. */
export const IMPORT_UNIT_TEXT = {
  noUnit: { s: '"{0}" has no unit: read as seconds ({1}).', ms: '"{0}" has no unit: read as ms ({1}).' },
  why: {
    littleSeconds: "Little's law: concurrency ÷ (requests/s × latency) is {0} in seconds",
    littleMs: "Little's law: concurrency ÷ (requests/s × latency) is {0} in ms",
    bySizeNeither: "by the size of its figures; Little's law fits neither unit ({0} in seconds), check the source",
    bySize: 'by the size of its figures',
    duration: 'a test duration',
    asLatency: 'as the latency beside it',
  },
} as const;

/**
 * What a table of figures was read as (src/import/text-benchmark-table.ts): `byColumns` or `byRows`,
 * its `{1}` the headings, each `readAs` or `notImported` (its `{1}` a `why`), joined by `; `. A
 * heading is the user's, kept as written; what it was read as is LLM Bench's name of the figure.
 */
export const IMPORT_READ_TEXT = {
  byColumns: 'Read from the table at line {0} by its column names: {1}.',
  byRows: 'Read from the table at line {0} by its row names (metrics as rows, a column per step): {1}.',
  joined: '{0}; {1}',
  readAs: '"{0}" as {1}',
  notImported: '"{0}" not imported ({1})',
  why: { noField: 'no field', guidellmTpot: "GuideLLM's TPOT includes the first token's wait" },
} as const;
