/**
 * "Tune Server Flags": one tune at a time, from a tune config file to `NAME.llmtune.json` in the
 * results folder. Trusted workspaces only (it launches servers). The tuner (src/tune) runs here in
 * the extension host; `llmbench` in the config's server command is this extension's own command
 * line, run by the extension host's runtime (Electron as Node, or code-server's Node). Before the
 * first launch the exact argv is shown in a modal and must be confirmed. Cancel (the panel, the
 * notification, the command) and the window closing or reloading (deactivate) stop the tune, whose
 * tuner stops the running server's process group before it settles.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { TuneLiveViewStateSchema, type TuneLiveState } from '../format/messages/tune';
import { TuneLiveRequestSchema, type TuneLiveRequest } from '../format/messages/from-views';
import { TUNE_CONFIG_FILE_SUFFIX, TUNE_FILE_SUFFIX, type TuneConfig, type TuneStatus } from '../format/tune';
import { readTuneConfigFile, TuneConfigError } from '../tune/config';
import { runTune } from '../tune/index';
import { commandLine, objectiveTitle } from '../views/tune';
import { applyTuneEvent, newTuneLiveState, tuneEndMessage } from '../views/tune-live';
import { messageOf } from '../format/errors';
import { resultsDirectory } from './run-prompts';
import { StatePanel, type StatePanelKind } from './state-panel';
import { openTrialResult } from './tune-editor';
import { TUNE_LIVE_VIEW_TYPE, TUNE_VIEW_TYPE } from './tune-ids';
import { displayLocale } from './webview-strings';
import { requireTrust } from './trust';

const TUNING_CONTEXT = 'llmBench.tuning';
const launchLabel = (): string => vscode.l10n.t('Launch');

/** What `llmBench.tune` returns to scripts, tasks and tests. */
export interface TuneOutcome {
  status: TuneStatus;
  reason: string | null;
  /** The tune file (a string, so it passes between extensions as JSON). */
  tuneUri: string;
  trials: number;
  bestCommand: string[] | null;
}

/** Answers the first-launch question with the exact argv: true launches. */
type ConfirmLaunch = (argv: string[]) => Promise<boolean>;

/** `llmBench.tune`'s argument besides an explorer Uri: a config file, and what to do when its tune file exists. */
interface TuneArgument {
  config: vscode.Uri;
  resume?: boolean;
  openResult?: boolean;
  /**
   * Asked instead of the modal. Only a caller in this extension host can pass a function (VS Code
   * passes command arguments within one host as they are): scripts and tests, which could launch
   * processes themselves anyway. Modal dialogs are refused while extension tests run.
   */
  confirmLaunch?: ConfirmLaunch;
}

function parseArgument(arg: unknown): TuneArgument | undefined {
  if (arg instanceof vscode.Uri) return { config: arg };
  if (typeof arg !== 'object' || arg === null) return undefined;
  const { config, resume, openResult, confirmLaunch } = arg as Record<string, unknown>;
  const uri = config instanceof vscode.Uri ? config : typeof config === 'string' ? (isAbsolute(config) ? vscode.Uri.file(config) : vscode.Uri.parse(config)) : undefined;
  if (!uri) return undefined;
  return {
    config: uri,
    ...(typeof resume === 'boolean' ? { resume } : {}),
    ...(typeof openResult === 'boolean' ? { openResult } : {}),
    ...(typeof confirmLaunch === 'function' ? { confirmLaunch: async (argv: string[]) => (await (confirmLaunch as ConfirmLaunch)(argv)) === true } : {}),
  };
}

interface ActiveTune {
  state: TuneLiveState;
  abort: AbortController;
  done: Promise<unknown>;
}

const TUNE_PANEL: StatePanelKind<TuneLiveState> = {
  viewType: TUNE_LIVE_VIEW_TYPE,
  get page() {
    return { view: 'tune-live' as const, title: vscode.l10n.t('LLM Bench: Tune'), loading: vscode.l10n.t('Connecting to the tune...') };
  },
  viewState: TuneLiveViewStateSchema,
  idOf: (state) => state.tune.id,
};

