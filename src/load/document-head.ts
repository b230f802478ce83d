/**
 * The fixed part of a result file (what ran against what, secrets left out), for a run's file and
 * for a shard's own file (shards.ts).
 */
import { redactHeaders, redactUrl, shownEndpoint, type Labels, type RunConfig } from '../format/config';
import { SCHEMA_VERSION, type ShardsInfo, type WorkersInfo } from '../format/result';
// Named imports: a bundle then holds these two fields, not the whole manifest with its devDependencies.
import { name as toolName, version as toolVersion } from '../../package.json';
import { onThisHost } from '../processes/alive';
import type { RunMonitor } from '../observe/monitor';

/** The result document's fixed part: what ran against what, with secrets left out. */
export function documentHead(config: RunConfig, labels: Labels, monitor: Partial<Pick<RunMonitor, 'serverMetrics' | 'hardware'>>, workers: WorkersInfo, shards?: ShardsInfo) {
  const { endpoint, serverMetrics } = config;
  const scrapedUrl = serverMetrics.url === undefined || serverMetrics.url === 'off' ? {} : { url: redactUrl(serverMetrics.url) };
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: toolName, version: toolVersion },
    createdAt: new Date().toISOString(),
    endpoint: { baseUrl: redactUrl(endpoint.baseUrl), api: endpoint.api, model: endpoint.model },
    ...(config.endpoints !== undefined
      ? {
          endpoints: config.endpoints.map((e) => ({ baseUrl: redactUrl(e.baseUrl), api: e.api, model: e.model })),
          endpointStrategy: config.endpointStrategy ?? 'round-robin',
        }
      : {}),
    labels,
    config: {
      ...config,
      endpoint: { ...endpoint, baseUrl: redactUrl(endpoint.baseUrl), headers: redactHeaders(endpoint.headers) },
      ...(config.endpoints !== undefined ? { endpoints: config.endpoints.map(shownEndpoint) } : {}),
      serverMetrics: { ...serverMetrics, ...scrapedUrl },
    },
    // Readers take a `running` file whose writer is gone for an interrupted run (src/results/read-result.ts).
    writer: onThisHost(),
    ...(monitor.serverMetrics ? { serverMetrics: monitor.serverMetrics } : {}),
    ...(monitor.hardware ? { hardware: monitor.hardware } : {}),
    workers,
    ...(shards ? { shards } : {}),
  } as const;
}

/** The head of a shard's own file (shards.ts): the run's, without what only the coordinator watches. */
export function shardDocumentHead(config: RunConfig, shards: ShardsInfo) {
  return documentHead(config, config.labels, {}, { count: 1, reason: `shard ${shards.shard ?? 0} of ${shards.count}, sending its part from one thread` }, shards);
}

