/**
 * Tuning a server's flags: the tune config a person writes (`*.llmtune-config.json`, or any JSON
 * file given to `llmbench tune --config`), the tune file the tuner writes as it goes
 * (`*.llmtune.json`, valid JSON after every trial), and the events a running tune reports. The
 * views, the command line and the extension read all three through these schemas.
 */
import * as z from 'zod';
import { EndpointConfigSchema, LIMITS, RUN_PRESET_IDS, RunConfigSchema } from './config';
import { RunEventSchema } from './events';
import { describeZodError, PERCENTILES, ttfoStatsOf, type ParseOutcome, type StepSummary } from './result';
import { messageOf } from './errors';

/** 2: trials numbered from 1 (`number`); schema 1 numbered them from 0 (`index`), read by `parseTuneFile` all the same. */
export const TUNE_SCHEMA_VERSION = 2;
export const TUNE_FILE_SUFFIX = '.llmtune.json';
export const TUNE_CONFIG_FILE_SUFFIX = '.llmtune-config.json';

/** A parameter name, also its placeholder `{name}` in the server command: no spaces or braces. */
export const ParamNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'a parameter name is letters, digits, _ . - and starts with a letter or _ (it is written {name} in the command)')
  .refine((name) => name !== 'port', '"port" is the placeholder of the server\'s port; name the parameter otherwise');

/** Placeholders the tuner fills itself. */
export const PORT_PLACEHOLDER = '{port}';

/**
 * Arguments a parameter adds at the end of the command, with `{value}` standing for its value:
 * `["--max-num-seqs", "{value}"]`. An alternative to a `{name}` placeholder inside the command.
 */
const ArgsSchema = z.array(z.string()).min(1);

/** One or more arguments, or none (omitted) when absent. */
const BoolArgumentsSchema = z.union([z.string(), z.array(z.string())]);

export const IntParamSchema = z
  .object({
    type: z.literal('int'),
    min: z.number().int(),
    max: z.number().int(),
    /** Sampled evenly on a log scale (sizes such as batch sizes, where 4 to 8 matters as much as 128 to 256). */
    log: z.boolean().default(false),
    /** Only min, min + step, min + 2 step, ... up to max. */
    step: z.number().int().positive().optional(),
    args: ArgsSchema.optional(),
  })
  .strict()
  .refine((p) => p.min <= p.max, { message: 'min must not exceed max', path: ['max'] })
  .refine((p) => !p.log || p.min >= 1, { message: 'a log range needs min of at least 1', path: ['min'] })
  .refine((p) => !(p.log && p.step !== undefined), { message: 'give either log or step, not both', path: ['step'] });

export const ChoiceParamSchema = z
  .object({
    type: z.literal('choice'),
    /** Numbers are ordered (the search treats them as ordinal); strings are plain categories. */
    values: z.array(z.union([z.number(), z.string()])).min(1, 'give at least one value'),
    args: ArgsSchema.optional(),
  })
  .strict()
  .refine((p) => new Set(p.values).size === p.values.length, { message: 'values must be distinct', path: ['values'] });

export const BoolParamSchema = z
  .object({
    type: z.literal('bool'),
    /** Arguments when true (`--enable-chunked-prefill`); none when left out. */
    true: BoolArgumentsSchema.optional(),
    /** Arguments when false (`--no-enable-chunked-prefill`); none when left out. */
    false: BoolArgumentsSchema.optional(),
  })
  .strict()
  .refine((p) => p.true !== undefined || p.false !== undefined, { message: 'a bool needs the arguments of true, of false, or both (left out: no argument)' });

export const ParamSpecSchema = z.union([IntParamSchema, ChoiceParamSchema, BoolParamSchema]);
export type ParamSpec = z.infer<typeof ParamSpecSchema>;
export type IntParam = z.infer<typeof IntParamSchema>;
export type ChoiceParam = z.infer<typeof ChoiceParamSchema>;
export type BoolParam = z.infer<typeof BoolParamSchema>;

export const ParamValueSchema = z.union([z.number(), z.string(), z.boolean()]);
export type ParamValue = z.infer<typeof ParamValueSchema>;
export const ParamsSchema = z.record(z.string(), ParamValueSchema);
export type Params = z.infer<typeof ParamsSchema>;

