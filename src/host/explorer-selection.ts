/**
 * The files an explorer command acts on: VS Code passes the clicked item and the whole selection;
 * from the palette there is neither, and the user picks files or folders in a dialog.
 */
import * as vscode from 'vscode';

export async function selectedOrChosen(uri: unknown, uris: unknown, dialog: { openLabel: string; title: string }): Promise<vscode.Uri[] | undefined> {
  if (Array.isArray(uris) && uris.length > 0 && uris.every((u) => u instanceof vscode.Uri)) return uris as vscode.Uri[];
  if (uri instanceof vscode.Uri) return [uri];
  return vscode.window.showOpenDialog({ canSelectFiles: true, canSelectFolders: true, canSelectMany: true, ...dialog });
}
