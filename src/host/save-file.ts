/**
 * Saving what a webview produced (a chart PNG, a Markdown table) through the host: downloads from
 * webviews are unreliable, so views send the data and the host asks where to put it.
 */
import * as vscode from 'vscode';

const PNG_PREFIX = 'data:image/png;base64,';

/** Asks for a file name (starting from `suggested`) and writes the bytes; returns the Uri, or undefined if cancelled. */
export async function saveWithDialog(
  bytes: Uint8Array,
  suggested: vscode.Uri,
  filters: Record<string, string[]>,
): Promise<vscode.Uri | undefined> {
  const target = await vscode.window.showSaveDialog({ defaultUri: suggested, filters });
  if (!target) return undefined;
  await vscode.workspace.fs.writeFile(target, bytes);
  return target;
}

/** Decodes a `data:image/png;base64,` URL (already validated by the chart-png reply's schema). */
function pngBytesFromDataUrl(dataUrl: string): Uint8Array {
  if (!dataUrl.startsWith(PNG_PREFIX)) throw new Error('The chart image is not a PNG data URL.');
  return Buffer.from(dataUrl.slice(PNG_PREFIX.length), 'base64');
}

/** Writes a chart's PNG to `target`, or where the save dialog (starting at `suggested`) says; the Uri written, or undefined if cancelled. */
export async function savePng(dataUrl: string, suggested: vscode.Uri, target?: vscode.Uri): Promise<vscode.Uri | undefined> {
  const bytes = pngBytesFromDataUrl(dataUrl);
  if (!target) return saveWithDialog(bytes, suggested, { 'PNG image': ['png'] });
  await vscode.workspace.fs.writeFile(target, bytes);
  return target;
}
