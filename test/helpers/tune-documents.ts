/**
 * Tune files built by hand for the tune view tests and the e2e gallery: the issue's tune config
 * (parsed, defaults applied) and trials of every status, each as the tuner writes them.
 */
import { TUNE_SCHEMA_VERSION, TuneConfigSchema, TuneFileSchema, type Trial, type TuneConfig, type TuneConfigInput, type TuneFile } from '../../src/format/tune';

/** What the simulator tunes of the tests change. */
export interface SimulatorTune {
  trials: number;
  requests: number;
  levels: number[];
  ttftP99Ms: number;
  /** Run the simulated model this many times faster (a flag of the server command). */
  speedup?: number;
  /** Small synthetic requests (64 in, 16 out), for the test tiers' short trials. */
  shortRequests?: boolean;
}

/** The simulator's vLLM flags of issue 12 as a search space: slots from 4 to `maxSeqs`, batched tokens, chunked prefill. */
export function simulatorVllmSpace(maxSeqs: number): TuneConfigInput['space'] {
  return {
    max_num_seqs: { type: 'int', min: 4, max: maxSeqs, log: true },
    max_num_batched_tokens: { type: 'choice', values: [512, 1024, 2048, 4096, 8192] },
    enable_chunked_prefill: { type: 'bool', true: '--enable-chunked-prefill', false: '--no-enable-chunked-prefill' },
  };
}

/** A tune config as a person writes it: the simulator's vLLM flags of issue 12, the vllm rules. */
export function simulatorTuneConfig(tune: SimulatorTune): TuneConfigInput {
  return {
    server: {
      command: ['llmbench', 'sim', '--preset', 'tiny', '--port', '{port}', ...(tune.speedup ? ['--speedup', String(tune.speedup)] : []), '--max-num-seqs', '{max_num_seqs}', '--max-num-batched-tokens', '{max_num_batched_tokens}', '--max-model-len', '4096', '{enable_chunked_prefill}'],
      readyPath: '/v1/models',
      startTimeoutSec: 60,
      stopGraceSec: 5,
    },
    space: simulatorVllmSpace(256),
    constraints: ['vllm'],
    benchmark: {
      ...(tune.shortRequests ? { workload: { kind: 'synthetic', inputTokens: 64, outputTokens: 16 } } : {}),
      profile: { kind: 'concurrency', levels: tune.levels },
      limits: { requests: tune.requests },
    },
    objective: { maximize: 'outputTokensPerSecond', slo: { 'ttftMs.p99': tune.ttftP99Ms } },
    budget: { trials: tune.trials },
  };
}

/** The tune config of issue 12, parsed (defaults applied). */
export function issueTuneConfig(): TuneConfig {
  return TuneConfigSchema.parse(simulatorTuneConfig({ trials: 12, requests: 64, levels: [32], ttftP99Ms: 2000 }));
}

interface TrialShape {
  seqs: number;
  batched: number;
  chunked: boolean;
  status?: Trial['status'];
  reason?: string;
  objective?: number | null;
  ttftP99?: number | null;
}

/** Trial `number` (from 1) as the tuner records it: refused and failed-to-start trials measured nothing. */
export function makeTrial(number: number, shape: TrialShape): Trial {
  const status = shape.status ?? 'complete';
  const measured = status === 'complete' || status === 'failed';
  const params = { max_num_seqs: shape.seqs, max_num_batched_tokens: shape.batched, enable_chunked_prefill: shape.chunked };
  const ttft = shape.ttftP99 ?? null;
  return {
    number,
    params,
    command: ['/usr/bin/node', '/ext/dist/cli.js', 'sim', '--preset', 'tiny', '--port', String(41000 + number), '--max-num-seqs', String(shape.seqs), '--max-num-batched-tokens', String(shape.batched), '--max-model-len', '4096', shape.chunked ? '--enable-chunked-prefill' : '--no-enable-chunked-prefill'],
    status,
    reason: shape.reason ?? null,
    objective: measured ? (shape.objective ?? null) : null,
    slo: measured ? { met: ttft !== null && ttft <= 2000, figures: { 'ttftMs.p99': ttft } } : null,
    load: measured && shape.objective !== null ? { kind: 'concurrency', value: 32 } : null,
    resultFile: measured ? `tune-trials/trial-${number}.llmbench.json` : null,
    logFile: status === 'refused' ? null : `tune-trials/trial-${number}.log`,
    port: status === 'refused' ? null : 41000 + number,
    gpuMemoryUsedMiB: null,
    gpuMemoryNote: null,
    startedAt: `2026-11-25T08:0${number - 1}:00.000Z`,
    endedAt: `2026-11-25T08:0${number - 1}:30.000Z`,
  };
}

/** Six trials: four complete (one over the SLO), one refused by the vllm rules, one that failed to start. */
export function sampleTuneFile(overrides: Partial<TuneFile> = {}): TuneFile {
  const trials = [
    makeTrial(1, { seqs: 16, batched: 2048, chunked: false, objective: 900, ttftP99: 800 }),
    makeTrial(2, { seqs: 128, batched: 512, chunked: false, status: 'refused', reason: 'refused by rule vllm.batched-tokens-cover-model-len: max_num_batched_tokens (512) is smaller than max_model_len (4096) and chunked prefill is off' }),
    makeTrial(3, { seqs: 64, batched: 4096, chunked: true, objective: 1500, ttftP99: 1400 }),
    makeTrial(4, { seqs: 256, batched: 8192, chunked: true, objective: null, ttftP99: 2600 }),
    makeTrial(5, { seqs: 4, batched: 1024, chunked: true, status: 'failed-to-start', reason: 'ValueError: max_num_seqs (4) exceeds available KV cache blocks' }),
    makeTrial(6, { seqs: 32, batched: 2048, chunked: true, objective: 1200, ttftP99: 1000 }),
  ];
  return TuneFileSchema.parse({
    schemaVersion: TUNE_SCHEMA_VERSION,
    tool: { name: 'llm-bench', version: '0.1.0' },
    config: issueTuneConfig(),
    configDir: '/work/tune',
    createdAt: '2026-11-25T08:00:00.000Z',
    finishedAt: '2026-11-25T08:06:00.000Z',
    status: 'complete',
    statusReason: null,
    trials,
    best: { trial: 3, params: trials[2]!.params, objective: 1500, command: trials[2]!.command },
    ...overrides,
  });
}
