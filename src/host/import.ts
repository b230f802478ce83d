/**
 * "Import Benchmark Results..." (result files of other tools, folders, logs and Markdown notes)
 * and "Import Benchmark Results from Clipboard": src/import finds the runs; this layer shows what
 * was found (runs, steps, labels of each), lets the labels be edited, writes one result file per
 * run and offers the report grouped by a label.
 */
import * as vscode from 'vscode';
import { reportingErrors } from './command-errors';
import { selectedOrChosen } from './explorer-selection';
import type { Registrar } from './feature-loader';
import { IMPORT_COMMANDS, REPORT_COMMANDS } from './view-ids';
import * as z from 'zod';
import { RESULT_FILE_SUFFIX, type ResultDocument } from '../format/result';
import { importPastedText, importRuns, runFileName, runSource } from '../import';
import { formatLabelsText } from '../views/labels';
import { stepLabel } from '../format/step-name';
import { editLabelFields } from './label-editor';

export { IMPORT_COMMANDS } from './view-ids';
const OPEN_REPORT_COMMAND = REPORT_COMMANDS.open;

/** How pasted text is named in messages and in each run's `importedFrom.file`. */
const CLIPBOARD_NAME = 'clipboard';

const encoder = new TextEncoder();

/** A scripted import (tests, automation) writes into `target` (a result file for one run, else a folder) without asking. */
const TargetSchema = z.custom<vscode.Uri>((value) => value instanceof vscode.Uri);
const PastedTextSchema = z.string().min(1);

/**
 * One item per run for the review and messages: its steps by name beside the run's name (the
 * source's own name, ours beside it), where VS Code cuts a line least; the tool, the step count,
 * the labels and the source lines below.
 */
function describeRun(doc: ResultDocument, index: number): vscode.QuickPickItem & { index: number } {
  const steps = doc.steps.length;
  const stepCount = steps === 1 ? vscode.l10n.t('1 step') : vscode.l10n.t('{0} steps', steps);
  return {
    index,
    label: `$(graph-line) ${vscode.l10n.t('Run {0}: {1}', index + 1, doc.labels['model'] ?? doc.endpoint.model)}`,
    description: doc.steps.map((s) => stepLabel(s)).join(', '),
    detail: [[doc.importedFrom?.tool, stepCount].filter(Boolean).join(', '), formatLabelsText(doc.labels) || vscode.l10n.t('no labels'), runSource(doc)].join('  ·  '),
  };
}

/**
 * Shows the runs found and lets their labels be edited (pick a run, edit its labels, back to the
 * list) until the user writes them or cancels. Answers the runs to write, or undefined.
 */
async function reviewRuns(found: ResultDocument[]): Promise<ResultDocument[] | undefined> {
  const runs = [...found];
  const steps = runs.reduce((sum, doc) => sum + doc.steps.length, 0);
  const runsText = runs.length === 1 ? vscode.l10n.t('1 run') : vscode.l10n.t('{0} runs', runs.length);
  const stepsText = steps === 1 ? vscode.l10n.t('1 step') : vscode.l10n.t('{0} steps', steps);
  for (;;) {
    const write = { label: `$(save) ${runs.length === 1 ? vscode.l10n.t('Write 1 result file') : vscode.l10n.t('Write {0} result files', runs.length)}`, index: -1 };
    const choice = await vscode.window.showQuickPick([write, ...runs.map(describeRun)], {
      title: vscode.l10n.t('LLM Bench: found {0}, {1}: pick a run to edit its labels', runsText, stepsText),
      ignoreFocusOut: true,
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!choice) return undefined;
    const doc = runs[choice.index];
    if (!doc) return runs;
    // A field per label, the known keys offered: one long comma-separated line was hard to read and easy to break.
    const labels = await editLabelFields(doc.labels, {
      title: vscode.l10n.t('Labels of run {0} ({1})', choice.index + 1, runSource(doc)),
      placeHolder: vscode.l10n.t('Pick a label to set it; measurements are not touched'),
      done: { label: `$(check) ${vscode.l10n.t('Done')}`, detail: vscode.l10n.t('Back to the runs found') },
    });
    if (labels) runs[choice.index] = { ...doc, labels };
  }
}

/** Writes a whole file or nothing: to a temporary name first, then renamed over the target. */
async function writeWhole(file: vscode.Uri, doc: ResultDocument): Promise<void> {
  const temporary = file.with({ path: `${file.path}.${process.pid}.tmp` });
  try {
    await vscode.workspace.fs.writeFile(temporary, encoder.encode(JSON.stringify(doc, null, 2) + '\n'));
    await vscode.workspace.fs.rename(temporary, file, { overwrite: true });
  } catch (error) {
    // A full disk or a refused rename leaves no half file behind, neither the result nor its temporary.
    await vscode.workspace.fs.delete(temporary).then(undefined, () => undefined);
    throw error;
  }
}

/** The folder a result goes to by default: the workspace's results folder (setting llmBench.resultsDirectory), else beside the source. */
function defaultFolder(source: vscode.Uri | undefined): vscode.Uri | undefined {
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri;
  const configured = vscode.workspace.getConfiguration('llmBench').get<string>('resultsDirectory', 'benchmarks').trim() || 'benchmarks';
  if (workspace) return vscode.Uri.joinPath(workspace, configured);
  return source ? vscode.Uri.joinPath(source, '..') : undefined;
}

/** Where to write: a file for one run, a folder for several; from the script, else asked. */
async function chooseDestination(runs: ResultDocument[], source: vscode.Uri | undefined, target: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
  if (target) return target;
  const folder = defaultFolder(source);
  if (runs.length === 1 && runs[0]) {
    return vscode.window.showSaveDialog({
      ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, runFileName(runs[0], 0, new Set()).replace(/^\d+-/, '')) } : {}),
      filters: { [vscode.l10n.t('LLM Bench result')]: ['json'] },
      title: vscode.l10n.t('Save the imported result'),
    });
  }
  const picked = await vscode.window.showOpenDialog({
    canSelectFiles: false,
    canSelectFolders: true,
    canSelectMany: false,
    ...(folder ? { defaultUri: folder } : {}),
    openLabel: vscode.l10n.t('Write {0} results here', runs.length),
    title: vscode.l10n.t('A folder for the {0} imported results (one file each)', runs.length),
  });
  return picked?.[0];
}

