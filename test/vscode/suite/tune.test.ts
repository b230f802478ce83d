// "Tune Server Flags" inside a real VS Code, with the built-in simulator as the launched server
// (`llmbench sim`, resolved to the installed extension's own dist/cli.js): before the first launch
// the exact command is asked about and nothing runs until it is confirmed; a confirmed tune writes
// its `*.llmtune.json` into benchmarks/ and opens it in the tune editor; a cancelled tune leaves no
// server process behind and its ports free. VS Code refuses modal dialogs while extension tests run,
// so these tests answer the question through the command's `confirmLaunch` argument; the modal
// itself is clicked in the e2e tier (test/e2e/tune.e2e.ts).
import assert from 'node:assert/strict';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import { parseTuneFile, type TuneFile } from '../../../src/format/tune';
import { isPortFree } from '../../../src/tune/server';
import { processesWhere } from '../../helpers/processes';
import { simulatorTuneConfig } from '../../helpers/tune-documents';
import { allTabs, readText, waitFor, workspaceUri, writeText } from './results-helpers';

interface TuneOutcome {
  status: string;
  reason: string | null;
  tuneUri: string;
  trials: number;
  bestCommand: string[] | null;
}

const TUNE_VIEW_TYPE = 'llmBench.tuneResult';

/** A tune of the simulator: `trials` in the budget, `requests` per trial. */
const tuneConfig = (trials: number, requests: number) => simulatorTuneConfig({ trials, requests, levels: [4], ttftP99Ms: 5000, speedup: 20, shortRequests: true });


/** Processes running this extension's command line (the servers a tune launches), by their argv. */
const ourCliProcesses = (cliPath: string): string[] => processesWhere((argv) => argv.includes(cliPath));

/** A first-launch answer that records what it was asked and what was running then. */
function recordingConfirmation(cliPath: string, answer: boolean) {
  const asked: { argv: string[]; portFree: boolean; processes: string[] }[] = [];
  return {
    asked,
    confirmLaunch: async (argv: string[]): Promise<boolean> => {
      asked.push({ argv, portFree: await isPortFree(portOf(argv.join(' '))), processes: ourCliProcesses(cliPath) });
      return answer;
    },
  };
}

/** The port in an argv joined (`--port N`). */
function portOf(command: string): number {
  const port = /--port (\d+)/.exec(command)?.[1];
  assert.ok(port, `the command has its port: ${command}`);
  return Number(port);
}

async function readTune(uri: vscode.Uri): Promise<TuneFile> {
  const parsed = parseTuneFile(await readText(uri));
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  return parsed.value;
}

