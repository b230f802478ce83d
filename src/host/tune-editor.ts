/**
 * The `*.llmtune.json` custom editor: reads the tune file (src/format/tune.ts parseTuneFile) and
 * the trials' result files (for the Pareto chart's steps), sends the view model, and follows the
 * file while a tune writes it. A trial's row opens its result file in the result editor; Copy puts
 * the best command line on the clipboard. Works in Restricted Mode: it only reads files.
 */
import * as vscode from 'vscode';
import type { HostToTuneMessage } from '../format/messages/tune';
import { TuneRequestSchema, type TuneRequest } from '../format/messages/from-views';
import { parseTuneFile, type TuneFile } from '../format/tune';
import { buildTuneView, stepMeasure, type StepMeasure } from '../views/tune';
import { siblingUri } from './results';
import { RESULT_VIEW_TYPE } from './results-view-type';
import { fileNameOf, loadResult, watchFiles } from './results-source';
import { formatFileSize, hostWebview } from './webview-html';
import { displayLocale } from './webview-strings';
import type { WebviewSession } from './webview-session';
import { messageOf } from '../format/errors';

/** A trial's result file, which the tune file names relative to its own folder. */
export function trialResultUri(tuneFile: vscode.Uri, resultFile: string): vscode.Uri {
  return /^(\/|[A-Za-z]:[\\/])/.test(resultFile) ? vscode.Uri.file(resultFile) : vscode.Uri.joinPath(tuneFile, '..', resultFile);
}

/** Opens trial `number`'s result in the result editor, or says why it cannot. */
export async function openTrialResult(tuneFile: vscode.Uri, doc: Pick<TuneFile, 'trials'>, number: number): Promise<void> {
  const trial = doc.trials.find((t) => t.number === number);
  if (!trial?.resultFile) {
    void vscode.window.showInformationMessage(trial ? vscode.l10n.t('LLM Bench: trial {0} has no result file (it was {1}).', number, trial.status) : vscode.l10n.t('LLM Bench: trial {0} has no result file (it is not in the file).', number));
    return;
  }
  await vscode.commands.executeCommand('vscode.openWith', trialResultUri(tuneFile, trial.resultFile), RESULT_VIEW_TYPE);
}

/** Every measured step of every trial, from the trials' result files (a missing or unreadable one adds nothing). */
async function stepMeasures(file: vscode.Uri, doc: TuneFile): Promise<{ measures: StepMeasure[]; unreadable: number }> {
  const trials = doc.trials.filter((t) => t.resultFile !== null);
  const loaded = await Promise.all(trials.map((t) => loadResult(trialResultUri(file, t.resultFile as string))));
  const measures = loaded.flatMap((result, i) =>
    result.ok
      ? result.read.document.steps.flatMap((step) => {
          const measure = step.summary ? stepMeasure((trials[i] as TuneFile['trials'][number]).number, step.summary, doc.config.objective) : null;
          return measure ? [measure] : [];
        })
      : [],
  );
  return { measures, unreadable: loaded.filter((r) => !r.ok).length };
}

class TuneEditor implements vscode.Disposable {
  private doc: TuneFile | undefined;
  private loading: Promise<void> | undefined;
  private readonly session: WebviewSession<HostToTuneMessage, TuneRequest>;
  private readonly watcher: vscode.Disposable;

  constructor(
    private readonly file: vscode.Uri,
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    loading: string,
    log: vscode.LogOutputChannel,
  ) {
    this.session = hostWebview(panel, extensionUri, { view: 'tune', title: fileNameOf(file), loading }, {
      name: `tune view of ${fileNameOf(file)}`,
      log,
      requests: TuneRequestSchema,
      onRequest: (request) => this.onRequest(request),
      onFirstReady: () => void this.reload(),
      pngUri: (chartId) => siblingUri(file, `-${chartId}.png`),
    });
    this.watcher = watchFiles([file], () => this.reload());
    void this.reload();
  }

  dispose(): void {
    this.watcher.dispose();
    this.session.dispose();
  }

  private reload(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<void> {
    const fileName = fileNameOf(this.file);
    let text: string;
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(this.file));
    } catch (e) {
      this.session.show({ type: 'error', fileName, message: vscode.l10n.t('The file could not be read ({0}).', messageOf(e)) });
      return;
    }
    const parsed = parseTuneFile(text);
    if (!parsed.ok) {
      this.doc = undefined;
      this.session.show({ type: 'error', fileName, message: parsed.error });
      return;
    }
    this.doc = parsed.value;
    const { measures, unreadable } = await stepMeasures(this.file, parsed.value);
    const view = buildTuneView(parsed.value, fileName, measures, undefined, displayLocale().t);
    if (unreadable > 0) {
      view.notes.push(
        unreadable === 1
          ? vscode.l10n.t("1 trial result file is missing or unreadable: its steps are not on the Pareto chart.")
          : vscode.l10n.t("{0} trial result files are missing or unreadable: their steps are not on the Pareto chart.", unreadable),
      );
    }
    this.session.show({ type: 'show', view });
  }

  private async onRequest(request: Exclude<TuneRequest, { type: 'save-png' }>): Promise<void> {
    switch (request.type) {
      case 'open-as-text':
        await vscode.commands.executeCommand('vscode.openWith', this.file, 'default');
        return;
      case 'open-trial':
        if (this.doc) await openTrialResult(this.file, this.doc, request.trial);
        return;
      case 'copy-best-command': {
        // The command as the view shows it: as the user wrote it (`llmbench`, no trial port), to paste.
        const best = this.doc ? buildTuneView(this.doc, fileNameOf(this.file), []).best : null;
        if (!best) return;
        await vscode.env.clipboard.writeText(best.commandLine);
        void vscode.window.setStatusBarMessage('LLM Bench: best command line copied', 3000);
        return;
      }
    }
  }
}

export class TuneEditorProvider implements vscode.CustomReadonlyEditorProvider {
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const size = await vscode.workspace.fs.stat(document.uri).then((stat) => ` (${formatFileSize(stat.size)})`, () => '');
    const editor = new TuneEditor(document.uri, panel, this.extensionUri, vscode.l10n.t('Reading the tune file{0} and its trials\' results...', size), this.log);
    panel.onDidDispose(() => editor.dispose());
  }
}
