/**
 * The `*.llmbench.json` custom editor and its commands (Markdown table, chart PNG). Works in
 * Restricted Mode: it only reads the file. Compare lives in compare.ts.
 */
import * as vscode from 'vscode';
import { reportingErrors } from './command-errors';
import type { HostToResultMessage } from '../format/messages/result';
import { DEFAULT_TABLE_COLUMNS, ResultRequestSchema, TableColumnsSchema, type ResultRequest, type TableColumns } from '../format/messages/from-views';
import type { ResultDocument } from '../format/result';
import { formatMarkdownTable } from '../report/tables';
import { compareTarget, registerCompareViews } from './compare';
import type { Registrar } from './feature-loader';
import { RESULT_COMMANDS } from './view-ids';
import { RESULT_VIEW_TYPE } from './results-view-type';
import { alignAxes, buildResultView } from '../views/result';
import { fileNameOf, loadResult, watchFiles } from './results-source';
import { inDisplayLanguage } from './webview-strings';
import { savePng, saveWithDialog } from './save-file';
import { formatFileSize, hostWebview } from './webview-html';
import type { WebviewSession } from './webview-session';

export { RESULT_VIEW_TYPE };

const REREAD_DELAY_MS = 300;

export { RESULT_COMMANDS } from './view-ids';

/** Where `stem-suffix` goes next to a result or tune file: `run.llmbench.json` -> `run-latency.png`. */
export function siblingUri(uri: vscode.Uri, suffix: string): vscode.Uri {
  const stem = fileNameOf(uri).replace(/\.(llmbench|llmtune)\.json$/i, '').replace(/\.json$/i, '');
  return vscode.Uri.joinPath(uri, '..', `${stem}${suffix}`);
}

interface EditorActions {
  compareWith(file: vscode.Uri): void;
  /** The step table's optional columns, remembered per workspace. */
  columns(): TableColumns;
  setColumns(columns: TableColumns): void;
}

const TABLE_COLUMNS_KEY = 'llmBench.resultTableColumns';

/** The session of a result or compare page. */
export type ResultSession = WebviewSession<HostToResultMessage, ResultRequest, vscode.WebviewPanel>;

/** One open result editor: the file it shows (and, in a compare, the run it is aligned with). */
class ResultEditor implements vscode.Disposable {
  readonly session: ResultSession;
  readonly file: vscode.Uri;
  private readonly partner: vscode.Uri | undefined;
  private doc: ResultDocument | undefined;
  private readonly watcher: vscode.Disposable;
  private loading: Promise<void> | undefined;

  constructor(
    resource: vscode.Uri,
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    loading: string,
    log: vscode.LogOutputChannel,
    private readonly actions: EditorActions,
  ) {
    const target = compareTarget(resource);
    this.file = target?.file ?? resource;
    this.partner = target?.partner;
    this.session = hostWebview(panel, extensionUri, { view: 'result', title: fileNameOf(resource), loading }, {
      name: `result view of ${fileNameOf(this.file)}`,
      log,
      requests: ResultRequestSchema,
      onRequest: (request) => this.onRequest(request),
      onFirstReady: () => void this.reload(),
      pngUri: (chartId) => siblingUri(this.file, `-${chartId}.png`),
    });
    this.watcher = watchFiles(this.partner ? [this.file, this.partner] : [this.file], () => this.reload());
    // Read the file while the webview loads its page: the view goes out as soon as it is built (WebviewSession.show).
    void this.reload();
  }

  get document(): ResultDocument | undefined {
    return this.doc;
  }