suite('tune server flags', () => {
  let cliPath: string;

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension('llm-bench.llm-bench');
    assert.ok(extension);
    await extension.activate();
    cliPath = vscode.Uri.joinPath(extension.extensionUri, 'dist', 'cli.js').fsPath;
  });

  test('the first launch is asked about with its exact command, then three trials run on the simulator and the tune file opens', async function () {
    this.timeout(240_000);
    const config = await writeText(workspaceUri('sim.llmtune-config.json'), JSON.stringify(tuneConfig(3, 6)));
    const confirmation = recordingConfirmation(cliPath, true);
    const outcome = await vscode.commands.executeCommand<TuneOutcome | undefined>('llmBench.tune', { config, confirmLaunch: confirmation.confirmLaunch });
    assert.equal(confirmation.asked.length, 1, 'asked once, before the first launch only');
    const [{ argv, portFree, processes }] = confirmation.asked as [(typeof confirmation.asked)[number]];
    // The exact argv: this extension's command line run by the extension host's runtime, the flags filled in.
    assert.deepEqual(argv.slice(0, 6), [process.execPath, cliPath, 'sim', '--preset', 'tiny', '--port']);
    assert.match(argv.slice(6).join(' '), /^\d+ --speedup 20 --max-num-seqs \d+ --max-num-batched-tokens (512|1024|2048|4096|8192) --max-model-len 4096 --(no-)?enable-chunked-prefill$/);
    assert.equal(portFree, true, 'nothing listens on the port before the confirmation');
    assert.deepEqual(processes, [], 'no server process before the confirmation');

    assert.ok(outcome, 'the command answers the outcome');
    assert.equal(outcome.status, 'complete', outcome.reason ?? '');
    assert.equal(outcome.trials, 3);
    const tuneUri = vscode.Uri.parse(outcome.tuneUri);
    assert.equal(tuneUri.toString(), workspaceUri('benchmarks', 'sim.llmtune.json').toString());
    const tune = await readTune(tuneUri);
    assert.equal(tune.status, 'complete');
    assert.equal(tune.trials.length, 3);
    const launched = tune.trials.filter((t) => t.status !== 'refused');
    assert.deepEqual(launched[0]?.command, argv, 'the first trial launched ran the command confirmed');
    const complete = tune.trials.filter((t) => t.status === 'complete');
    assert.ok(complete.length > 0, `some trial completed: ${JSON.stringify(tune.trials.map((t) => [t.status, t.reason]))}`);
    for (const trial of complete) {
      assert.ok(trial.resultFile);
      const result = await readText(vscode.Uri.joinPath(tuneUri, '..', trial.resultFile));
      assert.match(result, /"status": ?"complete"/);
    }
    assert.ok(tune.best && outcome.bestCommand, 'a best trial');
    assert.deepEqual(outcome.bestCommand, tune.best.command);
    await waitFor('the tune editor', () =>
      allTabs().find((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === TUNE_VIEW_TYPE && t.input.uri.toString() === tuneUri.toString()),
    );
    for (const trial of tune.trials) if (trial.port !== null) assert.equal(await isPortFree(trial.port), true, `trial ${trial.number}'s port ${trial.port} is free again`);
    assert.deepEqual(ourCliProcesses(cliPath), [], 'no server left running');
  });

  test('declining the first launch starts nothing', async function () {
    this.timeout(60_000);
    const config = await writeText(workspaceUri('declined.llmtune-config.json'), JSON.stringify(tuneConfig(3, 6)));
    const confirmation = recordingConfirmation(cliPath, false);
    const outcome = await vscode.commands.executeCommand<TuneOutcome | undefined>('llmBench.tune', { config, openResult: false, confirmLaunch: confirmation.confirmLaunch });
    assert.ok(outcome);
    assert.equal(confirmation.asked.length, 1);
    assert.equal(outcome.trials, 0);
    assert.notEqual(outcome.status, 'complete');
    assert.equal(await isPortFree(portOf(confirmation.asked[0]!.argv.join(' '))), true);
    assert.deepEqual(ourCliProcesses(cliPath), []);
  });

  test('cancelling a tune while a trial runs stops its server: no process left, every port free', async function () {
    this.timeout(240_000);
    const config = await writeText(workspaceUri('cancelled.llmtune-config.json'), JSON.stringify(tuneConfig(50, 400)));
    const confirmation = recordingConfirmation(cliPath, true);
    const running = vscode.commands.executeCommand<TuneOutcome | undefined>('llmBench.tune', { config, openResult: false, confirmLaunch: confirmation.confirmLaunch });
    // Cancel once a server is up: the process is there to be stopped.
    const seen = await waitFor('a launched server process', () => {
      const processes = ourCliProcesses(cliPath);
      return processes.length > 0 ? processes : undefined;
    }, 60_000);
    await vscode.commands.executeCommand('llmBench.cancelTune');
    const outcome = await running;
    assert.ok(outcome);
    assert.equal(outcome.status, 'cancelled', outcome.reason ?? '');
    assert.ok(outcome.trials < 50);
    const tune = await readTune(vscode.Uri.parse(outcome.tuneUri));
    assert.equal(tune.status, 'cancelled');
    assert.deepEqual(ourCliProcesses(cliPath), [], `the cancelled trial's server was stopped (running before the cancel: ${seen.join('; ')})`);
    const ports = [...seen.map(portOf), ...tune.trials.flatMap((t) => (t.port === null ? [] : [t.port]))];
    for (const port of ports) assert.equal(await isPortFree(port), true, `port ${port} is free again`);
  });
});
