/**
 * Comparing two runs: one compare panel in the active editor column holds both runs' headers, a
 * table of B against A that tells changes from noise, both runs on the same charts and each run's
 * own charts side by side (src/views/compare.ts); its webview keeps the two files' URIs, so a
 * reload restores it. On request ("Open Side by Side") both runs also open as result editors in
 * two columns, on URIs of a private read-only scheme that carry the real file and its partner, so
 * each side draws its charts on the axes of both runs. (A `vscode.diff` of such URIs, as
 * vscode-hexeditor does, opened a JSON text diff in VS Code 1.139 rather than our editor.)
 */
import * as vscode from 'vscode';
import { ComparePanelStateSchema, ResultRequestSchema } from '../format/messages/from-views';
import { RESULT_FILE_SUFFIX } from '../format/result';
import { compareTarget, compareUri } from './compare-files';
import type { Registrar } from './feature-loader';
import { registerPanelRestorer } from './panel-restore';
import { COMPARE_COMMANDS, COMPARE_VIEW_TYPE } from './view-ids';
import { buildCompareView } from '../views/compare';
import type { ResultSession } from './results';
import { RESULT_VIEW_TYPE } from './results-view-type';
import { fileNameOf, loadResult, watchFiles } from './results-source';
import { hostWebview, webviewOptions } from './webview-html';
import { inDisplayLanguage } from './webview-strings';

export { COMPARE_COMMANDS, COMPARE_SCHEME, COMPARE_VIEW_TYPE } from './view-ids';
export { compareTarget, compareUri } from './compare-files';

const compareTitle = (a: vscode.Uri, b: vscode.Uri) => vscode.l10n.t('Compare: {0} ↔ {1}', fileNameOf(a), fileNameOf(b));

/** Both runs as result editors in two columns, each on the axes of both. */
async function openSideBySide(a: vscode.Uri, b: vscode.Uri): Promise<void> {
  const side = (file: vscode.Uri, partner: vscode.Uri, viewColumn: vscode.ViewColumn) =>
    vscode.commands.executeCommand('vscode.openWith', compareUri(file, partner), RESULT_VIEW_TYPE, { viewColumn, preview: false });
  await side(a, b, vscode.ViewColumn.One);
  await side(b, a, vscode.ViewColumn.Two);
}

/** The compare panel of one pair of runs. */
class ComparePanel implements vscode.Disposable {
  readonly session: ResultSession;
  private readonly watcher: vscode.Disposable;

  constructor(
    public a: vscode.Uri,
    public b: vscode.Uri,
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
  ) {
    this.session = hostWebview(panel, extensionUri, { view: 'compare', title: panel.title, loading: vscode.l10n.t('Reading {0} and {1}...', fileNameOf(a), fileNameOf(b)) }, {
      name: 'compare view',
      log,
      requests: ResultRequestSchema,
      onRequest: async (request) => {
        if (request.type === 'open-as-text') await vscode.commands.executeCommand('vscode.openWith', this.a, 'default');
        else if (request.type === 'swap') await this.swap();
        else if (request.type === 'open-side-by-side') await openSideBySide(this.a, this.b);
      },
      onFirstReady: () => void this.load(),
      pngUri: (chartId) => vscode.Uri.joinPath(this.a, '..', `compare-${chartId}.png`),
    });
    this.session.keep({ type: 'keep-state', state: { a: a.toString(), b: b.toString() } });
    this.watcher = watchFiles([a, b], () => this.load());
  }

  async load(): Promise<void> {
    const [la, lb] = await Promise.all([loadResult(this.a), loadResult(this.b)]);
    if (!la.ok) return this.fail(this.a, la.error);
    if (!lb.ok) return this.fail(this.b, lb.error);
    this.session.show({ type: 'show-compare', view: inDisplayLanguage((t) => buildCompareView(la.read, lb.read, fileNameOf(this.a), fileNameOf(this.b), t)) });
  }

  /** B becomes A: the deltas and their verdicts turn around; the panel keeps the new order for a restore. */
  private async swap(): Promise<void> {
    [this.a, this.b] = [this.b, this.a];
    this.panel.title = compareTitle(this.a, this.b);
    this.session.keep({ type: 'keep-state', state: { a: this.a.toString(), b: this.b.toString() } });
    await this.load();
  }

  dispose(): void {
    this.watcher.dispose();
    this.session.dispose();
  }

  private fail(uri: vscode.Uri, error: string): void {
    this.session.show({ type: 'error', fileName: fileNameOf(uri), message: error });
  }
}

