/**
 * `llmbench sim`: runs the built-in simulated inference server in the foreground until Ctrl+C
 * (SIGINT) or SIGTERM. Flags are named after vLLM's server flags. A configuration vLLM would refuse
 * is refused with exit code 2 and the reason.
 */
import { parseChoice, parseFlags, parseNumber, parseNumberList, UsageError, type FlagSpec, type NumberRule } from '../args';
import { PRESET_NAMES, PRESETS, resolveSimConfig, SimConfigError, startSimServer, type SimOptionsInput } from '../../sim';
import { ReasoningFieldSchema } from '../../sim/protocol';

const COMMAND = 'llmbench sim';

const USAGE = `Usage: ${COMMAND} [options]

Runs an OpenAI-compatible server on 127.0.0.1 that simulates a continuous-batching inference
engine (vLLM-like) in real time. Stops on Ctrl+C. See docs/simulator.md.

  --preset NAME                   ${PRESET_NAMES.join(' | ')} (default ${PRESET_NAMES[0]})
  --port P                        port to listen on (default 0: any free port)
  --seed N                        seed for reply lengths, token text and faults (default 42)
  --model NAME                    served model name (default: the preset's)
  --speedup X                     run the model X times faster than real time (default 1)
Engine (vLLM's flags; default: the preset's):
  --max-num-seqs N  --max-num-batched-tokens N  --max-model-len N  --kv-cache-tokens N  --block-size N
  --enable-chunked-prefill | --no-enable-chunked-prefill
  --enable-prefix-caching | --no-enable-prefix-caching
Hardware (default: the preset's):
  --step-base-ms X  --decode-per-seq-ms X  --prefill-tokens-per-sec X  --request-overhead-ms X  --output-per-seq-ms X
Reasoning and embeddings:
  --reasoning-tokens N|MEAN,STDEV every response first streams N reasoning tokens (or a rounded
                                  normal draw per request), counted in max_tokens and reported in
                                  usage.completion_tokens_details.reasoning_tokens
  --reasoning-field F             where they go: reasoning (vLLM 0.11 and later, default),
                                  reasoning_content (older vLLM, SGLang, DeepSeek's API, llama.cpp)
                                  or tags (<think>...</think> in the text: no reasoning parser)
  --embedding-dim N               floats per vector from /v1/embeddings (default 384)
Faults (for testing clients):
  --fault-error-rate P            share of requests answered with an error status (0..1)
  --fault-error-status LIST       statuses to use, e.g. 500,429 (default 500)
  --fault-disconnect-rate P       share of streams cut after a random token
  --fault-stall-rate P            share of requests whose writes stop for --fault-stall-ms (default 2000)
  --fault-malformed-rate P        share of streams sent a chunk that is not JSON
Trace:
  --trace FILE                    append each finished request's server-side times (JSON lines)
`;

const string: FlagSpec = { kind: 'string' };
const flag: FlagSpec = { kind: 'boolean' };

const ENGINE_FLAGS = {
  '--max-num-seqs': 'maxNumSeqs',
  '--max-num-batched-tokens': 'maxNumBatchedTokens',
  '--max-model-len': 'maxModelLen',
  '--kv-cache-tokens': 'kvCacheTokens',
  '--block-size': 'blockSize',
} as const;

const HARDWARE_FLAGS = {
  '--step-base-ms': 'stepBaseMs',
  '--decode-per-seq-ms': 'decodePerSeqMs',
  '--prefill-tokens-per-sec': 'prefillTokensPerSec',
  '--request-overhead-ms': 'requestOverheadMs',
  '--output-per-seq-ms': 'outputPerSeqMs',
} as const;

const FAULT_RATE_FLAGS = {
  '--fault-error-rate': 'errorRate',
  '--fault-disconnect-rate': 'disconnectRate',
  '--fault-stall-rate': 'stallRate',
  '--fault-malformed-rate': 'malformedRate',
} as const;

