/**
 * Reading result files for the views: parse (never trust), turn into a view model, and follow
 * the file as a running benchmark rewrites it.
 */
import * as vscode from 'vscode';
import { parseResultDocument, type ResultDocument } from '../format/result';

export type LoadedResult = { ok: true; doc: ResultDocument } | { ok: false; error: string };

export function fileNameOf(uri: vscode.Uri): string {
  return uri.path.split('/').pop() || uri.toString();
}

/** Reads and parses a result file; a missing or unreadable file is an error like a corrupt one. */
export async function loadResult(uri: vscode.Uri): Promise<LoadedResult> {
  let bytes: Uint8Array;
  try {
    bytes = await vscode.workspace.fs.readFile(uri);
  } catch (e) {
    return { ok: false, error: `The file could not be read (${e instanceof Error ? e.message : String(e)}).` };
  }
  const parsed = parseResultDocument(new TextDecoder().decode(bytes));
  return parsed.ok ? { ok: true, doc: parsed.value } : { ok: false, error: parsed.error };
}

/** Fastest redraw rate while a benchmark keeps rewriting its file. */
const RELOAD_INTERVAL_MS = 1000;

/**
 * Calls `onChange` when any of the files changes on disk, at most once per RELOAD_INTERVAL_MS
 * (the first change at once, later ones coalesced into one call at the end of the interval).
 */
export function watchFiles(uris: vscode.Uri[], onChange: () => void): vscode.Disposable {
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    timer = undefined;
    last = Date.now();
    onChange();
  };
  const changed = () => {
    if (timer) return;
    const wait = last + RELOAD_INTERVAL_MS - Date.now();
    if (wait <= 0) fire();
    else timer = setTimeout(fire, wait);
  };
  const watchers = uris.map((uri) => {
    const folder = vscode.Uri.joinPath(uri, '..');
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, fileNameOf(uri)));
    watcher.onDidChange(changed);
    watcher.onDidCreate(changed);
    watcher.onDidDelete(changed);
    return watcher;
  });
  return new vscode.Disposable(() => {
    if (timer) clearTimeout(timer);
    for (const w of watchers) w.dispose();
  });
}
