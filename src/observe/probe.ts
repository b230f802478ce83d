/**
 * The endpoint probe (probe-core.ts) as the engine runs it, with undici: an Agent of the probe's
 * own, bounded by its deadline. It fills a run's `engine` label; no measurement depends on it.
 */
import { Agent, request } from 'undici';
import type { Labels, RunConfig } from '../format/config';
import { probeEndpointWith, PROBE_BODY_LIMIT, type EndpointProbe, type OpenProbeTransport, type ProbeOptions } from './probe-core';

export { DEFAULT_PROBE_TIMEOUT_MS, type EndpointProbe, type EngineIdentity, type ProbeOptions } from './probe-core';

const undiciTransport: OpenProbeTransport = (timeoutMs) => {
  const agent = new Agent({ connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  return {
    async get(url, headers, signal) {
      const response = await request(url, { method: 'GET', headers, dispatcher: agent, signal });
      const parts: Buffer[] = [];
      let size = 0;
      for await (const part of response.body) {
        const chunk = part as Buffer;
        parts.push(chunk);
        size += chunk.length;
        if (size >= PROBE_BODY_LIMIT) break;
      }
      const server = response.headers.server;
      return { status: response.statusCode, server: typeof server === 'string' ? server : null, text: Buffer.concat(parts).toString('utf8') };
    },
    // Requests the deadline cut short are still open: end them without waiting.
    close: () => agent.destroy().catch(() => undefined),
  };
};

/** Lists the endpoint's models and names its engine (see probeEndpointWith); never throws. */
export function probeEndpoint(baseUrl: string, options: ProbeOptions = {}): Promise<EndpointProbe> {
  return probeEndpointWith(undiciTransport, baseUrl, options);
}

/**
 * The labels a run gets from its endpoint: `engine`, and `engineVersion` when the server tells
 * it, with a log line saying how they were found. Null, without a request, when the run's labels
 * already name the engine.
 */
export async function probeEngineLabels(
  config: RunConfig,
  options: { apiKey?: string | undefined; signal?: AbortSignal | undefined },
): Promise<{ labels: Labels; message: string } | null> {
  if (config.labels.engine !== undefined) return null;
  const { engine, error } = await probeEndpoint(config.endpoint.baseUrl, { headers: config.endpoint.headers, apiKey: options.apiKey, signal: options.signal });
  if (engine === null) {
    return {
      labels: {},
      message: `The engine behind ${config.endpoint.baseUrl} was not recognised${error ? ` (${error})` : ''}; label it yourself (engine=NAME) to compare this run with others.`,
    };
  }
  const labels: Labels = { engine: engine.name };
  if (engine.version !== null) labels.engineVersion = engine.version;
  return { labels, message: `Engine: ${engine.name}${engine.version !== null ? ` ${engine.version}` : ''}, recognised from ${engine.evidence}.` };
}
