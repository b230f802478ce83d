/**
 * Reading result files for the views: parse (never trust), turn into a view model, and follow
 * the file as a running benchmark rewrites it.
 */
import * as vscode from 'vscode';
import { readResultText, type ReadResult } from '../results/read-result';
import { messageOf } from '../format/errors';

export type LoadedResult = { ok: true; read: ReadResult } | { ok: false; error: string };

export function fileNameOf(uri: vscode.Uri): string {
  return uri.path.split('/').pop() || uri.toString();
}

/** Reads a result file (src/results/read-result.ts); a missing or unreadable file is an error like a corrupt one. */
export async function loadResult(uri: vscode.Uri): Promise<LoadedResult> {
  let bytes: Uint8Array;
  try {
    bytes = await vscode.workspace.fs.readFile(uri);
  } catch (e) {
    return { ok: false, error: vscode.l10n.t('The file could not be read ({0}).', messageOf(e)) };
  }
  const read = readResultText(new TextDecoder().decode(bytes));
  return read.ok ? { ok: true, read: read.value } : { ok: false, error: read.error };
}

/** Fastest redraw rate while a benchmark keeps rewriting its file. */
const RELOAD_INTERVAL_MS = 1000;
/** A reload that takes long (a big file) waits this many times its own duration before the next. */
const RELOAD_BACKOFF = 3;

/**
 * Calls `onChange` when any of the files changes on disk: the first change at once, later ones
 * coalesced into one call per interval (a second, or longer when reloading is slow), so a
 * benchmark appending many requests a second does not keep the extension host busy.
 */
export function watchFiles(uris: vscode.Uri[], onChange: () => Promise<void>): vscode.Disposable {
  let nextAllowed = 0;
  let timer: NodeJS.Timeout | undefined;
  const fire = async () => {
    const started = Date.now();
    try {
      await onChange();
    } finally {
      const took = Date.now() - started;
      nextAllowed = Date.now() + Math.max(RELOAD_INTERVAL_MS - took, took * RELOAD_BACKOFF);
      timer = undefined;
    }
  };
  const changed = () => {
    if (timer) return;
    timer = setTimeout(() => void fire(), Math.max(0, nextAllowed - Date.now()));
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
