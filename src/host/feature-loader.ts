/**
 * Parts of the extension whose code loads on first use, from a bundle of its own (esbuild.mjs), so
 * that every activation loads only what a run needs. At activation VS Code must know each of the
 * part's commands, custom editors and panel serializers: they are registered by name here, as
 * stand-ins that load the part and hand the call to its own handler. The part registers its
 * handlers through a `Registrar` that records them instead of registering them with VS Code; a
 * handler of a name not announced, or a name announced and never handled, is an error at load.
 */
import * as vscode from 'vscode';

/** What a part registers, as VS Code's registration functions take it (vscode.commands and vscode.window fit). */
export interface Registrar {
  registerCommand(id: string, handler: (...args: any[]) => unknown): vscode.Disposable;
  registerCustomEditorProvider(viewType: string, provider: vscode.CustomReadonlyEditorProvider): vscode.Disposable;
  registerWebviewPanelSerializer(viewType: string, serializer: vscode.WebviewPanelSerializer): vscode.Disposable;
}

/** A part's names, known at activation: its commands, its custom editors (with VS Code's options for them) and its restorable panels. */
export interface FeatureNames {
  commands: readonly string[];
  customEditors: readonly { viewType: string; options: Parameters<typeof vscode.window.registerCustomEditorProvider>[2] }[];
  panels: readonly string[];
}

const nothing = new vscode.Disposable(() => undefined);

/** Records a part's handlers (in the part's own bundle), refusing a name its FeatureNames does not announce. */
export class RecordingRegistrar implements Registrar {
  readonly commands = new Map<string, (...args: any[]) => unknown>();
  readonly editors = new Map<string, vscode.CustomReadonlyEditorProvider>();
  readonly panels = new Map<string, vscode.WebviewPanelSerializer>();

  constructor(private readonly names: FeatureNames) {}

  registerCommand(id: string, handler: (...args: any[]) => unknown): vscode.Disposable {
    this.announced(this.names.commands.includes(id), `command ${id}`);
    this.commands.set(id, handler);
    return nothing;
  }

  registerCustomEditorProvider(viewType: string, provider: vscode.CustomReadonlyEditorProvider): vscode.Disposable {
    this.announced(this.names.customEditors.some((e) => e.viewType === viewType), `custom editor ${viewType}`);
    this.editors.set(viewType, provider);
    return nothing;
  }

  registerWebviewPanelSerializer(viewType: string, serializer: vscode.WebviewPanelSerializer): vscode.Disposable {
    this.announced(this.names.panels.includes(viewType), `panel ${viewType}`);
    this.panels.set(viewType, serializer);
    return nothing;
  }

  /** Every announced name has its handler. */
  checkComplete(): this {
    const missing = [
      ...this.names.commands.filter((id) => !this.commands.has(id)).map((id) => `command ${id}`),
      ...this.names.customEditors.filter((e) => !this.editors.has(e.viewType)).map((e) => `custom editor ${e.viewType}`),
      ...this.names.panels.filter((viewType) => !this.panels.has(viewType)).map((viewType) => `panel ${viewType}`),
    ];
    if (missing.length > 0) throw new Error(`LLM Bench: the part loaded on first use does not handle ${missing.join(', ')}`);
    return this;
  }

  private announced(known: boolean, what: string): void {
    if (!known) throw new Error(`LLM Bench: ${what} is registered by a part loaded on first use but not announced at activation: add it to its FeatureNames`);
  }
}

/**
 * Registers a part's names with VS Code at activation; the first use of any of them calls `load`
 * (once), which requires the part's bundle and returns its recorded handlers.
 */
export function registerOnFirstUse(context: vscode.ExtensionContext, names: FeatureNames, load: () => RecordingRegistrar): void {
  let loaded: RecordingRegistrar | undefined;
  const part = (): RecordingRegistrar => (loaded ??= load().checkComplete());
  context.subscriptions.push(
    ...names.commands.map((id) => vscode.commands.registerCommand(id, (...args: unknown[]) => part().commands.get(id)!(...args))),
    ...names.customEditors.map(({ viewType, options }) =>
      vscode.window.registerCustomEditorProvider(
        viewType,
        {
          openCustomDocument: (uri, openContext, token) => part().editors.get(viewType)!.openCustomDocument(uri, openContext, token),
          resolveCustomEditor: (document, panel, token) => part().editors.get(viewType)!.resolveCustomEditor(document, panel, token),
        },
        options,
      ),
    ),
    ...names.panels.map((viewType) =>
      vscode.window.registerWebviewPanelSerializer(viewType, {
        deserializeWebviewPanel: (panel, state: unknown) => part().panels.get(viewType)!.deserializeWebviewPanel(panel, state),
      }),
    ),
  );
}
