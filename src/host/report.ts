/**
 * The many-run report in VS Code: "Open Benchmark Report" on a folder or a selection of result
 * files (explorer context menu or palette) opens a panel that groups runs by a label, overlays
 * their curves with knees marked and ranks them for an SLO; it exports HTML, CSV and Markdown.
 * "Edit Labels" rewrites only the labels of a result file (importing other tools' results is
 * src/host/import.ts). The model is built here (src/report/model.ts); the webview draws.
 */
import * as vscode from 'vscode';
import { reportingErrors } from './command-errors';
import { selectedOrChosen } from './explorer-selection';
import { RESULT_FILE_SUFFIX } from '../format/result';
import type { HostToReport } from '../format/messages/report';
import { ReportOptionsSchema, ReportPanelStateSchema, ReportRequestSchema, type ReportRequest } from '../format/messages/from-views';
import { formatStepsCsv } from '../report/csv';
import { renderHtmlReport } from '../report/html';
import { formatLabelsText, parseLabelsText, withLabels } from '../views/labels';
import { loadRuns } from '../report/load';
import { buildReportModel, type ReportModel, type ReportOptions, type ReportRun } from '../views/report';
import { formatMarkdownReport } from '../report/tables';
import { displayLocale, inDisplayLanguage } from './webview-strings';
import type { Registrar } from './feature-loader';
import { registerPanelRestorer } from './panel-restore';
import { editLabelFields } from './label-editor';
import { REPORT_COMMANDS, REPORT_VIEW_TYPE } from './view-ids';
import { saveWithDialog } from './save-file';
import { hostWebview, webviewOptions } from './webview-html';
import type { WebviewSession } from './webview-session';

export { REPORT_COMMANDS, REPORT_VIEW_TYPE } from './view-ids';

/** What the open command answers (for scripts and tests): the report as first shown. */
export interface OpenedReport {
  title: string;
  model: ReportModel;
  problems: string[];
}

const encoder = new TextEncoder();

class ReportPanel {
  private runs: ReportRun[] = [];
  private problems: string[] = [];
  private readonly session: WebviewSession<HostToReport, ReportRequest>;

  /** `options` are those of a restored panel; a fresh report's are chosen once its runs are loaded. */
  constructor(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
    private readonly paths: string[],
    private readonly title: string,
    private options: ReportOptions | undefined,
  ) {
    this.session = hostWebview(panel, extensionUri, { view: 'report', title, loading: vscode.l10n.t('Reading the result files...') }, {
      name: 'report',
      log,
      requests: ReportRequestSchema,
      onRequest: (request) => this.handle(request),
      pngUri: (chartId) => defaultUri(`${chartId}.png`),
    });
  }

  async load(): Promise<OpenedReport> {
    ({ runs: this.runs, problems: this.problems } = await loadRuns(this.paths));
    // Group by the first label that tells runs apart, so a fresh report already compares something.
    this.options ??= { groupBy: distinguishingLabel(this.runs) };
    return this.show(this.options);
  }

  private show(options: ReportOptions): OpenedReport {
    const model = inDisplayLanguage((t) => buildReportModel(this.runs, options, t));
    this.session.show({ type: 'model', title: this.title, model, problems: this.problems });
    // What the webview keeps for VS Code to hand back when it restores the panel after a reload.
    this.session.keep({ type: 'keep-state', state: { paths: this.paths, options } });
    return { title: this.title, model, problems: this.problems };
  }

  private async handle(message: Exclude<ReportRequest, { type: 'save-png' }>): Promise<void> {
    switch (message.type) {
      case 'options':
        this.options = message.options;
        this.show(this.options);
        return;
      case 'export':
        await this.export(message.format);
        return;
      case 'make-runs':
        await vscode.commands.executeCommand(message.how === 'run' ? 'llmBench.run' : 'llmBench.importResults');
        return;
      case 'editLabels': {
        const source = this.runs[message.run]?.source;
        if (source && (await editLabels(vscode.Uri.file(source)))) await this.load();
        return;
      }
    }
  }

  private async export(format: 'html' | 'csv' | 'md'): Promise<void> {
    // The exports read in the display language, as the views do.
    const language = displayLocale();
    const model = buildReportModel(this.runs, this.options ?? {}, language.t);
    const text =
      format === 'html'
        ? renderHtmlReport(model, this.runs, this.title, new Date(), language)
        : format === 'csv'
          ? formatStepsCsv(this.runs)
          : formatMarkdownReport(model, this.runs, this.title, { t: language.t });
    const filters: Record<string, Record<string, string[]>> = { html: { [vscode.l10n.t('HTML report')]: ['html'] }, csv: { CSV: ['csv'] }, md: { Markdown: ['md'] } };
    const saved = await saveWithDialog(encoder.encode(text), defaultUri(`llmbench-report.${format}`), filters[format] ?? {});
    if (saved) void vscode.window.showInformationMessage(vscode.l10n.t('LLM Bench: report saved to {0}.', vscode.workspace.asRelativePath(saved)));
  }
}