export const ServerConfigSchema = z
  .object({
    /**
     * The server's argument array (never a shell string). `{name}` is a parameter's value; a bool's
     * `{name}` must be a whole argument (it becomes its arguments, or none). `{port}` is a free port
     * chosen per trial. A first word `llmbench` is this package's own command line.
     */
    command: z.array(z.string()).min(1, 'command needs at least the program to run'),
    env: z.record(z.string(), z.string()).default({}),
    /** Working directory; relative to the tune config's folder. */
    cwd: z.string().min(1).optional(),
    /** Polled until it answers 200: vLLM, SGLang and llama.cpp serve both. */
    readyPath: z.enum(['/health', '/v1/models']).default('/v1/models'),
    startTimeoutSec: z.number().positive().max(LIMITS.durationSec).default(600),
    /** After SIGTERM, how long the server has before SIGKILL. */
    stopGraceSec: z.number().nonnegative().max(3600).default(10),
  })
  .strict();
export type ServerConfig = z.infer<typeof ServerConfigSchema>;

/** Rule sets shipped with LLM Bench, named in `constraints`. */
export const CONSTRAINT_SET_NAMES = ['vllm', 'llama.cpp'] as const;
export const ConstraintSetNameSchema = z.enum(CONSTRAINT_SET_NAMES);
export type ConstraintSetName = z.infer<typeof ConstraintSetNameSchema>;

export const COMPARISONS = ['<', '<=', '==', '!=', '>=', '>', 'multipleOf', 'in'] as const;
/**
 * A side of a comparison: a string names a parameter; `{"value": ...}` is a literal (needed for
 * string literals, which would read as names); numbers and booleans are literals as they are.
 */
export const OperandSchema = z.union([z.string(), z.number(), z.boolean(), z.object({ value: z.union([ParamValueSchema, z.array(ParamValueSchema)]) }).strict()]);
export type Operand = z.infer<typeof OperandSchema>;
/** `["max_num_batched_tokens", ">=", "max_num_seqs"]`, `["ctx", "multipleOf", "parallel"]`, `["mode", "in", {"value": ["a", "b"]}]`. */
export const ComparisonSchema = z.tuple([OperandSchema, z.enum(COMPARISONS), OperandSchema]);
export type Comparison = z.infer<typeof ComparisonSchema>;

/** A rule between parameters: where every `when` holds, `require` must hold, or the combination is refused without a launch. */
export const ConstraintRuleSchema = z
  .object({
    /** Named in the refusal: `refused by rule ubatch-within-batch`. */
    name: z.string().min(1),
    when: z.array(ComparisonSchema).default([]),
    require: ComparisonSchema,
    message: z.string().optional(),
  })
  .strict();
export type ConstraintRule = z.infer<typeof ConstraintRuleSchema>;

export const ConstraintSchema = z.union([ConstraintSetNameSchema, ConstraintRuleSchema]);
export type Constraint = z.infer<typeof ConstraintSchema>;

/**
 * The benchmark each trial runs: a run config of ours without the endpoint's base URL (the trial's
 * server), a path to a run config file (relative to the tune config's folder), or one of the
 * extension's profile presets (at the settings' defaults) with run config fields over it.
 */
export const BenchmarkConfigSchema = z.union([
  z.string().min(1),
  // The fields over a preset are checked as a run config once merged with it (src/tune/config.ts):
  // parsing them here would fill in defaults that hide the preset's own values.
  // Any string here, so that a misspelt preset is refused by name, listing the presets, rather than
  // as a key the run config does not know.
  z.object({ preset: z.string().meta({ description: `One of ${RUN_PRESET_IDS.join(', ')}` }) }).catchall(z.unknown()),
  // The run config's own cross-field rules (limits needs requests or durationSec, ...) are checked
  // when the tune config is loaded, on the benchmark merged with an endpoint (src/tune/config.ts).
  z.object({ ...RunConfigSchema.shape, endpoint: EndpointConfigSchema.omit({ baseUrl: true }).partial().optional() }).strict(),
]);
export type BenchmarkConfig = z.infer<typeof BenchmarkConfigSchema>;

