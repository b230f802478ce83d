/** Commands and panels that fail say why in one error notification, and answer undefined. */
import * as vscode from 'vscode';
import { messageOf } from '../format/errors';

export async function reportingErrors<T>(action: () => Promise<T>): Promise<T | undefined> {
  try {
    return await action();
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: {0}', messageOf(e)));
    return undefined;
  }
}
