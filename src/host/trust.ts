/**
 * Restricted Mode: commands that start servers, send requests or write files refuse at once, say
 * why, and offer the workbench's trust editor. The notification is not awaited: a script or task
 * running the command gets its answer now, not when the user closes the notification.
 */
import * as vscode from 'vscode';

/** True in a trusted workspace; otherwise shows `refusal` with a Manage Workspace Trust button and answers false. */
export function requireTrust(refusal: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  const manage = vscode.l10n.t('Manage Workspace Trust');
  void vscode.window
    .showErrorMessage(vscode.l10n.t('LLM Bench: {0} Result files can still be viewed in Restricted Mode.', refusal), manage)
    .then((answer) => answer === manage && vscode.commands.executeCommand('workbench.trust.manage'));
  return false;
}
