/**
 * Labels edited one field each, wherever labels are asked for (starting a run, reviewing an import,
 * "Edit Labels"): a list of the known keys and the ones the labels already hold, each with its
 * value; choosing one asks for its value alone; "Add a label…" asks for a new key. One long
 * comma-separated line was hard to read and easy to break.
 */
import * as vscode from 'vscode';
import { canonicalLabels, type Labels } from '../format/config';
import { cleanLabels, LABEL_KEYS } from './labels';

/** The item that ends the editing: "Start the benchmark", "Done", "Save labels". */
export interface LabelEditorDone {
  label: string;
  description?: string;
  detail?: string;
}

const ADD: unique symbol = Symbol('add a label');
const DONE: unique symbol = Symbol('done');
const EXTRA: unique symbol = Symbol('extra');

type Choice = vscode.QuickPickItem & { value: string | typeof ADD | typeof DONE | typeof EXTRA };

/** A question asked beside the labels (the run's workers): listed after them, its answer kept by `choose`. */
export interface LabelEditorExtra {
  label: string;
  description: string;
  detail: string;
  choose(): Promise<void>;
}

/** The keys listed: the known ones in their order, then the others the labels hold. */
export function labelKeysOffered(labels: Labels): string[] {
  return [...LABEL_KEYS, ...Object.keys(labels).filter((key) => !(LABEL_KEYS as readonly string[]).includes(key))];
}

/** What a key's field prompts for: its known description, or a free label's. */
function promptOf(key: string): string {
  switch (key as (typeof LABEL_KEYS)[number]) {
    case 'engine':
      return vscode.l10n.t('Inference engine and version, e.g. vLLM 0.11.0');
    case 'gpu':
      return vscode.l10n.t('GPU (or other accelerator), e.g. 1x A100 80GB');
    case 'model':
      return vscode.l10n.t('The model as it should be grouped, e.g. Qwen2.5-7B-Instruct (the served name is recorded anyway)');
    case 'gpus':
      return vscode.l10n.t('Number of GPUs (tensor/pipeline parallel), e.g. 2 (TP=2)');
    case 'quantization':
      return vscode.l10n.t('Quantization, e.g. bf16, fp8, AWQ int4');
    default:
      return vscode.l10n.t('The value of the label "{0}" (empty removes it)', key);
  }
}

/**
 * Asks for labels field by field, starting from `initial`; answers the labels (trimmed, empty ones
 * removed, each under its one key) once `done` is chosen, or undefined when the user leaves.
 */
export async function editLabelFields(
  initial: Labels,
  options: { title: string; placeHolder: string; done: LabelEditorDone; doneDescription?: (labels: Labels) => string; doneDetail?: (labels: Labels) => string; extra?: () => LabelEditorExtra },
): Promise<Labels | undefined> {
  const labels: Labels = { ...canonicalLabels(initial) };
  for (;;) {
    const extra = options.extra?.();
    const doneDescription = options.doneDescription?.(cleanLabels(labels)) ?? options.done.description;
    const items: Choice[] = [
      { label: options.done.label, ...(doneDescription ? { description: doneDescription } : {}), detail: options.doneDetail?.(cleanLabels(labels)) ?? options.done.detail ?? '', value: DONE },
      { label: vscode.l10n.t('Labels'), kind: vscode.QuickPickItemKind.Separator, value: DONE },
      ...labelKeysOffered(labels).map((key) => ({ label: key, description: labels[key] || vscode.l10n.t('(not set)'), detail: promptOf(key), value: key })),
      { label: `$(add) ${vscode.l10n.t('Add a label…')}`, detail: vscode.l10n.t('A label of your own: a key, then its value'), value: ADD },
      ...(extra ? [{ label: extra.label, description: extra.description, detail: extra.detail, value: EXTRA } satisfies Choice] : []),
    ];
    const chosen = await vscode.window.showQuickPick(items, { title: options.title, placeHolder: options.placeHolder, ignoreFocusOut: true, matchOnDetail: false });
    if (chosen === undefined) return undefined;
    if (chosen.value === DONE) return cleanLabels(labels);
    if (chosen.value === EXTRA) {
      await extra?.choose();
      continue;
    }
    let key = chosen.value;
    if (key === ADD) {
      const typed = await vscode.window.showInputBox({
        title: vscode.l10n.t('{0}: new label', options.title),
        prompt: vscode.l10n.t('The label\'s key, such as tp, dataset or region'),
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() === '' ? vscode.l10n.t('Type a key') : /[=,]/.test(v) ? vscode.l10n.t('A key cannot hold = or ,') : undefined),
      });
      if (typed === undefined) continue;
      // A key typed as an alias (hardware) is the one key (gpu).
      key = Object.keys(canonicalLabels({ [typed.trim()]: '' }))[0] ?? typed.trim();
    }
    const value = await vscode.window.showInputBox({ title: `${options.title}: ${key}`, prompt: promptOf(key), value: labels[key] ?? '', ignoreFocusOut: true });
    if (value !== undefined) labels[key] = value;
  }
}
