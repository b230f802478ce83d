/**
 * The engine's public API, for the command line and the extension host. Nothing below
 * src/engine imports `vscode`.
 */
export { runBenchmark, sweepRates, DEFAULT_THROUGHPUT_CONCURRENCY, UNCAPPED_CONNECTION_LIMIT } from './runner';
export { runBenchmarkInWorker, type RunOverview } from './worker-host';
export { computeStats, summarizeStep, tpotOf } from '../results/stats';
export { arrivalSchedule, absoluteSchedule, waitUntil } from './schedule';
export {
  resultFileName,
  readResultDocument,
  asFinished,
  finalizeInterruptedFile,
  summarizeStepOf,
  ResultWriter,
  INTERRUPTED_REASON,
  writeAtomically,
} from '../results/writer';
export { createDispatcher, sendRequest } from './client';
export { probeEndpoint, probeEngineLabels, DEFAULT_PROBE_TIMEOUT_MS, type EndpointProbe, type EngineIdentity, type ProbeOptions } from '../observe/probe';
export { createWorkload, guessDatasetFormat } from '../workload/sources';
export { BadInputError, printable } from '../format/errors';
export { createTokenCounter } from '../workload/tokenizer';
export { readGpuMemoryUsed, detectHardware, hardwareLabels } from '../observe/hardware';
export { parsePrometheusText } from '../observe/prometheus';
export type { RunOptions, RunBenchmark, Workload, TokenCounter, PreparedRequest } from '../workload/types';