export class TuneController implements vscode.Disposable {
  readonly panel: StatePanel<TuneLiveState, TuneLiveRequest>;
  private active: ActiveTune | undefined;
  /** Tunes shown in this window (this host's and restored ones), for their panel's buttons. */
  private readonly known = new Map<string, TuneLiveState>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.panel = new StatePanel(context.extensionUri, log, TUNE_PANEL, {
      requests: TuneLiveRequestSchema,
      restored: (state) => this.restored(state),
      // extension.ts registers the serializer at activation, before this feature loads.
      restoredFromOutside: true,
      onRequest: (request) => this.onPanelRequest(request),
    });
  }

  /** Stops the running tune and waits until its server is stopped (the window closes or reloads). */
  async stop(): Promise<void> {
    const tune = this.active;
    if (!tune) return;
    tune.abort.abort();
    await tune.done.catch(() => undefined);
  }

  dispose(): void {
    this.active?.abort.abort();
    this.panel.dispose();
  }

  cancel(tuneId?: string): void {
    const tune = this.active;
    if (!tune || (tuneId !== undefined && tune.state.tune.id !== tuneId)) {
      if (tuneId === undefined) void vscode.window.showInformationMessage(vscode.l10n.t('LLM Bench: no tune is running.'));
      return;
    }
    if (tune.abort.signal.aborted) return;
    this.log.info(`Tune ${tune.state.tune.id}: cancel requested; the running server is stopped, finished trials are kept.`);
    if (tune.state.phase !== 'finished') tune.state.phase = 'cancelling';
    this.panel.changed();
    tune.abort.abort();
  }

  /** The command: trusted workspaces only, one tune at a time; a config from the argument or a pick. */
  async tune(arg?: unknown): Promise<TuneOutcome | undefined> {
    if (!requireTrust('tuning server flags needs a trusted workspace, because it launches servers, sends them requests and writes files.')) return undefined;
    if (this.active) {
      const show = vscode.l10n.t('Show Tune Panel');
      void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: a tune is already running. Wait for it or cancel it first.'), show).then((answer) => answer === show && this.panel.show());
      return undefined;
    }
    const request = arg === undefined ? await pickConfig() : parseArgument(arg);
    if (!request) {
      if (arg !== undefined) void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: Tune Server Flags takes a tune config file (a Uri, or {0}).', '{ config, resume?, openResult? }'));
      return undefined;
    }
    let loaded: { config: TuneConfig; configDir: string };
    try {
      loaded = readTuneConfigFile(request.config.fsPath, basename(request.config.fsPath));
    } catch (error) {
      if (!(error instanceof TuneConfigError)) throw error;
      this.log.error(error.message);
      void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: {0}', error.message), vscode.l10n.t('Open Config')).then((answer) => (answer === undefined ? undefined : vscode.window.showTextDocument(request.config)));
      return undefined;
    }
    const target = await this.tuneFile(request);
    if (!target) return undefined;
    return this.runTune(request, loaded, target.uri, target.resume);
  }

  /** Where the tune goes: NAME.llmtune.json in the results folder; an existing one is resumed or kept (a new name). */
  private async tuneFile(request: TuneArgument): Promise<{ uri: vscode.Uri; resume: boolean } | undefined> {
    const folder = vscode.workspace.getWorkspaceFolder(request.config) ?? vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file') {
      void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: open a folder first: the tune file is saved into the workspace (setting llmBench.resultsDirectory).'));
      return undefined;
    }
    const dirUri = await resultsDirectory(folder);
    const name = basename(request.config.fsPath).replace(new RegExp(`(${TUNE_CONFIG_FILE_SUFFIX.replace(/\./g, '\\.')}|\\.json)$`, 'i'), '');
    const first = vscode.Uri.joinPath(dirUri, `${name}${TUNE_FILE_SUFFIX}`);
    if (!existsSync(first.fsPath)) return { uri: first, resume: false };
    let resume = request.resume;
    if (resume === undefined) {
      const resumeIt = vscode.l10n.t('Resume It');
      const fresh = vscode.l10n.t('Start a New Tune');
      const answer = await vscode.window.showInformationMessage(
        vscode.l10n.t('LLM Bench: {0} already exists.', basename(first.fsPath)),
        { modal: true, detail: vscode.l10n.t('Resume it to keep its finished trials and run the rest of the budget, or start a new tune in a new file beside it (the old one is kept).') },
        resumeIt,
        fresh,
      );
      if (answer === undefined) return undefined;
      resume = answer === resumeIt;
    }
    if (resume) return { uri: first, resume: true };
    for (let n = 2; ; n++) {
      const next = vscode.Uri.joinPath(dirUri, `${name}-${n}${TUNE_FILE_SUFFIX}`);
      if (!existsSync(next.fsPath)) return { uri: next, resume: false };
    }
  }

  /** Asks before the first server starts, showing the exact argv (in a modal, unless the caller answers). */
  private async confirmLaunch(state: TuneLiveState, argv: string[], ask: ConfirmLaunch = askInModal): Promise<boolean> {
    this.log.info(`Tune ${state.tune.id}: asking to launch ${JSON.stringify(argv)}`);
    const confirmed = await ask(argv);
    this.log.info(`Tune ${state.tune.id}: the first launch was ${confirmed ? 'confirmed' : 'declined'}.`);
    if (confirmed && state.phase === 'confirming') {
      state.phase = 'running';
      this.panel.changed();
    }
    return confirmed;
  }

  private async runTune(request: TuneArgument, loaded: { config: TuneConfig; configDir: string }, tuneUri: vscode.Uri, resume: boolean): Promise<TuneOutcome> {
    const state = newTuneLiveState(
      { id: randomUUID(), outPath: tuneUri.fsPath, configPath: request.config.fsPath, startedAt: new Date().toISOString() },
      loaded.config,
    );
    const abort = new AbortController();
    this.known.set(state.tune.id, state);
    this.log.info(`Tune ${state.tune.id}: ${request.config.fsPath} -> ${tuneUri.fsPath}${resume ? ' (resuming)' : ''}, maximizing ${objectiveTitle(loaded.config.objective)}.`);
    this.panel.start(state);
    this.panel.show(true);
    void vscode.commands.executeCommand('setContext', TUNING_CONTEXT, true);
    const done = Promise.resolve(vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('LLM Bench: tuning {0}', basename(tuneUri.fsPath)), cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => this.cancel(state.tune.id));
        const budget = loaded.config.budget.trials;
        return runTune({
          config: loaded.config,
          configDir: loaded.configDir,
          outPath: tuneUri.fsPath,
          resume,
          signal: abort.signal,
          llmbenchCommand: [process.execPath, this.context.asAbsolutePath(join('dist', 'cli.js'))],
          engineWorkerScript: this.context.asAbsolutePath(join('dist', 'engine-worker.js')),
          // Under VS Code the runtime is Electron: this makes it Node for the llmbench command
          // (code-server's Node ignores it); other servers must not get it (an Electron app among them would start as Node).
          llmbenchEnv: { ELECTRON_RUN_AS_NODE: '1' },
          confirmFirstLaunch: (argv) => this.confirmLaunch(state, argv, request.confirmLaunch),
          onEvent: (event) => {
            applyTuneEvent(state, event, Date.now(), displayLocale().t);
            if (abort.signal.aborted && state.phase !== 'finished') state.phase = 'cancelling';
            this.panel.changed();
            if (event.type === 'log') this.log[event.level](`Tune ${state.tune.id}: ${event.message}`);
            if (event.type === 'trial-start') {
              this.log.info(`Tune ${state.tune.id}: trial ${event.trial} launches ${JSON.stringify(event.command)}`);
              progress.report({ message: budget !== undefined ? vscode.l10n.t('trial {0} of {1}', event.trial, budget) : vscode.l10n.t('trial {0}', event.trial), ...(budget ? { increment: 100 / budget } : {}) });
            }
            if (event.type === 'trial-end') {
              this.log.info(`Tune ${state.tune.id}: trial ${event.trial.number} ${event.trial.status}${event.trial.reason ? ` (${event.trial.reason})` : ''}, objective ${event.trial.objective ?? 'n/a'}.`);
            }
          },
        });
      },
    ));
    this.active = { state, abort, done };
    try {
      const file = await done;
      state.phase = 'finished';
      state.status = file.status;
      state.statusReason = file.statusReason;
      state.trials = file.trials;
      state.best = file.best;
      state.running = null;
      this.log.info(`Tune ${state.tune.id} ended ${file.status}${file.statusReason ? ` (${file.statusReason})` : ''}: ${file.trials.length} trials.`);
      if (request.openResult !== false && file.trials.length > 0) await vscode.commands.executeCommand('vscode.openWith', tuneUri, TUNE_VIEW_TYPE);
      const message = tuneEndMessage(file.status, file.statusReason, file.trials.length, displayLocale().t);
      if (message) void this.offerTuneFile(file.status === 'failed' ? 'error' : 'info', message, tuneUri);
      return { status: file.status, reason: file.statusReason, tuneUri: tuneUri.toString(), trials: file.trials.length, bestCommand: file.best?.command ?? null };
    } catch (error) {
      const message = messageOf(error);
      this.log.error(`Tune ${state.tune.id} failed: ${message}`);
      Object.assign(state, { phase: 'finished', status: 'failed', statusReason: message, running: null });
      void this.offerTuneFile('error', `LLM Bench: the tune failed: ${message}`, tuneUri);
      return { status: 'failed', reason: message, tuneUri: tuneUri.toString(), trials: state.trials.length, bestCommand: state.best?.command ?? null };
    } finally {
      this.active = undefined;
      this.panel.changed();
      this.panel.flush();
      void vscode.commands.executeCommand('setContext', TUNING_CONTEXT, false);
    }
  }

  private async offerTuneFile(level: 'info' | 'error', message: string, tuneUri: vscode.Uri): Promise<void> {
    const open = vscode.l10n.t('Open Tune File');
    const show = level === 'error' ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
    const log = vscode.l10n.t('Show Log');
    const answer = await show(message, open, log);
    if (answer === open) await vscode.commands.executeCommand('vscode.openWith', tuneUri, TUNE_VIEW_TYPE);
    if (answer === log) this.log.show(true);
  }

  /** A panel restored after a reload: the tune it showed was stopped with the old extension host (deactivate). */
  private restored(state: TuneLiveState): TuneLiveState {
    const shown: TuneLiveState =
      state.phase === 'finished'
        ? state
        : {
            ...state,
            phase: 'finished',
            status: 'cancelled',
            statusReason: 'VS Code reloaded while this tune was going: its server was stopped. Run Tune Server Flags on the same config and choose Resume It to continue.',
            running: null,
          };
    this.known.set(shown.tune.id, shown);
    return shown;
  }

  private async onPanelRequest(request: TuneLiveRequest): Promise<void> {
    const state = 'tuneId' in request ? this.known.get(request.tuneId) : undefined;
    switch (request.type) {
      case 'cancel':
        return this.cancel(request.tuneId);
      case 'open-tune-file':
        if (state) await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(state.tune.outPath), TUNE_VIEW_TYPE);
        return;
      case 'open-trial':
        if (state) await openTrialResult(vscode.Uri.file(state.tune.outPath), state, request.trial);
        return;
      case 'show-log':
        return this.log.show(true);
    }
  }
}

