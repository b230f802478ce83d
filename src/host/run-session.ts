/**
 * One benchmark run at a time, from a `RunPlan` to a result file: checks trust and the config,
 * starts the simulator when asked (in its own worker), runs the engine in a worker thread, feeds
 * its events to the live panel, the notification progress and the status bar, and opens the
 * result when it ends. Cancelling (panel, notification, status bar, command) keeps every request
 * measured: the engine writes a partial result.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { redactHeaders, type RunConfig } from '../format/config';
import type { RunEvent } from '../format/events';
import type { LiveState } from '../format/messages/live';
import type { RunStatus } from '../format/result';
// Not engine/index: the host only starts the worker, and the in-process engine (undici and all) stays out of its bundle.
import { BadInputError, messageOf } from '../format/errors';
import { runBenchmarkInWorker, type RunOverview } from '../load/worker-host';
import { finalizeInterruptedFile, resultFileName } from '../results/writer';
import { formatTerminalTable } from '../report/tables';
import { startSimServer, type SimServer } from '../sim/index';
import { notificationText, progressView, runEndMessage, statusBarText } from '../views/progress';
import { displayLocale } from './webview-strings';
import type { ApiKeys } from './api-keys';
import { LivePanel, type LivePanelActions } from './live-panel';
import { applyRunEvent, interruptedState, newLiveState } from './live-state';
import { RESULT_VIEW_TYPE } from './results-view-type';
import { mergeSettings, prepareRun, RunInputError, shownConfig, valueAt, type PreparedRun, type RunInputProblem } from '../run/prepare';
import { describeProfile, runDefaultsFromSettings } from '../run/presets';
import { resultsDirectory, settings, showConfigError, type RunPlan } from './run-prompts';
import { requireTrust } from './trust';

/** What `llmBench.run` answers for `dryRun`: the prepared configuration, or what is wrong and of what kind. */
export type DryRunOutcome = { config: RunConfig; warnings: string[] } | { error: { problem: RunInputProblem; message: string } };

/** What `llmBench.run` returns to scripts, tasks and tests. */
export interface RunOutcome {
  status: RunStatus;
  reason: string | null;
  /** The result file (a string, so it passes between extensions as JSON). */
  resultUri: string | null;
}

interface ActiveRun {
  id: string;
  state: LiveState;
  abort: AbortController;
}

const STATUS_INTERVAL_MS = 500;
export const RUN_MENU_COMMAND = 'llmBench.runMenu';
const RUNNING_CONTEXT = 'llmBench.running';

