/**
 * Restoring webview panels after VS Code reloads. A panel's webview keeps its state (setState) and
 * VS Code hands it back to the serializer of the panel's view type, which needs an
 * `onWebviewPanel:<viewType>` activation event in package.json. That state was written by a
 * webview, so it is parsed, never trusted.
 */
import * as vscode from 'vscode';
import type { z } from 'zod';
import type { Registrar } from './feature-loader';

/**
 * `restore` gets the panel VS Code recreated and its saved state, or undefined when the state is
 * missing or does not fit. Registered with VS Code, or with a part loaded on first use's registrar.
 */
export function registerPanelRestorer<State>(
  viewType: string,
  stateSchema: z.ZodType<State>,
  restore: (panel: vscode.WebviewPanel, state: State | undefined) => void,
  registrar: Pick<Registrar, 'registerWebviewPanelSerializer'> = vscode.window,
): vscode.Disposable {
  return registrar.registerWebviewPanelSerializer(viewType, {
    deserializeWebviewPanel: async (panel, saved: unknown) => {
      const parsed = stateSchema.safeParse(saved);
      restore(panel, parsed.success ? parsed.data : undefined);
    },
  });
}
