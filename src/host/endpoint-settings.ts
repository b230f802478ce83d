/**
 * The `llmBench.endpoints` setting, the URLs users type, and where their API keys are kept. No
 * `vscode` import: unit-tested in Node.
 */
import * as z from 'zod';
import { EndpointConfigSchema } from '../format/config';
import { describeZodError } from '../format/result';

/**
 * One entry of the `llmBench.endpoints` setting: a run config's endpoint with a name, the model
 * optional (picked from the server's list), and no key variable (keys live in SecretStorage).
 */
export const EndpointSettingSchema = EndpointConfigSchema.omit({ apiKeyEnv: true, model: true }).extend({
  name: z.string().min(1, 'name must not be empty'),
  model: z.string().min(1).optional(),
});
export type EndpointSetting = z.infer<typeof EndpointSettingSchema>;

/** The valid entries of the setting, and a message for each invalid one (by position and field). */
export function parseEndpointSettings(raw: unknown): { endpoints: EndpointSetting[]; problems: string[] } {
  if (raw === undefined || raw === null) return { endpoints: [], problems: [] };
  if (!Array.isArray(raw)) return { endpoints: [], problems: ['llmBench.endpoints must be a list of endpoints.'] };
  const endpoints: EndpointSetting[] = [];
  const problems: string[] = [];
  raw.forEach((entry, i) => {
    const parsed = EndpointSettingSchema.safeParse(entry);
    if (parsed.success) endpoints.push(parsed.data);
    else problems.push(`llmBench.endpoints[${i}]: ${describeZodError(parsed.error)}`);
  });
  return { endpoints, problems };
}

/** The key under which an endpoint's API key is kept: one key per base URL, however it is spelled. */
export function apiKeySecretName(baseUrl: string): string {
  return `llmBench.apiKey:${normalizeBaseUrl(baseUrl)}`;
}

export function normalizeBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl.trim());
  url.hash = '';
  url.search = '';
  return url.toString().replace(/\/+$/, '');
}

/** Checks a URL typed by the user; returns a message to show, or undefined when it is fine. */
export function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return 'Type a full URL, like http://127.0.0.1:8000/v1';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The URL must start with http:// or https://';
  return undefined;
}