export class RunController implements vscode.Disposable, LivePanelActions {
  readonly live: LivePanel;
  private active: ActiveRun | undefined;
  /** Result files by run id, for "Open result" in a panel showing a finished run. */
  private readonly results = new Map<string, vscode.Uri>();
  private readonly statusItem: vscode.StatusBarItem;
  private lastStatusMs = 0;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly apiKeys: ApiKeys,
  ) {
    this.live = new LivePanel(context.extensionUri, log, this);
    this.statusItem = vscode.window.createStatusBarItem('llmBench.run', vscode.StatusBarAlignment.Left, 10);
    this.statusItem.name = 'LLM Bench run';
    this.statusItem.command = RUN_MENU_COMMAND;
  }

  dispose(): void {
    this.active?.abort.abort();
    this.statusItem.dispose();
    this.live.dispose();
  }

  get running(): boolean {
    return this.active !== undefined;
  }

  cancel(runId?: string): void {
    const run = this.active;
    if (!run || (runId !== undefined && runId !== run.id)) {
      if (runId === undefined) void vscode.window.showInformationMessage(vscode.l10n.t('LLM Bench: no benchmark is running.'));
      return;
    }
    if (run.abort.signal.aborted) return;
    this.log.info(`Run ${run.id}: cancel requested; requests in flight are aborted, everything measured is kept.`);
    run.state.phase = 'cancelling';
    this.live.changed();
    run.abort.abort();
  }

  openResult(runId: string): void {
    const uri = this.results.get(runId);
    if (uri) void vscode.commands.executeCommand('vscode.openWith', uri, RESULT_VIEW_TYPE);
    else void vscode.window.showWarningMessage(vscode.l10n.t('LLM Bench: that run\'s result file is not known in this window any more; open it from the explorer.'));
  }

  runAgain(): void {
    void vscode.commands.executeCommand('llmBench.run');
  }

  showLog(): void {
    this.log.show(true);
  }

  /** A panel restored after a reload: the run it shows ended with the old extension host. */
  restored(state: LiveState): LiveState {
    if (state.run.resultPath) this.results.set(state.run.id, vscode.Uri.file(state.run.resultPath));
    if (state.phase === 'finished') return state;
    const reason = 'VS Code reloaded while this run was going; the result file keeps what was measured until then.';
    return interruptedState(state, state.run.resultPath ? finalizeInterruptedFile(state.run.resultPath, reason) : null, reason);
  }

  /** The menu behind the status bar item. */
  async showMenu(): Promise<void> {
    const items = [
      { label: `$(graph-line) ${vscode.l10n.t('Show Live Panel')}`, run: () => this.live.show() },
      ...(this.active ? [{ label: `$(debug-stop) ${vscode.l10n.t('Cancel Benchmark')}`, run: () => this.cancel() }] : []),
      { label: `$(output) ${vscode.l10n.t('Show Log')}`, run: () => this.showLog() },
    ];
    (await vscode.window.showQuickPick(items, { title: 'LLM Bench' }))?.run();
  }

  /**
   * Whether a run may start now (a trusted workspace, no run going); says why not. Asked before any
   * question; the notification is not awaited.
   */
  async canStart(): Promise<boolean> {
    if (!requireTrust('running a benchmark needs a trusted workspace, because it sends requests to servers and writes result files.')) return false;
    if (this.active) {
      const show = vscode.l10n.t('Show Live Panel');
      void vscode.window
        .showErrorMessage(vscode.l10n.t('LLM Bench: a benchmark is already running. Wait for it or cancel it first.'), show)
        .then((answer) => answer === show && this.live.show());
      return false;
    }
    return true;
  }

  async run(plan: RunPlan): Promise<RunOutcome | undefined> {
    if (!(await this.canStart())) return undefined;
    const folder = workspaceFolderFor(plan.file?.path);
    if (!folder) {
      void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: open a folder first: results are saved into the workspace (setting llmBench.resultsDirectory).'));
      return undefined;
    }
    let sim: SimServer | undefined;
    try {
      if (plan.simulator) sim = await this.startSimulator(plan.simulator);
      const prepared = await this.prepare(plan, folder, sim);
      for (const warning of prepared.warnings) {
        this.log.warn(warning);
        void vscode.window.showWarningMessage(vscode.l10n.t('LLM Bench: {0}', warning));
      }
      return await this.runConfig(prepared, folder, plan.openResult);
    } catch (e) {
      const message = messageOf(e);
      this.log.error(`Could not start the run: ${message}`);
      if (e instanceof RunInputError) void showConfigError(message, plan.file ? vscode.Uri.file(plan.file.path) : undefined);
      else void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: {0}', message));
      return undefined;
    } finally {
      await sim?.close().catch((e: unknown) => this.log.warn(`The simulator did not close cleanly: ${String(e)}`));
    }
  }

  /** The run a plan asks for, as it would start (simulator included), or what is wrong with it; nothing runs. */
  async dryRun(plan: RunPlan): Promise<DryRunOutcome> {
    const folder = workspaceFolderFor(plan.file?.path);
    let sim: SimServer | undefined;
    try {
      if (plan.simulator) sim = await this.startSimulator(plan.simulator);
      const { config, warnings } = await this.prepare(plan, folder, sim);
      return { config: shownConfig(config), warnings };
    } catch (e) {
      if (e instanceof RunInputError) return { error: { problem: e.problem, message: e.message } };
      throw e;
    } finally {
      await sim?.close();
    }
  }

  private async prepare(plan: RunPlan, folder: vscode.WorkspaceFolder | undefined, sim: SimServer | undefined): Promise<PreparedRun> {
    const baseUrl = valueAt(mergeSettings(plan.file?.settings ?? {}, plan.overrides), 'endpoint.baseUrl');
    const storedKey = typeof baseUrl === 'string' && !sim ? await this.apiKeys.get(baseUrl) : undefined;
    return prepareRun({
      overrides: plan.overrides,
      defaults: runDefaultsFromSettings((key) => settings().get(key)),
      ...(plan.file ? { file: plan.file } : {}),
      workingDir: folder?.uri.fsPath ?? process.cwd(),
      ...(sim ? { simulator: { baseUrl: sim.baseUrl, model: sim.model, preset: sim.config.preset } } : {}),
      env: process.env,
      storedApiKey: () => storedKey,
      nameOf: plan.nameOf,
      ownInput: plan.ownInput,
    });
  }

  private async startSimulator(options: Record<string, unknown>): Promise<SimServer> {
    const sim = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Starting the LLM Bench simulator') }, () =>
      startSimServer({ ...options, inWorker: true, workerScript: this.context.asAbsolutePath(join('dist', 'sim-worker.js')) }),
    );
    this.log.info(`Simulator (${sim.config.preset}) listening at ${sim.baseUrl}, model ${sim.model}.`);
    return sim;
  }

  private async resultUri(folder: vscode.WorkspaceFolder, config: RunConfig): Promise<vscode.Uri> {
    const dirUri = await resultsDirectory(folder);
    return vscode.Uri.joinPath(dirUri, resultFileName(new Date(), config.endpoint.model, config.profile.kind));
  }

  private async runConfig({ config, apiKey }: PreparedRun, folder: vscode.WorkspaceFolder, openResult: boolean): Promise<RunOutcome> {
    const resultUri = await this.resultUri(folder, config);
    const id = randomUUID();
    const state = newLiveState({
      id,
      model: config.endpoint.model,
      baseUrl: config.endpoint.baseUrl,
      profile: describeProfile(config.profile),
      startedAt: new Date().toISOString(),
      labels: Object.entries(config.labels),
      // Until the engine says at the run's start how many steps it will run.
      expectedSteps: null,
      resultPath: resultUri.fsPath,
    });
    const run: ActiveRun = { id, state, abort: new AbortController() };
    this.active = run;
    this.results.set(id, resultUri);
    const headerNames = Object.entries(redactHeaders(config.endpoint.headers)).map(([k, v]) => `${k}: ${v}`);
    this.log.info(
      `Run ${id}: ${config.endpoint.api} requests to ${config.endpoint.baseUrl}, model ${config.endpoint.model}, profile ${describeProfile(config.profile)}, ` +
        `limits ${JSON.stringify(config.limits)}, API key ${apiKey ? 'set' : 'none'}${headerNames.length ? `, headers ${headerNames.join('; ')}` : ''}; result ${resultUri.fsPath}`,
    );
    this.live.start(state);
    this.live.show(true);
    void vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, true);
    this.updateStatus(state, true);
    this.statusItem.show();
    const startMs = performance.now();
    try {
      const doc = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('LLM Bench: {0}', config.endpoint.model), cancellable: true },
        (progress, token) => {
          token.onCancellationRequested(() => this.cancel(id));
          let reported = 0;
          return runBenchmarkInWorker(config, {
            workerScript: this.context.asAbsolutePath(join('dist', 'engine-worker.js')),
            signal: run.abort.signal,
            resultPath: resultUri.fsPath,
            ...(apiKey !== undefined ? { apiKey } : {}),
            onEvent: (event) => {
              applyRunEvent(state, event, (performance.now() - startMs) / 1000);
              if (run.abort.signal.aborted && state.phase !== 'finished') state.phase = 'cancelling';
              this.live.changed();
              this.logEvent(id, event);
              if (event.type !== 'progress' || this.updateStatus(state, false)) {
                const view = progressView(state, displayLocale().t);
                const percent = view.overall ? (100 * view.overall.value) / view.overall.max : reported;
                progress.report({ message: notificationText(view), increment: Math.max(0, percent - reported) });
                reported = Math.max(reported, percent);
              }
            },
          });
        },
      );
      // The table first, the verdict last: the Output panel shows a log's end, and the table is wide.
      this.log.info(`Run ${id}, the table of means:\n${formatTerminalTable(doc)}`);
      this.log.info(`Run ${id} ended ${doc.status}${doc.statusReason ? ` (${doc.statusReason})` : ''}.`);
      await this.finish(doc, resultUri, openResult);
      return { status: doc.status, reason: doc.statusReason ?? null, resultUri: resultUri.toString() };
    } catch (e) {
      const message = messageOf(e);
      this.log.error(`Run ${id} failed: ${message}`);
      if (state.phase !== 'finished') applyRunEvent(state, { type: 'run-end', status: 'failed', reason: message, resultPath: resultUri.fsPath }, (performance.now() - startMs) / 1000);
      // A dataset or tokenizer the engine could not use is the user's input to fix, not a failed run.
      if (e instanceof BadInputError) void showConfigError(message);
      else void this.offerResult(`LLM Bench: the run failed: ${message}`, resultUri, 'error');
      return { status: 'failed', reason: message, resultUri: resultUri.toString() };
    } finally {
      this.active = undefined;
      this.live.changed();
      this.live.flush();
      this.statusItem.hide();
      void vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, false);
    }
  }

  private async finish(doc: RunOverview, resultUri: vscode.Uri, openResult: boolean): Promise<void> {
    if (openResult) await vscode.commands.executeCommand('vscode.openWith', resultUri, RESULT_VIEW_TYPE);
    const requests = doc.steps.reduce((n, s) => n + (s.summary?.requests.total ?? 0), 0);
    const message = runEndMessage(doc.status, doc.statusReason, requests, displayLocale().t);
    if (message) void this.offerResult(message, resultUri, doc.status === 'failed' ? 'error' : 'info');
  }

  private async offerResult(message: string, resultUri: vscode.Uri, level: 'info' | 'error'): Promise<void> {
    const open = vscode.l10n.t('Open Result');
    const log = vscode.l10n.t('Show Log');
    const show = level === 'error' ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
    const answer = await show(message, open, log);
    if (answer === open) await vscode.commands.executeCommand('vscode.openWith', resultUri, RESULT_VIEW_TYPE);
    if (answer === log) this.showLog();
  }

  private logEvent(id: string, event: RunEvent): void {
    if (event.type === 'log') this.log[event.level](`Run ${id}: ${event.message}`);
    else if (event.type === 'step-start') this.log.info(`Run ${id}: step ${event.stepIndex + 1} ${event.name} started.`);
    else if (event.type === 'step-end') {
      const s = event.summary;
      const errors = Object.entries(s.errors).map(([k, n]) => `${k} ${n}`).join(', ');
      this.log.info(`Run ${id}: step ${event.stepIndex + 1} ${event.name} done: ${s.requests.completed} completed, ${s.requests.failed} failed${errors ? ` (${errors})` : ''}.`);
    }
  }

  /** Refreshes the status bar at most every STATUS_INTERVAL_MS (unless forced); true when it did. */
  private updateStatus(state: LiveState, force: boolean): boolean {
    const now = performance.now();
    if (!force && now - this.lastStatusMs < STATUS_INTERVAL_MS) return false;
    this.lastStatusMs = now;
    const view = progressView(state, displayLocale().t);
    this.statusItem.text = `$(pulse) ${statusBarText(state, view)}`;
    this.statusItem.tooltip = [view.headline, view.stepDetail, view.eta, vscode.l10n.t('Click for the live panel or to cancel.')].filter(Boolean).join('\n');
    return true;
  }
}

function workspaceFolderFor(baseDir: string | undefined): vscode.WorkspaceFolder | undefined {
  const inFolder = baseDir ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(baseDir)) : undefined;
  const folder = inFolder ?? vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.scheme === 'file' ? folder : undefined;
}