export const OBJECTIVE_FIGURES = ['outputTokensPerSecond', 'requestsPerSecond', 'goodput'] as const;
export const ObjectiveFigureSchema = z.enum(OBJECTIVE_FIGURES);
export type ObjectiveFigure = z.infer<typeof ObjectiveFigureSchema>;

export const SLO_METRICS = ['ttftMs', 'ttfoMs', 'tpotMs', 'itlMs', 'latencyMs', 'queueMs'] as const;
export const SLO_STATS = ['mean', ...PERCENTILES.map((p) => `p${p}` as const), 'max'] as const;
export const SLO_KEY_PATTERN = new RegExp(`^(${SLO_METRICS.join('|')})\\.(${SLO_STATS.join('|')})$`);
/** `{"ttftMs.p99": 2000, "tpotMs.p95": 50}`: each figure of a step's summary at most this many ms. */
export const SloMapSchema = z.record(
  z.string().regex(SLO_KEY_PATTERN, `an SLO key is METRIC.STAT with METRIC one of ${SLO_METRICS.join(', ')} and STAT one of ${SLO_STATS.join(', ')}, like "ttftMs.p99"`),
  z.number().positive(),
);
export type SloMap = z.infer<typeof SloMapSchema>;
export type SloMetric = (typeof SLO_METRICS)[number];
export type SloStat = (typeof SLO_STATS)[number];

/**
 * An SLO key split into the metric and statistic it names (`ttftMs.p99`): the one reader of SLO
 * keys, for the tuner and the views. A key that is not METRIC.STAT is refused, not guessed at: the
 * schema lets none into a tune config, so one here is a caller's mistake.
 */
export function parseSloKey(key: string): { metric: SloMetric; stat: SloStat } {
  const match = SLO_KEY_PATTERN.exec(key);
  if (!match) throw new Error(`'${key}' is not an SLO key: write METRIC.STAT, like "ttftMs.p99"`);
  return { metric: match[1] as SloMetric, stat: match[2] as SloStat };
}

/** The figure an SLO key names in a step's summary (`ttftMs.p99` -> summary.ttftMs.p99); null when the step did not measure it. */
export function sloFigure(summary: StepSummary, key: string): number | null {
  const { metric, stat } = parseSloKey(key);
  const value = (metric === 'ttfoMs' ? ttfoStatsOf(summary) : summary[metric])?.[stat];
  return typeof value === 'number' ? value : null;
}

/** For max-load-within-slo: which load is searched, between what bounds, to what precision. */
export const LoadSearchSchema = z
  .object({
    kind: z.enum(['rate', 'concurrency']),
    min: z.number().positive(),
    max: z.number().positive(),
    /** The search stops when the bracket [met, missed] is narrower than this share of its lower end (0.1: within 10%). */
    precision: z.number().positive().max(1).default(0.1),
  })
  .strict()
  .refine((s) => s.min < s.max, { message: 'min must be below max', path: ['max'] });
export type LoadSearch = z.infer<typeof LoadSearchSchema>;

export const ObjectiveSchema = z.discriminatedUnion('mode', [
  z
    .object({
      /** Each trial runs the benchmark as configured; the best step meeting the SLOs scores. The default mode. */
      mode: z.literal('maximize').optional(),
      maximize: ObjectiveFigureSchema,
      slo: SloMapSchema.default({}),
    })
    .strict(),
  z
    .object({
      /** Each trial finds the highest load meeting the SLOs (our answer to vLLM's serve_sla); that load scores. */
      mode: z.literal('max-load-within-slo'),
      slo: SloMapSchema.refine((slo) => Object.keys(slo).length > 0, 'max-load-within-slo needs at least one SLO'),
      load: LoadSearchSchema,
    })
    .strict(),
])
  // Read as written without a mode, the objective always has one once parsed.
  .transform((objective) => (objective.mode === undefined ? { ...objective, mode: 'maximize' as const } : objective));
export type Objective = z.infer<typeof ObjectiveSchema>;

export const BudgetSchema = z
  .object({
    trials: z.number().int().positive().max(10_000).optional(),
    wallTimeSec: z.number().positive().max(LIMITS.durationSec).optional(),
  })
  .strict()
  .refine((b) => b.trials !== undefined || b.wallTimeSec !== undefined, { message: 'budget needs trials and/or wallTimeSec, or the tune would never end' });
