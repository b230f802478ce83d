/** A ClientContext for tests: a real config, its own dispatcher and abort controller. */
import { performance } from 'node:perf_hooks';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { createDispatcher } from '../../src/load/client';
import { ESTIMATE_COUNTER } from '../../src/workload/tokenizer';
import type { ClientContext } from '../../src/load/types';
import type { PreparedRequest } from '../../src/workload/types';

export interface TestContext {
  context: ClientContext;
  abort: AbortController;
  /** Destroys the dispatcher (requests still hanging are dropped). */
  close(): Promise<void>;
}

export function clientContext(
  baseUrl: string,
  options: { endpoint?: Partial<RunConfigInput['endpoint']>; request?: RunConfigInput['request']; apiKey?: string; concurrency?: number } = {},
): TestContext {
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl, model: 'test-model', ...options.endpoint },
    request: { connectTimeoutMs: 2000, idleTimeoutMs: 2000, totalTimeoutMs: 5000, ...options.request },
    limits: { requests: 1 },
  });
  const abort = new AbortController();
  const dispatcher = createDispatcher(options.concurrency ?? 4, config.request);
  const context: ClientContext = {
    config,
    apiKey: options.apiKey,
    dispatcher,
    signal: abort.signal,
    stepStartMs: performance.now(),
    tokenCounter: ESTIMATE_COUNTER,
  };
  return { context, abort, close: () => dispatcher.destroy() };
}

export function preparedRequest(prompt: PreparedRequest['prompt'] = 'Tell me a story.', maxTokens = 16): PreparedRequest {
  return { prompt, maxTokens, inputTokens: { count: 5, source: 'estimate' } };
}

export const meta = (index = 0) => ({ index, warmup: false, scheduledMs: 0 });
