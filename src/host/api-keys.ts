/**
 * API keys, one per endpoint base URL, in VS Code's SecretStorage. A key leaves this module only
 * as `RunOptions.apiKey` for the engine (and the Authorization header of the model list request):
 * never into settings, logs, result files or a webview.
 */
import * as vscode from 'vscode';
import { apiKeySecretName, baseUrlProblem, normalizeBaseUrl } from './run-presets';
import { pickEndpointUrl } from './run-prompts';

export class ApiKeys {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async get(baseUrl: string): Promise<string | undefined> {
    return (await this.secrets.get(apiKeySecretName(baseUrl))) || undefined;
  }

  /** The "Set API Key" command: pick or type an endpoint, then type its key (hidden). */
  async promptAndStore(baseUrlArg?: string): Promise<void> {
    const baseUrl = baseUrlArg ?? (await pickEndpointUrl('Set the API key of which endpoint?'));
    if (!baseUrl) return;
    const problem = baseUrlProblem(baseUrl);
    if (problem) {
      void vscode.window.showErrorMessage(`LLM Bench: ${problem}`);
      return;
    }
    const key = await vscode.window.showInputBox({
      title: `API key for ${normalizeBaseUrl(baseUrl)}`,
      prompt: 'Sent as "Authorization: Bearer <key>". Kept in VS Code\'s secret storage, never in settings or result files.',
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? 'Type the key, or press Escape to keep the current one.' : undefined),
    });
    if (key === undefined) return;
    await this.secrets.store(apiKeySecretName(baseUrl), key.trim());
    this.log.info(`Stored an API key for ${normalizeBaseUrl(baseUrl)}.`);
    void vscode.window.showInformationMessage(`LLM Bench: API key stored for ${normalizeBaseUrl(baseUrl)}.`);
  }

  async promptAndClear(): Promise<void> {
    const baseUrl = await pickEndpointUrl('Remove the API key of which endpoint?');
    if (!baseUrl || baseUrlProblem(baseUrl)) return;
    await this.secrets.delete(apiKeySecretName(baseUrl));
    this.log.info(`Removed the API key of ${normalizeBaseUrl(baseUrl)}.`);
    void vscode.window.showInformationMessage(`LLM Bench: API key removed for ${normalizeBaseUrl(baseUrl)}.`);
  }
}
