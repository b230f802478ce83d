/**
 * The endpoint probe (src/observe/probe-core.ts) through the extension host's fetch, which VS Code
 * routes through the user's proxy settings, and which keeps undici out of the extension's bundle.
 * No `vscode` import: tested in Node against a real loopback server.
 */
import { probeEndpointWith, PROBE_BODY_LIMIT, type EndpointProbe, type OpenProbeTransport, type ProbeOptions } from '../observe/probe-core';

const fetchTransport: OpenProbeTransport = () => {
  const done = new AbortController();
  return {
    async get(url, headers, signal) {
      const response = await fetch(url, { headers, signal: AbortSignal.any([signal, done.signal]) });
      const reader = response.body?.getReader();
      const parts: Uint8Array[] = [];
      for (let size = 0; reader && size < PROBE_BODY_LIMIT; ) {
        const { done: ended, value } = await reader.read();
        if (ended) break;
        parts.push(value);
        size += value.length;
      }
      await reader?.cancel().catch(() => undefined);
      return { status: response.status, server: response.headers.get('server'), text: Buffer.concat(parts).toString('utf8') };
    },
    // Requests the deadline cut short may still be open: end them.
    close: async () => done.abort(),
  };
};

/** Lists the endpoint's models and names its engine; never throws (see probeEndpointWith). */
export function probeEndpointByFetch(baseUrl: string, options: ProbeOptions = {}): Promise<EndpointProbe> {
  return probeEndpointWith(fetchTransport, baseUrl, options);
}