export type Budget = z.infer<typeof BudgetSchema>;

export const SEARCH_STRATEGIES = ['tpe', 'random'] as const;
export const SearchConfigSchema = z
  .object({
    /** tpe: model-based (docs/tuning.md); random: uniform sampling, for comparison. */
    strategy: z.enum(SEARCH_STRATEGIES).default('tpe'),
    seed: z.number().int().default(1),
  })
  .strict();
export type SearchConfig = z.infer<typeof SearchConfigSchema>;

/** What re-measurement does when the tune config says nothing: the best 3 candidates, 3 rounds each (docs/tuning.md says why). */
export const REMEASURE_DEFAULTS = { candidates: 3, rounds: 3 } as const;

/**
 * After the search, the best candidates (by the search's figures) are launched and benchmarked
 * again, `rounds` times each, interleaved; the winner is the best mean of these re-measurements,
 * given with its 95% interval. `false` turns it off (the best is then one measurement).
 */
export const RemeasureConfigSchema = z.union([
  z.literal(false),
  z
    .object({
      candidates: z.number().int().min(1).max(10).default(REMEASURE_DEFAULTS.candidates),
      rounds: z.number().int().min(2, 'must be at least 2: an interval needs two measurements (write "remeasure": false to turn re-measurement off)').max(20).default(REMEASURE_DEFAULTS.rounds),
    })
    .strict(),
]);
export type RemeasureConfig = z.infer<typeof RemeasureConfigSchema>;

export const TuneConfigSchema = z
  .object({
    server: ServerConfigSchema,
    space: z.record(ParamNameSchema, ParamSpecSchema).refine((space) => Object.keys(space).length > 0, 'space needs at least one parameter'),
    constraints: z.array(ConstraintSchema).default([]),
    benchmark: BenchmarkConfigSchema,
    objective: ObjectiveSchema,
    budget: BudgetSchema,
    search: SearchConfigSchema.default(SearchConfigSchema.parse({})),
    remeasure: RemeasureConfigSchema.default({ ...REMEASURE_DEFAULTS }),
  })
  .strict();
export type TuneConfig = z.infer<typeof TuneConfigSchema>;
export type TuneConfigInput = z.input<typeof TuneConfigSchema>;

export const TRIAL_STATUSES = ['refused', 'failed-to-start', 'failed', 'complete'] as const;
export const TrialStatusSchema = z.enum(TRIAL_STATUSES);
export type TrialStatus = z.infer<typeof TrialStatusSchema>;

export const TrialSloSchema = z.object({
  met: z.boolean(),
  /** Each SLO key's measured value (null: not measured, e.g. TPOT without streaming). */
  figures: z.record(z.string(), z.number().nullable()),
});
export type TrialSlo = z.infer<typeof TrialSloSchema>;

/** A trial's number: from 1, in the order the trials ran, as the command line, the trial files (NAME.trial-N.*) and the views name it. */
export const TrialNumberSchema = z.number().int().positive();

export const TrialSchema = z.object({
  number: TrialNumberSchema,
  params: ParamsSchema,
  /** The server's argv as launched (or as it would have been, for a refused trial). */
  command: z.array(z.string()),
  status: TrialStatusSchema,
  /** Why not complete: the rule broken, the server's last error line, the benchmark's failure. */
  reason: z.string().nullable(),
  /** The objective's value; null when not measured or when no step met the SLOs. */
  objective: z.number().nullable(),
  /** Null when nothing was measured (refused, failed to start). */
  slo: TrialSloSchema.nullable(),
  /** The load the objective was measured at: the best step's concurrency or rate, or the load found (max-load-within-slo). */
  load: z.object({ kind: z.enum(['rate', 'concurrency']), value: z.number() }).nullable().default(null),
  /** The trial's result file(s), relative to the tune file's folder; the last is the one the objective came from. */
  resultFile: z.string().nullable(),
  /** The server's output, relative to the tune file's folder. */
  logFile: z.string().nullable(),
  port: z.number().int().nullable(),
  /**
   * GPU memory held by the trial's server at the end of its benchmark: the compute processes of its
   * process tree (or its container) as nvidia-smi lists them. Null when no figure can be told apart.
   */
  gpuMemoryUsedMiB: z.number().nullable(),
  /** Why the GPU memory is null, or what it covers when it is not the server's alone; null when nothing needs saying. */
  gpuMemoryNote: z.string().nullable().default(null),
  startedAt: z.string(),
  endedAt: z.string(),
});
export type Trial = z.infer<typeof TrialSchema>;

