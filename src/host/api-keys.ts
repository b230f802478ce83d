/**
 * API keys, one per endpoint base URL, in VS Code's SecretStorage. A key leaves this module only
 * as `RunOptions.apiKey` for the engine (and the Authorization header of the model list request):
 * never into settings, logs, result files or a webview.
 */
import * as vscode from 'vscode';
import * as z from 'zod';
import { describeZodError } from '../format/result';
import { apiKeySecretName, normalizeBaseUrl } from './endpoint-settings';
import { pickEndpointUrl, urlProblem } from './run-prompts';

/**
 * What `llmBench.setApiKey` and `llmBench.clearApiKey` accept from other extensions, tasks and
 * tests: a base URL (the key is then asked for), or `{ baseUrl, key }` to store a key without any
 * question (`key` is ignored by clearApiKey). Nothing, when run from the palette: both ask.
 */
const ApiKeyArgumentSchema = z.union([
  z.string().min(1),
  z.object({ baseUrl: z.string().min(1), key: z.string().trim().min(1, 'key must not be empty').optional() }).strict(),
]);

type ApiKeyArgument = { baseUrl: string; key?: string | undefined } | undefined;

function parseApiKeyArgument(command: string, arg: unknown): { ok: true; value: ApiKeyArgument } | { ok: false; error: string } {
  if (arg === undefined) return { ok: true, value: undefined };
  const parsed = ApiKeyArgumentSchema.safeParse(arg);
  if (!parsed.success) return { ok: false, error: `${command} takes a base URL or { baseUrl, key }: ${describeZodError(parsed.error)}` };
  return { ok: true, value: typeof parsed.data === 'string' ? { baseUrl: parsed.data } : parsed.data };
}

export class ApiKeys {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async get(baseUrl: string): Promise<string | undefined> {
    return (await this.secrets.get(apiKeySecretName(baseUrl))) || undefined;
  }

  /**
   * The "Set API Key" command: pick or type an endpoint, then type its key (hidden). The command
   * argument (see ApiKeyArgumentSchema) may name the endpoint, or give both endpoint and key.
   */
  async promptAndStore(arg?: unknown): Promise<void> {
    const parsed = this.parseArgument('llmBench.setApiKey', arg);
    if (!parsed.ok) return;
    const baseUrl = parsed.value?.baseUrl ?? (await pickEndpointUrl(vscode.l10n.t('Set the API key of which endpoint?')));
    if (!baseUrl) return;
    const problem = urlProblem(baseUrl);
    if (problem) {
      void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: {0}', problem));
      return;
    }
    const key = parsed.value?.key ?? (await vscode.window.showInputBox({
      title: vscode.l10n.t('API key for {0}', normalizeBaseUrl(baseUrl)),
      prompt: vscode.l10n.t('Sent as "Authorization: Bearer <key>". Kept in VS Code\'s secret storage, never in settings or result files.'),
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? vscode.l10n.t('Type the key, or press Escape to keep the current one.') : undefined),
    }));
    if (key === undefined) return;
    await this.secrets.store(apiKeySecretName(baseUrl), key.trim());
    this.log.info(`Stored an API key for ${normalizeBaseUrl(baseUrl)}.`);
    void vscode.window.showInformationMessage(vscode.l10n.t('LLM Bench: API key stored for {0}.', normalizeBaseUrl(baseUrl)));
  }

  /** The "Clear API Key" command: pick or type an endpoint, unless the argument names it. */
  async promptAndClear(arg?: unknown): Promise<void> {
    const parsed = this.parseArgument('llmBench.clearApiKey', arg);
    if (!parsed.ok) return;
    const baseUrl = parsed.value?.baseUrl ?? (await pickEndpointUrl(vscode.l10n.t('Remove the API key of which endpoint?')));
    if (!baseUrl || urlProblem(baseUrl)) return;
    await this.secrets.delete(apiKeySecretName(baseUrl));
    this.log.info(`Removed the API key of ${normalizeBaseUrl(baseUrl)}.`);
    void vscode.window.showInformationMessage(vscode.l10n.t('LLM Bench: API key removed for {0}.', normalizeBaseUrl(baseUrl)));
  }

  private parseArgument(command: string, arg: unknown): ReturnType<typeof parseApiKeyArgument> {
    const parsed = parseApiKeyArgument(command, arg);
    if (!parsed.ok) {
      this.log.error(parsed.error);
      void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: {0}', parsed.error));
    }
    return parsed;
  }
}
