/**
 * Tune Server Flags as one bundle of its own (dist/tune-feature.js), loaded the first time a tune
 * command, a tune file or a restored tune panel needs it: the tuner, the engine it drives, the tune
 * views and their host side stay out of the extension's bundle, which every activation loads.
 * extension.ts registers the commands, the tune editor and the tune panel's serializer at
 * activation and hands them to what this starts.
 */
import type * as vscode from 'vscode';
import { TuneController } from './tune';
import { TuneEditorProvider } from './tune-editor';

export function startTuneFeature(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): { controller: TuneController; editor: TuneEditorProvider } {
  return { controller: new TuneController(context, log), editor: new TuneEditorProvider(context.extensionUri, log) };
}
