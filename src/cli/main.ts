#!/usr/bin/env node
/**
 * `llmbench`: the headless command line (bundled to dist/cli.js). Each subcommand lives in
 * commands/<name>.ts and returns its exit code: 0 complete, 1 ran but failed, 2 bad input.
 */
import { version } from '../../package.json';
import { UsageError } from './args';
import * as cluster from './commands/cluster';
import * as demo from './commands/demo';
import * as importCommand from './commands/import';
import * as merge from './commands/merge';
import * as report from './commands/report';
import * as run from './commands/run';
import * as sim from './commands/sim';
import * as tune from './commands/tune';

interface Command {
  summary: string;
  run(argv: string[]): Promise<number>;
}

const COMMANDS: Readonly<Record<string, Command>> = {
  run: { summary: 'benchmark an OpenAI-compatible server (or --sim) and write a result file', run: run.run },
  sim: { summary: 'serve the built-in simulated inference server (vLLM-like) until Ctrl-C', run: sim.run },
  import: { summary: 'turn vLLM, GuideLLM, AIPerf, EvalScope or LLMPerf results into a result file', run: importCommand.run },
  tune: { summary: "tune a server's flags: launch it per trial, benchmark it, search for the best within SLOs", run: tune.run },
  report: { summary: 'one report (HTML with charts, Markdown or CSV) over many result files', run: report.run },
  merge: { summary: "merge the files of one shard run (shard 0's and each shard's own) into one result file", run: merge.run },
  cluster: { summary: 'start one run as shards on many machines: an sbatch script (Slurm) or a Kubernetes manifest', run: cluster.run },
  demo: { summary: 'a sweep against the built-in simulator: the table and a result file in benchmarks/', run: demo.run },
};

const HELP = `Usage: llmbench <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(8)} ${command.summary}`)
  .join('\n')}
  help     this text; \`llmbench help <command>\` or \`llmbench <command> --help\` for a command

Options: --help, --version
Exit status: 0 complete, 1 ran but failed, 2 bad input.
`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(HELP);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  if (name === 'help') {
    const topic = rest[0];
    if (topic === undefined) {
      process.stdout.write(HELP);
      return 0;
    }
    return dispatch(topic, ['--help']);
  }
  return dispatch(name, rest);
}

async function dispatch(name: string, argv: string[]): Promise<number> {
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`'${name}' is not a command; choose ${Object.keys(COMMANDS).join(', ')} (see llmbench --help)`);
  return command.run(argv);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`llmbench: ${error.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`llmbench: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