  /** Reads the file again (once at a time) and sends the new view or the reason it cannot be shown. */
  reload(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  dispose(): void {
    this.watcher.dispose();
    this.session.dispose();
  }

  private async load(): Promise<void> {
    const fileName = fileNameOf(this.file);
    let loaded = await loadResult(this.file);
    if (!loaded.ok && this.doc) {
      // The file was readable a moment ago: it may be mid-write by a running benchmark. Look again.
      await new Promise((resolve) => setTimeout(resolve, REREAD_DELAY_MS));
      loaded = await loadResult(this.file);
    }
    if (!loaded.ok) {
      this.doc = undefined;
      this.session.show({ type: 'error', fileName, message: loaded.error });
      return;
    }
    this.doc = loaded.read.document;
    // What the view model words itself (its notes, the run's failure and workers) in the display language, as the page does.
    let view = inDisplayLanguage((t) => buildResultView(loaded.read, fileName, undefined, t));
    const partner = this.partner;
    if (partner) {
      const other = await loadResult(partner);
      if (other.ok) [view] = alignAxes(view, inDisplayLanguage((t) => buildResultView(other.read, fileNameOf(partner), undefined, t)));
    }
    this.session.show({ type: 'show', view, columns: this.actions.columns() });
  }

  private async onRequest(request: Exclude<ResultRequest, { type: 'save-png' }>): Promise<void> {
    if (request.type === 'open-as-text') await vscode.commands.executeCommand('vscode.openWith', this.file, 'default');
    else if (request.type === 'compare-with') this.actions.compareWith(this.file);
    else if (request.type === 'markdown') await exportMarkdown(this, request.action);
    else if (request.type === 'table-columns') this.actions.setColumns(request.columns);
  }
}


function markdownOf(editor: ResultEditor): string {
  if (!editor.document) throw new Error(`${fileNameOf(editor.file)} is not a readable result, so it has no table to export.`);
  return formatMarkdownTable(editor.document);
}

async function exportMarkdown(editor: ResultEditor, action: 'copy' | 'save', target?: vscode.Uri): Promise<vscode.Uri | undefined> {
  const markdown = markdownOf(editor);
  if (action === 'copy') {
    await vscode.env.clipboard.writeText(markdown);
    void vscode.window.setStatusBarMessage('LLM Bench: table copied as Markdown', 3000);
    return undefined;
  }
  const bytes = new TextEncoder().encode(markdown);
  if (target) {
    await vscode.workspace.fs.writeFile(target, bytes);
    return target;
  }
  return saveWithDialog(bytes, siblingUri(editor.file, '.md'), { Markdown: ['md'] });
}

class ResultEditorProvider implements vscode.CustomReadonlyEditorProvider {
  readonly editors = new Set<ResultEditor>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly workspaceState: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
    private readonly compareWith: (file: vscode.Uri) => void,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const size = await vscode.workspace.fs.stat(document.uri).then((stat) => ` (${formatFileSize(stat.size)})`, () => '');
    const editor = new ResultEditor(document.uri, panel, this.extensionUri, vscode.l10n.t('Reading the result file{0}...', size), this.log, {
      compareWith: this.compareWith,
      columns: () => {
        const kept = TableColumnsSchema.safeParse(this.workspaceState.get(TABLE_COLUMNS_KEY));
        return kept.success ? kept.data : DEFAULT_TABLE_COLUMNS;
      },
      setColumns: (columns) => void this.workspaceState.update(TABLE_COLUMNS_KEY, columns),
    });
    this.editors.add(editor);
    panel.onDidDispose(() => {
      this.editors.delete(editor);
      editor.dispose();
    });
  }

  /** The editor for `uri`, else the active one, else the only one open. */
  find(uri?: vscode.Uri): ResultEditor | undefined {
    const all = [...this.editors];
    if (uri) {
      const file = (compareTarget(uri)?.file ?? uri).toString();
      return all.find((e) => e.file.toString() === file && e.session.panel.active) ?? all.find((e) => e.file.toString() === file);
    }
    return all.find((e) => e.session.panel.active) ?? (all.length === 1 ? all[0] : undefined);
  }

  /** Waits until the editor of `uri` has loaded it (for commands run right after opening). */
  async loaded(uri?: vscode.Uri): Promise<ResultEditor> {
    const editor = this.find(uri);
    if (!editor) throw new Error(uri ? `${fileNameOf(uri)} is not open in the LLM Bench result view.` : 'No LLM Bench result view is active.');
    if (!editor.session.current) await editor.reload();
    return editor;
  }
}

export function registerResultViews(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, registrar: Registrar): void {
  const compare = registerCompareViews(context, log, registrar);
  const provider = new ResultEditorProvider(context.extensionUri, context.workspaceState, log, (file) => void compare.compareWith(file));
  context.subscriptions.push(
    // VS Code's options for it are given where it is registered at activation (view-ids.ts).
    registrar.registerCustomEditorProvider(RESULT_VIEW_TYPE, provider),
    registrar.registerCommand(RESULT_COMMANDS.copyMarkdown, (uri?: vscode.Uri) =>
      reportingErrors(async () => exportMarkdown(await provider.loaded(uri), 'copy')),
    ),
    // Returns the saved file's Uri; `target` skips the save dialog (scripts and tests).
    registrar.registerCommand(RESULT_COMMANDS.saveMarkdown, async (uri?: vscode.Uri, target?: vscode.Uri) =>
      exportMarkdown(await provider.loaded(uri), 'save', target),
    ),
    registrar.registerCommand(
      RESULT_COMMANDS.exportChart,
      async (uri?: vscode.Uri, chartId = 'output-throughput', target?: vscode.Uri): Promise<vscode.Uri | undefined> => {
        const editor = await provider.loaded(uri);
        return savePng(await editor.session.chartPng(chartId), siblingUri(editor.file, `-${chartId}.png`), target);
      },
    ),
  );
}