const SPECS: Record<string, FlagSpec> = {
  '--help': flag,
  '--preset': string,
  '--port': string,
  '--seed': string,
  '--model': string,
  '--speedup': string,
  '--trace': string,
  '--enable-chunked-prefill': flag,
  '--no-enable-chunked-prefill': flag,
  '--enable-prefix-caching': flag,
  '--no-enable-prefix-caching': flag,
  '--fault-error-status': string,
  '--fault-stall-ms': string,
  '--reasoning-tokens': string,
  '--reasoning-field': string,
  '--embedding-dim': string,
  ...Object.fromEntries([...Object.keys(ENGINE_FLAGS), ...Object.keys(HARDWARE_FLAGS), ...Object.keys(FAULT_RATE_FLAGS)].map((f) => [f, string])),
};

/** Engine sizes are checked by the engine's own rules (with vLLM's wording), so any whole number passes here. */
const wholeNumber: NumberRule = { integer: true, min: Number.MIN_SAFE_INTEGER, hint: 'a whole number' };
const nonNegative: NumberRule = { min: 0, hint: 'a number of 0 or more' };
const rate: NumberRule = { min: 0, hint: 'a share between 0 and 1, like 0.05' };

function toggle(flags: ReturnType<typeof parseFlags>, name: string): boolean | undefined {
  const on = flags.has(`--enable-${name}`);
  const off = flags.has(`--no-enable-${name}`);
  if (on && off) throw new UsageError(`--enable-${name} and --no-enable-${name} contradict each other; give one`);
  return on ? true : off ? false : undefined;
}

/** Turns the command line into simulator options (exported for tests). */
export function parseSimArgs(argv: readonly string[]): SimOptionsInput | 'help' {
  const flags = parseFlags(argv, SPECS, COMMAND);
  if (flags.positionals.length > 0) throw new UsageError(`${COMMAND} takes no arguments (got '${flags.positionals[0]}'); see ${COMMAND} --help`);
  if (flags.has('--help')) return 'help';
  const number = (name: string, rule: NumberRule): number | undefined => {
    const text = flags.get(name);
    return text === undefined ? undefined : parseNumber(name, text, rule);
  };
  const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

  const rates = Object.entries(FAULT_RATE_FLAGS).map(([name, key]) => {
    const value = number(name, rate);
    if (value !== undefined && value > 1) throw new UsageError(`${name}: '${value}' must be at most 1; give ${rate.hint}`);
    return [key, value];
  });
  const statuses = flags.get('--fault-error-status');
  const preset = flags.get('--preset');
  const reasoningTokens = flags.get('--reasoning-tokens');
  const reasoningField = flags.get('--reasoning-field');
  if (reasoningField !== undefined && reasoningTokens === undefined) throw new UsageError('--reasoning-field needs --reasoning-tokens N: how many reasoning tokens each response streams');
  return defined({
    preset: preset === undefined ? undefined : parseChoice('--preset', preset, PRESET_NAMES),
    port: number('--port', { integer: true, min: 0, hint: 'a port number, or 0 for any free port' }),
    seed: number('--seed', { integer: true, min: Number.MIN_SAFE_INTEGER, hint: 'a whole number' }),
    model: flags.get('--model'),
    speedup: number('--speedup', { min: 0, exclusive: true, hint: 'a factor like 4' }),
    traceFile: flags.get('--trace'),
    embeddingDim: number('--embedding-dim', { integer: true, min: 1, hint: 'a vector size like --embedding-dim 1024' }),
    reasoning:
      reasoningTokens === undefined
        ? undefined
        : {
            tokens: parseReasoningTokens(reasoningTokens),
            ...(reasoningField !== undefined ? { field: parseChoice('--reasoning-field', reasoningField, ReasoningFieldSchema.options) } : {}),
          },
    engine: defined({
      ...Object.fromEntries(Object.entries(ENGINE_FLAGS).map(([name, key]) => [key, number(name, wholeNumber)])),
      enableChunkedPrefill: toggle(flags, 'chunked-prefill'),
      enablePrefixCaching: toggle(flags, 'prefix-caching'),
    }),
    hardware: defined(Object.fromEntries(Object.entries(HARDWARE_FLAGS).map(([name, key]) => [key, number(name, nonNegative)]))),
    faults: defined({
      ...Object.fromEntries(rates),
      errorStatuses:
        statuses === undefined ? undefined : parseNumberList('--fault-error-status', statuses, { integer: true, min: 400, hint: 'HTTP statuses like 500,429' }),
      stallMs: number('--fault-stall-ms', nonNegative),
    }),
  });
}

