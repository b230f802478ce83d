/**
 * The extension's entry point: the "LLM Bench" log, the run commands and live panel (this part);
 * the result and compare views, the reports and the imports (views-feature.ts) and Tune Server Flags
 * (tune-feature.ts) are bundles of their own, loaded the first time one is used. Activation does
 * no I/O: everything heavy starts when a command runs.
 */
import * as vscode from 'vscode';
import { ApiKeys } from './api-keys';
import { COMPARE_SCHEME, VIEWS_FEATURE } from './view-ids';
import { CompareFileSystem } from './compare-files';
import { registerOnFirstUse } from './feature-loader';
import { parseRunArgument } from './run-arguments';
import { planFromArgument, planFromConfigFile, promptRunPlan, showConfigError, type RunPlan } from './run-prompts';
import { RUN_MENU_COMMAND, RunController, type DryRunOutcome, type RunOutcome } from './run-session';
import { RunInputError } from '../run/prepare';
import { join } from 'node:path';
import type { startTuneFeature } from './tune-feature';
import { TUNE_COMMANDS, TUNE_LIVE_VIEW_TYPE, TUNE_VIEW_TYPE } from './tune-ids';

/** The tune feature once something needed it: its tune is stopped (with its server) when the window closes or reloads. */
let tuneFeature: ReturnType<typeof startTuneFeature> | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('LLM Bench', { log: true });
  const apiKeys = new ApiKeys(context.secrets, log);
  const runs = new RunController(context, log, apiKeys);
  const keyFor = (baseUrl: string) => apiKeys.get(baseUrl);

  /** Runs a plan; a missing plan means the user stopped at a question. */
  const runPlan = async (plan: RunPlan | undefined): Promise<RunOutcome | undefined> => (plan ? runs.run(plan) : undefined);

  const runCommand = async (arg?: unknown): Promise<RunOutcome | DryRunOutcome | undefined> => {
    if (!(await runs.canStart())) return undefined;
    if (arg instanceof vscode.Uri) return runPlan(await planFromConfigFile(arg, context.globalState, keyFor, log));
    if (arg === undefined) return runPlan(await promptRunPlan(context.globalState, keyFor, log));
    const parsed = parseRunArgument(arg);
    if (!parsed.ok) {
      log.error(parsed.error);
      void showConfigError(parsed.error);
      return undefined;
    }
    let plan: RunPlan;
    try {
      plan = await planFromArgument(parsed.args);
    } catch (error) {
      if (!(error instanceof RunInputError)) throw error;
      if (parsed.args.dryRun) return { error: { problem: error.problem, message: error.message } };
      void showConfigError(error.message);
      return undefined;
    }
    return parsed.args.dryRun ? runs.dryRun(plan) : runs.run(plan);
  };

  context.subscriptions.push(
    log,
    runs,
    vscode.commands.registerCommand('llmBench.run', runCommand),
    vscode.commands.registerCommand('llmBench.runConfigFile', (uri?: vscode.Uri) => {
      const file = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!file) {
        void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: choose a JSON config file in the explorer to run it.'));
        return undefined;
      }
      return runCommand(file);
    }),
    vscode.commands.registerCommand('llmBench.cancel', () => runs.cancel()),
    vscode.commands.registerCommand('llmBench.showLive', () => runs.live.show()),
    vscode.commands.registerCommand('llmBench.setApiKey', (arg?: unknown) => apiKeys.promptAndStore(arg)),
    vscode.commands.registerCommand('llmBench.clearApiKey', (arg?: unknown) => apiKeys.promptAndClear(arg)),
    vscode.commands.registerCommand('llmBench.showLog', () => log.show()),
    vscode.commands.registerCommand(RUN_MENU_COMMAND, () => runs.showMenu()),
  );
  registerTune(context, log);
  // The result editor, compare, report and imports load on first use (dist/views-feature.js).
  registerOnFirstUse(context, VIEWS_FEATURE, () => {
    const { startViewsFeature } = require(context.asAbsolutePath(join('dist', 'views-feature.js'))) as typeof import('./views-feature');
    return startViewsFeature(context, log);
  });
  context.subscriptions.push(vscode.workspace.registerFileSystemProvider(COMPARE_SCHEME, new CompareFileSystem(), { isReadonly: true, isCaseSensitive: true }));
  log.info(`LLM Bench ${String(context.extension.packageJSON.version)} activated in ${(performance.now() - started).toFixed(1)} ms.`);
}

/** The tune commands, editor and panel, whose code (dist/tune-feature.js) loads the first time one is used. */
function registerTune(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const feature = (): NonNullable<typeof tuneFeature> => {
    if (!tuneFeature) {
      const { startTuneFeature: start } = require(context.asAbsolutePath(join('dist', 'tune-feature.js'))) as typeof import('./tune-feature');
      tuneFeature = start(context, log);
      context.subscriptions.push(tuneFeature.controller);
    }
    return tuneFeature;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand(TUNE_COMMANDS.tune, (arg?: unknown) => feature().controller.tune(arg)),
    vscode.commands.registerCommand(TUNE_COMMANDS.cancel, () => feature().controller.cancel()),
    vscode.commands.registerCommand(TUNE_COMMANDS.show, () => feature().controller.panel.show()),
    vscode.window.registerCustomEditorProvider(
      TUNE_VIEW_TYPE,
      {
        openCustomDocument: (uri) => ({ uri, dispose: () => undefined }),
        resolveCustomEditor: (document, panel) => feature().editor.resolveCustomEditor(document, panel),
      },
      { supportsMultipleEditorsPerDocument: true, webviewOptions: { enableFindWidget: true } },
    ),
    vscode.window.registerWebviewPanelSerializer(TUNE_LIVE_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, saved: unknown) => feature().controller.panel.restoreSaved(panel, saved),
    }),
  );
}

/**
 * Stops a running tune when the window closes or reloads. VS Code waits for this at most 5 s: the
 * extension host races every extension's deactivate against a 5 s timer and then exits (VS Code
 * 1.139, extHostExtensionService.terminate; microsoft/vscode#114688). A tune's stop can take longer
 * (SIGTERM, up to the config's server.stopGraceSec, 10 s by default, before SIGKILL, then the port's
 * release and the tune file's last write). The server still never outlives the extension host: on
 * its exit, src/tune/server.ts kills every server process group still running. What the cut can
 * cost is the tune file's last write: it then still says `running`, with the server it ran, and
 * Resume It kills that server's group if it is left and goes on.
 */
export async function deactivate(): Promise<void> {
  await tuneFeature?.controller.stop();
}