/** One launch of a candidate after the search (round `round`), recorded as a trial is, under the candidate's number. */
export const RemeasureRunSchema = TrialSchema.omit({ number: true, params: true, command: true, status: true }).extend({
  /** The candidate re-measured: its trial's number. */
  trial: TrialNumberSchema,
  round: z.number().int().positive(),
  status: z.enum(['failed-to-start', 'failed', 'complete']),
});
export type RemeasureRun = z.infer<typeof RemeasureRunSchema>;

/** A candidate's figure over its re-measurements: mean and 95% Student's t half-width of the runs that scored; `missed`: runs that did not (failed, or no step met the SLOs). */
export const CandidateSummarySchema = z.object({
  trial: TrialNumberSchema,
  n: z.number().int().nonnegative(),
  mean: z.number().nullable(),
  halfWidth: z.number().nullable(),
  missed: z.number().int().nonnegative(),
});
export type CandidateSummary = z.infer<typeof CandidateSummarySchema>;

/** The re-measurement after the search: who, how often, each run, each candidate's figure and the noise seen. */
export const RemeasureSchema = z.object({
  /** The candidates, best first by the search's figures. */
  candidates: z.array(TrialNumberSchema),
  rounds: z.number().int().positive(),
  status: z.enum(['running', 'complete', 'cancelled']),
  /** In the order they ran: round by round, each round starting one candidate further on. */
  runs: z.array(RemeasureRunSchema),
  /** Per candidate, in the order of `candidates`. */
  summaries: z.array(CandidateSummarySchema),
  /**
   * The noise: how far one measurement of the same flags strays, as a share of its mean (the
   * standard deviation across a candidate's re-measurements, pooled over the candidates), in
   * percent. Null with fewer than two scored runs of any candidate.
   */
  noisePercent: z.number().nullable(),
});
export type Remeasure = z.infer<typeof RemeasureSchema>;

export const BestTrialSchema = z.object({
  /** The best trial's number. */
  trial: TrialNumberSchema,
  params: ParamsSchema,
  /** Its figure: the mean of its re-measurements once the tune re-measured its candidates, else the search's one measurement. */
  objective: z.number(),
  command: z.array(z.string()),
});
export type BestTrial = z.infer<typeof BestTrialSchema>;

export const TuneStatusSchema = z.enum(['running', 'complete', 'cancelled', 'failed']);
export type TuneStatus = z.infer<typeof TuneStatusSchema>;

