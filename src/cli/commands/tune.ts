/**
 * `llmbench tune`: tunes a server's flags (src/tune): each trial launches the server with flags the
 * search picks, benchmarks it and stops it; the tune file (NAME.llmtune.json) is rewritten after
 * every trial. Exit 0 complete, 1 failed or cancelled (continue with --resume), 2 bad input.
 */
import { relative, resolve } from 'node:path';
import { parseSloKey, type BestTrial, type Objective, type Trial, type TuneEvent } from '../../format/tune';
import { formatMetric } from '../../views/number-format';
import { bestFigureText, commandLine, figureText, formatObjective, objectiveTitle, paramsText, sloFigureName, standingLines } from '../../views/tune';
import { writtenCommand } from '../../tune/space';
import { readTuneConfigFile, runTune, TuneConfigError } from '../../tune/index';
import { parseFlags, UsageError, type FlagSpec } from '../args';

const COMMAND = 'llmbench tune';

const FLAGS: Readonly<Record<string, FlagSpec>> = {
  '--help': { kind: 'boolean' },
  '--config': { kind: 'string' },
  '--out': { kind: 'string' },
  '--resume': { kind: 'boolean' },
  '--verbose': { kind: 'boolean' },
};

export const TUNE_HELP = `Usage: ${COMMAND} --config TUNE.json --out NAME.llmtune.json [--resume]

Tunes a server's flags: each trial checks the combination against the constraints (a refused one
costs no launch), launches the server as its own process group on a free port, waits until it
answers, runs the benchmark against it, stops it, and adds the trial to the tune file. See
docs/tuning.md for the config (server, space, constraints, benchmark, objective, budget).

  --config FILE     the tune config (JSON; its schema: media/llmtune-config.schema.json)
  --out FILE        the tune file, NAME.llmtune.json; each trial's server log and result file go beside it
  --resume          continue the tune file at --out: finished trials are kept, not run again
  --verbose         print every line the servers write

In the command, a first word "llmbench" is this command line itself (e.g. "llmbench", "sim", ...).
Exit status: 0 complete, 1 failed or cancelled (continue with --resume), 2 bad input.
Ctrl-C cancels: the running server is stopped and the tune file says where it ended.
`;

/** A trial's line, in the words and figures of the tune views: its parameters, then its objective or why it has none. */
export function describeTrial(trial: Trial, objective: Objective): string {
  const missed = Object.entries(trial.slo?.figures ?? {}).map(([key, value]) => `${sloFigureName(key)} ${formatMetric(parseSloKey(key).metric, value)} ms`);
  const outcome =
    trial.status === 'complete'
      ? trial.objective === null
        ? `missed the SLOs (${missed.join(', ')})`
        : `objective ${formatObjective(objective, trial.objective)} ${objectiveTitle(objective)}`
      : `${trial.status}: ${trial.reason ?? ''}`;
  return `trial ${trial.number}: ${paramsText(trial.params)}: ${outcome}`;
}

/** The best trial so far, as the tune views word it. */
const bestText = (best: BestTrial, objective: Objective): string => `trial ${best.trial}, objective ${formatObjective(objective, best.objective)} ${objectiveTitle(objective)}`;

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, FLAGS, COMMAND);
  if (flags.has('--help')) {
    process.stdout.write(TUNE_HELP);
    return 0;
  }
  if (flags.positionals.length > 0) throw new UsageError(`unexpected argument '${flags.positionals[0]}'; ${COMMAND} takes only --flags (see ${COMMAND} --help)`);
  const configPath = flags.get('--config');
  const out = flags.get('--out');
  if (configPath === undefined) throw new UsageError(`--config TUNE.json is required (see ${COMMAND} --help)`);
  if (out === undefined) throw new UsageError(`--out NAME.llmtune.json is required: the tune file, rewritten after every trial`);

  const verbose = flags.has('--verbose');
  const controller = new AbortController();
  const onSignal = () => {
    process.stderr.write('Cancelling: stopping the running server (continue later with --resume)\n');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const { config, configDir } = readTuneConfigFile(configPath, `--config ${configPath}`);
    const { objective } = config;
    let reported: unknown;
    const onEvent = (event: TuneEvent) => {
      if (event.type === 'trial-start' && event.round !== undefined) process.stderr.write(`re-measuring trial ${event.trial}, round ${event.round}: ${JSON.stringify(event.command)}\n`);
      else if (event.type === 'trial-start') process.stderr.write(`trial ${event.trial}: ${JSON.stringify(event.command)}\n`);
      else if (event.type === 'remeasure') {
        const run = event.remeasure.runs.at(-1);
        const summary = run && event.remeasure.summaries.find((s) => s.trial === run.trial);
        if (run && summary && run !== reported) {
          reported = run;
          const figure = run.objective === null ? `${run.status === 'complete' ? 'missed the SLOs' : `${run.status}: ${run.reason ?? ''}`}` : `objective ${formatObjective(objective, run.objective)}`;
          const sofar = summary.mean === null ? '' : `   (so far ${figureText(objective, { value: summary.mean, interval: { n: summary.n, mean: summary.mean, halfWidth: summary.halfWidth } })} over ${summary.n})`;
          process.stderr.write(`trial ${run.trial}, re-measurement ${run.round}: ${figure}${sofar}\n`);
        }
      } else if (event.type === 'trial-end') process.stderr.write(`${describeTrial(event.trial, objective)}${event.best ? `   (best so far: ${bestText(event.best, objective)})` : ''}\n`);
      else if (event.type === 'server-log' && verbose) process.stderr.write(`  | ${event.line}\n`);
      else if (event.type === 'log') process.stderr.write(`${event.level}: ${event.message}\n`);
    };
    const file = await runTune({
      config,
      configDir,
      outPath: resolve(out),
      resume: flags.has('--resume'),
      signal: controller.signal,
      llmbenchCommand: [process.execPath, resolve(__dirname, 'cli.js')],
      onEvent,
    });
    const shown = relative(process.cwd(), resolve(out)) || out;
    if (file.best) {
      // The command as written, to paste: `llmbench`, not this Node and bundle, and no trial port.
      const lines = [...standingLines(file), JSON.stringify(file.best.params), commandLine(writtenCommand(config.server, config.space, file.best.params))];
      process.stdout.write(`\nBest: trial ${file.best.trial}, objective ${bestFigureText(file) ?? ''}\n${lines.map((line) => `  ${line}\n`).join('')}`);
    } else {
      process.stdout.write('\nNo trial met the objective.\n');
    }
    process.stdout.write(`Tune: ${shown} (${file.status}${file.statusReason ? `: ${file.statusReason}` : ''})\n`);
    return file.status === 'complete' ? 0 : 1;
  } catch (error) {
    if (error instanceof TuneConfigError) throw new UsageError(error.message);
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