/** Writes the runs; answers the files written. One run may go to a file; several go into a folder. */
async function writeRuns(runs: ResultDocument[], destination: vscode.Uri): Promise<vscode.Uri[]> {
  const [only] = runs;
  if (runs.length === 1 && only && destination.path.endsWith(RESULT_FILE_SUFFIX)) {
    await writeWhole(destination, only);
    return [destination];
  }
  if (destination.path.endsWith('.json')) throw new Error(`${runs.length} runs were found: choose a folder, not ${destination.fsPath}.`);
  await vscode.workspace.fs.createDirectory(destination);
  // Names already in the folder are taken: an import never overwrites an earlier one.
  const taken = new Set((await vscode.workspace.fs.readDirectory(destination)).map(([name]) => name));
  const written: vscode.Uri[] = [];
  for (const [index, doc] of runs.entries()) {
    const file = vscode.Uri.joinPath(destination, runFileName(doc, index, taken));
    await writeWhole(file, doc);
    written.push(file);
  }
  return written;
}

/** Labels whose values differ between the runs: the ones worth grouping a report by. */
function distinguishingLabels(runs: ResultDocument[]): string[] {
  const keys = [...new Set(runs.flatMap((doc) => Object.keys(doc.labels)))];
  return keys.filter((key) => new Set(runs.map((doc) => doc.labels[key] ?? '')).size > 1);
}

/** After several runs are written: offers the report over them, grouped by a label the user picks. */
async function offerReport(runs: ResultDocument[], files: vscode.Uri[]): Promise<void> {
  const labels = distinguishingLabels(runs);
  const openReport = vscode.l10n.t('Open Report...');
  const open = await vscode.window.showInformationMessage(vscode.l10n.t('LLM Bench: imported {0} runs.', files.length), openReport);
  if (open !== openReport) return;
  const groupBy = labels.length > 1 ? await vscode.window.showQuickPick(labels, { title: vscode.l10n.t('Group the report by') }) : labels[0];
  await vscode.commands.executeCommand(OPEN_REPORT_COMMAND, undefined, files, groupBy ? { groupBy } : undefined);
}

/** The shared end of both imports: review (unless scripted), write, then open the result or offer the report. */
async function finishImport(found: ResultDocument[], source: vscode.Uri | undefined, target: vscode.Uri | undefined): Promise<vscode.Uri[] | undefined> {
  const runs = target ? found : await reviewRuns(found);
  if (!runs) return undefined;
  const destination = await chooseDestination(runs, source, target);
  if (!destination) return undefined;
  const files = await writeRuns(runs, destination);
  if (target) return files;
  if (files.length === 1 && files[0]) await vscode.commands.executeCommand('vscode.open', files[0]);
  // The offer stays until dismissed; the command answers at once with what it wrote.
  else void offerReport(runs, files);
  return files;
}

export function registerImportCommands(context: vscode.ExtensionContext, registrar: Registrar): void {
  context.subscriptions.push(
    registrar.registerCommand(IMPORT_COMMANDS.importResults, async (uri?: unknown, uris?: unknown, target?: unknown) =>
      reportingErrors(async () => {
        const sources = await selectedOrChosen(uri, uris, { openLabel: vscode.l10n.t('Import'), title: vscode.l10n.t('Result files of other tools, their folders, or logs and notes holding their printouts') });
        if (!sources?.length) return undefined;
        const found = await importRuns(sources.map((s) => s.fsPath));
        if (!found.ok) throw new Error(found.error);
        return finishImport(found.value, sources[0], TargetSchema.safeParse(target).data);
      }),
    ),
    // `text` is for scripts and tests; from the palette the clipboard is read.
    registrar.registerCommand(IMPORT_COMMANDS.importFromClipboard, async (target?: unknown, text?: unknown) =>
      reportingErrors(async () => {
        const pasted = PastedTextSchema.safeParse(text).data ?? (await vscode.env.clipboard.readText());
        if (!pasted.trim()) throw new Error('the clipboard is empty: copy a vLLM, EvalScope or GuideLLM printout (or a page of notes holding them) first.');
        const found = importPastedText(pasted, CLIPBOARD_NAME);
        if (!found.ok) throw new Error(found.error);
        return finishImport(found.value, undefined, TargetSchema.safeParse(target).data);
      }),
    ),
  );
}
