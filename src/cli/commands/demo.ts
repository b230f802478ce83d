/**
 * `llmbench demo`: the README's first command. A GuideLLM-style sweep against the built-in
 * simulator (default preset: a 7B model on one A100 under vLLM, with a realistic knee), sized to
 * finish in well under a minute, printing the table and writing a result file to benchmarks/.
 * Any `llmbench run` flag may be added to change it (`llmbench demo --sim tiny --format vllm`).
 */
import { parseFlags } from '../args';
import { RUN_FLAGS, runCommand } from './run';

const DEMO_DEFAULTS: ReadonlyArray<[flag: string, value?: string]> = [
  ['--sim'],
  ['--profile', 'sweep'],
  ['--rate', '4'],
  ['--duration', '10'],
  ['--requests', '30'],
  ['--input-tokens', '512'],
  ['--output-tokens', '128'],
  ['--label', 'source=llmbench demo'],
];

export async function run(argv: string[]): Promise<number> {
  const given = parseFlags(argv, RUN_FLAGS, 'llmbench demo');
  if (given.has('--help')) {
    process.stdout.write(
      `Usage: llmbench demo [llmbench run options]\n\nA sweep against the built-in simulator; by default:\n  llmbench run ${DEMO_DEFAULTS.map(([flag, value]) => (value === undefined ? flag : `${flag} '${value}'`)).join(' ')}\nAny run option overrides or adds to these (see llmbench run --help).\n`,
    );
    return 0;
  }
  const defaults = DEMO_DEFAULTS.filter(([flag]) => !given.has(flag) && !(flag === '--sim' && given.has('--url')));
  process.stderr.write('LLM Bench demo: a sweep against the built-in simulated endpoint (no GPU, no network)\n');
  return runCommand([...defaults.flatMap(([flag, value]) => (value === undefined ? [flag] : [flag, value])), ...argv], 'llmbench demo');
}