async function askInModal(argv: string[]): Promise<boolean> {
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t('LLM Bench: launch this server command for the first trial?'),
    {
      modal: true,
      detail: `${commandLine(argv)}\n\n${vscode.l10n.t('Each trial launches it again with other flags (its {0} filled from the tune config\'s space), benchmarks it and stops it.', '{placeholders}')}`,
    },
    launchLabel(),
  );
  return answer === launchLabel();
}

/** The tune configs of the workspace to choose from, or another JSON file through the open dialog. */
async function pickConfig(): Promise<TuneArgument | undefined> {
  const found = await vscode.workspace.findFiles(`**/*${TUNE_CONFIG_FILE_SUFFIX}`, '**/node_modules/**', 100);
  const other = { label: `$(folder-opened) ${vscode.l10n.t('Choose another JSON file...')}`, uri: undefined };
  const items = [...found.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri })), other];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('LLM Bench: Tune Server Flags'),
    placeHolder: found.length > 0 ? vscode.l10n.t('Choose a tune config') : vscode.l10n.t('No *{0} file in the workspace: choose a tune config file', TUNE_CONFIG_FILE_SUFFIX),
  });
  if (!picked) return undefined;
  if (picked.uri) return { config: picked.uri };
  const chosen = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { [vscode.l10n.t('Tune config')]: ['json'] }, openLabel: vscode.l10n.t('Tune'), title: vscode.l10n.t('Tune config file') });
  return chosen?.[0] ? { config: chosen[0] } : undefined;
}
