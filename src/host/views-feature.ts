/**
 * The result editor, compare, the report and the imports as one bundle of their own
 * (dist/views-feature.js), loaded the first time one of their commands, editors or panels is used:
 * their view models (the server-metrics figures and charts, the compare table, the report), the
 * importers of other tools' files and their host side stay out of the extension's bundle, which
 * every activation loads. extension.ts registers their names at activation (view-ids.ts).
 */
import type * as vscode from 'vscode';
import { RecordingRegistrar } from './feature-loader';
import { registerImportCommands } from './import';
import { registerReportViews } from './report';
import { registerResultViews } from './results';
import { VIEWS_FEATURE } from './view-ids';

export function startViewsFeature(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): RecordingRegistrar {
  const registrar = new RecordingRegistrar(VIEWS_FEATURE);
  registerResultViews(context, log, registrar);
  registerReportViews(context, log, registrar);
  registerImportCommands(context, registrar);
  return registrar;
}