/** `N` (every response) or `MEAN,STDEV` (a rounded normal draw per response). */
function parseReasoningTokens(text: string): number | { mean: number; stdev: number } {
  const rule: NumberRule = { min: 0, hint: 'reasoning tokens like --reasoning-tokens 256, or a mean and a standard deviation like --reasoning-tokens 512,128' };
  const parts = text.split(',');
  if (parts.length === 1) return parseNumber('--reasoning-tokens', text, { ...rule, integer: true });
  if (parts.length !== 2) throw new UsageError(`--reasoning-tokens: '${text}' is not N or MEAN,STDEV; give ${rule.hint}`);
  return { mean: parseNumber('--reasoning-tokens', parts[0] as string, rule), stdev: parseNumber('--reasoning-tokens', parts[1] as string, rule) };
}

export async function run(argv: string[]): Promise<number> {
  let options: SimOptionsInput | 'help';
  try {
    options = parseSimArgs(argv);
    if (options === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    resolveSimConfig(options);
  } catch (e) {
    if (e instanceof UsageError || e instanceof SimConfigError) {
      process.stderr.write(`${COMMAND}: ${e.message}\n`);
      return 2;
    }
    throw e;
  }

  let server;
  try {
    server = await startSimServer(options);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      process.stderr.write(`${COMMAND}: cannot listen on 127.0.0.1:${options.port} (${code}); choose another --port, or 0 for any free port\n`);
      return 2;
    }
    throw e;
  }
  const { engine, hardware, reasoning } = server.config;
  process.stdout.write(
    [
      `LLM Bench simulator: ${server.model} (preset ${server.config.preset}: ${PRESETS[server.config.preset].description})`,
      `  serving ${server.baseUrl}   (metrics: http://127.0.0.1:${server.port}/metrics, trace: http://127.0.0.1:${server.port}/sim/trace)`,
      `  engine: max-num-seqs ${engine.maxNumSeqs}, max-num-batched-tokens ${engine.maxNumBatchedTokens}, max-model-len ${engine.maxModelLen}, ` +
        `kv-cache-tokens ${engine.kvCacheTokens}, block-size ${engine.blockSize}, chunked prefill ${engine.enableChunkedPrefill ? 'on' : 'off'}, ` +
        `prefix caching ${engine.enablePrefixCaching ? 'on' : 'off'}`,
      `  hardware: step ${hardware.stepBaseMs} ms + ${hardware.decodePerSeqMs} ms/seq, prefill ${hardware.prefillTokensPerSec} tok/s, ` +
        `overhead ${hardware.requestOverheadMs} ms, output ${hardware.outputPerSeqMs} ms/seq${server.config.speedup !== 1 ? `, speedup x${server.config.speedup}` : ''}`,
      ...(reasoning ? [`  reasoning: ${typeof reasoning.tokens === 'number' ? reasoning.tokens : `${reasoning.tokens.mean} ± ${reasoning.tokens.stdev}`} tokens first, in ${reasoning.field === 'tags' ? '<think> tags in the text' : `the \`${reasoning.field}\` field`}`] : []),
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  process.stdout.write('Simulator stopped.\n');
  return 0;
}