function distinguishingLabel(runs: ReportRun[]): string | undefined {
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.doc.labels)))].filter((k) => k !== 'source');
  return keys.find((k) => new Set(runs.map((r) => r.doc.labels[k])).size > 1);
}


function defaultUri(name: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  return folder ? vscode.Uri.joinPath(folder, name) : vscode.Uri.file(name);
}

/**
 * Asks for new labels, a field each (src/host/label-editor.ts), and rewrites only the `labels` of
 * the file; answers whether it changed. `answer` (scripts, tests) gives them as key=value text instead.
 */
export async function editLabels(file: vscode.Uri, answer?: string): Promise<boolean> {
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
  const current = JSON.parse(text) as { labels?: Record<string, string> };
  let labels: Record<string, string>;
  if (answer !== undefined) {
    const parsed = parseLabelsText(answer);
    if (!parsed.ok) throw new Error(parsed.error);
    labels = parsed.value;
  } else {
    const edited = await editLabelFields(current.labels ?? {}, {
      title: vscode.l10n.t('Labels of {0}', vscode.workspace.asRelativePath(file)),
      placeHolder: vscode.l10n.t('Pick a label to set it; measurements are not touched'),
      done: { label: `$(save) ${vscode.l10n.t('Save the labels')}` },
      doneDetail: (labels) => formatLabelsText(labels) || vscode.l10n.t('No labels'),
    });
    if (edited === undefined) return false;
    labels = edited;
  }
  const updated = withLabels(text, labels);
  if (!updated.ok) throw new Error(`${vscode.workspace.asRelativePath(file)}: ${updated.error}`);
  await vscode.workspace.fs.writeFile(file, encoder.encode(updated.value));
  return true;
}


function reportTitle(paths: string[]): string {
  const names = paths.map((path) => vscode.workspace.asRelativePath(vscode.Uri.file(path)));
  return names.length === 1 ? vscode.l10n.t('Benchmark Report: {0}', names[0]!) : vscode.l10n.t('Benchmark Report: {0} selections', names.length);
}

/** Shows the report of `paths` in `panel`, a new one or one VS Code restored after a reload. */
function showReport(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, panel: vscode.WebviewPanel, paths: string[], options?: ReportOptions): Promise<OpenedReport> {
  const title = reportTitle(paths);
  panel.title = title;
  return new ReportPanel(panel, context.extensionUri, log, paths, title, options).load();
}

async function openReport(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, targets: vscode.Uri[], options?: ReportOptions): Promise<OpenedReport> {
  const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, reportTitle(targets.map((t) => t.fsPath)), vscode.ViewColumn.Active, {
    ...webviewOptions(context.extensionUri),
    retainContextWhenHidden: false,
  });
  return showReport(context, log, panel, targets.map((t) => t.fsPath), options);
}


export function registerReportViews(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, registrar: Registrar): void {
  context.subscriptions.push(
    // A panel saved without its files (by a version before it kept them) has nothing to show: it closes.
    registerPanelRestorer(
      REPORT_VIEW_TYPE,
      ReportPanelStateSchema,
      (panel, saved) => (saved ? void reportingErrors(() => showReport(context, log, panel, saved.paths, saved.options)) : panel.dispose()),
      registrar,
    ),
    // `options` (a grouping label, ...) comes from the import's "Open Report" offer and from scripts.
    registrar.registerCommand(REPORT_COMMANDS.open, async (uri?: unknown, uris?: unknown, options?: unknown) => {
      const targets = await selectedOrChosen(uri, uris, { openLabel: vscode.l10n.t('Open Report'), title: vscode.l10n.t('Result files or folders to compare') });
      return targets?.length ? reportingErrors(() => openReport(context, log, targets, ReportOptionsSchema.safeParse(options).data)) : undefined;
    }),
    registrar.registerCommand(REPORT_COMMANDS.editLabels, async (uri?: unknown, answer?: unknown) => {
      const active = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      const file = uri instanceof vscode.Uri ? uri : active instanceof vscode.TabInputCustom ? active.uri : undefined;
      if (!file) {
        void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: open or select a {0} file to edit its labels.', RESULT_FILE_SUFFIX));
        return false;
      }
      return reportingErrors(() => editLabels(file, typeof answer === 'string' ? answer : undefined));
    }),
  );
}
