/**
 * The compare view's private read-only scheme: a URI that shows a result file aligned with its
 * partner run (both runs' axes), and the file system VS Code reads such a URI through. Registered
 * at activation (an editor restored on such a URI needs it before anything else runs), apart from
 * the compare view itself, which loads on first use.
 */
import * as vscode from 'vscode';
import { COMPARE_SCHEME } from './view-ids';

/** A URI showing `file` aligned with `partner`; its path stays the file's, so titles and patterns match. */
export function compareUri(file: vscode.Uri, partner: vscode.Uri): vscode.Uri {
  const query = new URLSearchParams({ of: file.toString(), with: partner.toString() }).toString();
  return file.with({ scheme: COMPARE_SCHEME, query });
}

/** The real file and partner behind a compare URI; undefined for any other URI. */
export function compareTarget(uri: vscode.Uri): { file: vscode.Uri; partner: vscode.Uri } | undefined {
  if (uri.scheme !== COMPARE_SCHEME) return undefined;
  const query = new URLSearchParams(uri.query);
  const of = query.get('of');
  const partner = query.get('with');
  if (!of || !partner) return undefined;
  return { file: vscode.Uri.parse(of, true), partner: vscode.Uri.parse(partner, true) };
}

function realUri(uri: vscode.Uri): vscode.Uri {
  const target = compareTarget(uri);
  if (!target) throw vscode.FileSystemError.FileNotFound(uri);
  return target.file;
}

/** Read-only view of the real files behind compare URIs (the diff editor resolves its sides through it). */
export class CompareFileSystem implements vscode.FileSystemProvider {
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;

  watch(): vscode.Disposable {
    // The editors watch the real files themselves (results-source.ts).
    return new vscode.Disposable(() => undefined);
  }
  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    return { ...(await vscode.workspace.fs.stat(realUri(uri))), permissions: vscode.FilePermission.Readonly };
  }
  readFile(uri: vscode.Uri): Thenable<Uint8Array> {
    return vscode.workspace.fs.readFile(realUri(uri));
  }
  readDirectory(): never {
    throw vscode.FileSystemError.NoPermissions('compare views show single files');
  }
  createDirectory(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  writeFile(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  delete(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  rename(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
}