const isResultFile = (uri: vscode.Uri) => uri.path.toLowerCase().endsWith(RESULT_FILE_SUFFIX);

/** The file of the active editor tab, when it is one of our result editors. */
function activeResultFile(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputCustom && input.viewType === RESULT_VIEW_TYPE) return compareTarget(input.uri)?.file ?? input.uri;
  if (input instanceof vscode.TabInputText && isResultFile(input.uri)) return input.uri;
  return undefined;
}

async function pickResultFile(exclude: vscode.Uri): Promise<vscode.Uri | undefined> {
  const found = await vscode.workspace.findFiles(`**/*${RESULT_FILE_SUFFIX}`, '**/node_modules/**', 500);
  const browse = { label: `$(folder-opened) ${vscode.l10n.t('Browse...')}`, uri: undefined as vscode.Uri | undefined };
  const items = found
    .filter((uri) => uri.toString() !== exclude.toString())
    .sort((p, q) => q.path.localeCompare(p.path))
    .map((uri) => ({ label: fileNameOf(uri), description: vscode.workspace.asRelativePath(uri, true), uri }));
  const picked = await vscode.window.showQuickPick([...items, browse], {
    title: vscode.l10n.t('Compare {0} with...', fileNameOf(exclude)),
    placeHolder: vscode.l10n.t('A result file to compare with (B against A)'),
    matchOnDescription: true,
  });
  if (!picked) return undefined;
  if (picked.uri) return picked.uri;
  const chosen = await vscode.window.showOpenDialog({
    canSelectMany: false,
    defaultUri: vscode.Uri.joinPath(exclude, '..'),
    filters: { [vscode.l10n.t('LLM Bench results')]: ['json'] },
    openLabel: vscode.l10n.t('Compare'),
  });
  return chosen?.[0];
}

export interface CompareViews {
  /** Opens the comparison of `a` with `b`, asking for whatever is not given. */
  compareWith(a?: unknown, b?: unknown): Promise<void>;
}

export function registerCompareViews(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, registrar: Registrar): CompareViews {
  const panels = new Set<ComparePanel>();

  function track(a: vscode.Uri, b: vscode.Uri, panel: vscode.WebviewPanel): void {
    const compare = new ComparePanel(a, b, panel, context.extensionUri, log);
    panels.add(compare);
    panel.onDidDispose(() => {
      panels.delete(compare);
      compare.dispose();
    });
  }

  /** One compare panel, in the active column: readable there at 1000 px, and no run open twice. */
  async function open(a: vscode.Uri, b: vscode.Uri): Promise<void> {
    const existing = [...panels].find((p) => p.a.toString() === a.toString() && p.b.toString() === b.toString());
    if (existing) {
      existing.panel.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(COMPARE_VIEW_TYPE, compareTitle(a, b), vscode.ViewColumn.Active, {
      ...webviewOptions(context.extensionUri),
      enableFindWidget: true,
    });
    track(a, b, panel);
  }

  // Menus pass more than Uris (editor/title adds a context object): take only Uris.
  async function compareWith(a?: unknown, b?: unknown): Promise<void> {
    const first = a instanceof vscode.Uri ? (compareTarget(a)?.file ?? a) : activeResultFile();
    if (!first) {
      void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: open a result file (*.llmbench.json) first, then compare it with another.'));
      return;
    }
    const second = b instanceof vscode.Uri ? b : await pickResultFile(first);
    if (second) await open(first, second);
  }

  async function compareSelected(clicked?: unknown, selected?: unknown): Promise<void> {
    const chosen = Array.isArray(selected) && selected.length ? selected : [clicked];
    const files = chosen.filter((u): u is vscode.Uri => u instanceof vscode.Uri && isResultFile(u));
    if (files.length === 2) return open(files[0] as vscode.Uri, files[1] as vscode.Uri);
    if (files.length === 1) return compareWith(files[0]);
    void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: select two result files (*{0}) to compare; {1} selected.', RESULT_FILE_SUFFIX, files.length));
  }

  context.subscriptions.push(
    // A panel saved without its files (by a version before it kept them) has nothing to show: it closes.
    registerPanelRestorer(
      COMPARE_VIEW_TYPE,
      ComparePanelStateSchema,
      (panel, files) => (files ? track(vscode.Uri.parse(files.a, true), vscode.Uri.parse(files.b, true), panel) : panel.dispose()),
      registrar,
    ),
    registrar.registerCommand(COMPARE_COMMANDS.compareWith, compareWith),
    registrar.registerCommand(COMPARE_COMMANDS.compareSelected, compareSelected),
  );
  return { compareWith };
}