export const TuneFileSchema = z.object({
  schemaVersion: z.literal(TUNE_SCHEMA_VERSION),
  tool: z.object({ name: z.string(), version: z.string() }),
  /** The tune config as parsed (defaults applied). */
  config: TuneConfigSchema,
  /** Where relative paths of the config resolve: the config file's folder. */
  configDir: z.string(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  status: TuneStatusSchema,
  statusReason: z.string().nullable(),
  /**
   * The process writing a running tune, removed when it finishes: --resume refuses a file whose
   * writer still runs (the same pid with the same start time, on this host).
   */
  writer: z.object({ pid: z.number().int().positive(), host: z.string(), startTime: z.string().optional() }).optional(),
  trials: z.array(TrialSchema),
  best: BestTrialSchema.nullable(),
  /** The re-measurement of the best candidates after the search; null before it starts, or when the config turns it off. */
  remeasure: RemeasureSchema.nullable().default(null),
  /**
   * The server of the trial under way (its process group): a resumed tune stops it if a crashed
   * tuner left it running, once the process with that pid is shown to be it: on the same host,
   * started at the same time (/proc/PID/stat), running the same command line.
   */
  runningServer: z
    .object({
      trial: TrialNumberSchema,
      pid: z.number().int().positive(),
      port: z.number().int(),
      /** Where it runs; older files left it to `writer.host`. */
      host: z.string().optional(),
      /** Its start time in clock ticks after boot (/proc/PID/stat field 22), where known. */
      startTime: z.string().optional(),
      /** Its command line as the process had it (/proc/PID/cmdline). */
      command: z.array(z.string()).optional(),
      /** The container a `docker run` (or podman) server runs in: it escapes the process group and is stopped by name. */
      container: z.string().optional(),
    })
    .nullable()
    .default(null),
});
export type TuneFile = z.infer<typeof TuneFileSchema>;

/** Where a running trial is: launching its server, waiting for it to answer, benchmarking, stopping it. */
export const TrialStageSchema = z.enum(['launching', 'waiting-ready', 'benchmarking', 'stopping']);
export type TrialStage = z.infer<typeof TrialStageSchema>;

export const TuneEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('trial-start'),
    trial: TrialNumberSchema,
    params: ParamsSchema,
    command: z.array(z.string()),
    port: z.number().int().nullable(),
    logFile: z.string().nullable(),
    /** Set when this launch re-measures trial `trial` after the search: its round. */
    round: z.number().int().positive().optional(),
  }),
  /** One line the trial's server wrote. */
  z.object({
    type: z.literal('server-log'),
    trial: TrialNumberSchema,
    stream: z.enum(['stdout', 'stderr']),
    line: z.string(),
  }),
  z.object({ type: z.literal('trial-stage'), trial: TrialNumberSchema, stage: TrialStageSchema }),
  /** The trial's benchmark as it goes (progress, steps), as `llmbench run` reports it. */
  z.object({ type: z.literal('benchmark'), trial: TrialNumberSchema, event: RunEventSchema }),
  z.object({ type: z.literal('trial-end'), trial: TrialSchema, best: BestTrialSchema.nullable() }),
  /** The re-measurement as it stands: when it starts and after each of its runs. */
  z.object({ type: z.literal('remeasure'), remeasure: RemeasureSchema, best: BestTrialSchema.nullable() }),
  z.object({ type: z.literal('log'), level: z.enum(['info', 'warn', 'error']), message: z.string() }),
  z.object({ type: z.literal('done'), status: TuneStatusSchema, reason: z.string().nullable(), best: BestTrialSchema.nullable(), trials: z.number().int().nonnegative() }),
]);
export type TuneEvent = z.infer<typeof TuneEventSchema>;

/**
 * Parses a tune file's text, for every reader (the custom editor, the command line, --resume). The
 * error says what is wrong in words a user can act on.
 */
export function parseTuneFile(text: string): ParseOutcome<TuneFile> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `The file is not valid JSON (${messageOf(e)}). It may be truncated or hand-edited.` };
  }
  const version = isRecord(raw) ? raw['schemaVersion'] : undefined;
  if (typeof version === 'number' && version > TUNE_SCHEMA_VERSION) {
    return { ok: false, error: `The file has schemaVersion ${version}, newer than this version of LLM Bench understands (${TUNE_SCHEMA_VERSION}). Update LLM Bench to open it.` };
  }
  const parsed = TuneFileSchema.safeParse(isRecord(raw) && version === 1 ? fromSchema1(raw) : raw);
  if (!parsed.success) return { ok: false, error: `The file is not an LLM Bench tune file: ${describeZodError(parsed.error)}` };
  return { ok: true, value: parsed.data };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A tune file of schema 1, whose trials were numbered from 0 (`index`), in schema 2's terms: each
 * trial's number is its index + 1, and so are the best trial's and the running server's. Its trial
 * files keep the names they were written under (NAME.trial-0.*), which its trials still give.
 */
function fromSchema1(raw: Record<string, unknown>): Record<string, unknown> {
  const shifted = (value: unknown): unknown => (typeof value === 'number' ? value + 1 : value);
  const renumbered = (holder: unknown): unknown => (isRecord(holder) ? { ...holder, trial: shifted(holder['trial']) } : holder);
  const trials = Array.isArray(raw['trials'])
    ? raw['trials'].map((trial: unknown) => {
        if (!isRecord(trial)) return trial;
        const { index, ...rest } = trial;
        return { ...rest, number: shifted(index) };
      })
    : raw['trials'];
  return { ...raw, schemaVersion: TUNE_SCHEMA_VERSION, trials, best: renumbered(raw['best']), runningServer: renumbered(raw['runningServer']) };
}
