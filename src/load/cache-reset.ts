/**
 * Emptying the server's prefix cache before a step (`cache.resetBeforeStep`, `--reset-cache`), so
 * that a step does not profit from the prompts of the steps and runs before it. Engines that offer
 * it, at their server root, as an empty POST:
 * - vLLM: `POST /reset_prefix_cache` (mounted only with `VLLM_SERVER_DEV_MODE=1`);
 * - SGLang: `POST /flush_cache` (its radix cache).
 * The first that answers 2xx did it. A server that offers neither is asked once per run; the steps
 * after record that it has none.
 */
import { Agent, request } from 'undici';
import type { RunConfig } from '../format/config';
import type { CacheReset } from '../format/result';
import { errorCode, messageOf } from '../format/errors';
import { serverRoute, withApiKey } from '../observe/probe-core';

/** The cache resets tried, in order. */
export const CACHE_RESET_ROUTES = ['/reset_prefix_cache', '/flush_cache'] as const;

/** A reset that takes longer is given up: the step starts anyway, and its record says so. */
const RESET_TIMEOUT_MS = 10_000;

/** What the routes answered, in words for the record: `/reset_prefix_cache answered 404`. */
type Tried = string[];

export class CacheResetter {
  /** Set once no route worked: the server has none, and the later steps are not delayed asking again. */
  private unavailable: Tried | null = null;

  constructor(
    private readonly config: RunConfig,
    private readonly apiKey: string | undefined,
  ) {}

  /**
   * Empties the server's prefix cache now: the outcome for the step's record, never thrown, and
   * whether this was the first time it found none (for the run to say once).
   */
  async reset(): Promise<{ outcome: CacheReset; foundNone: boolean }> {
    if (this.unavailable !== null) return { outcome: noReset(this.unavailable), foundNone: false };
    const tried: Tried = [];
    const agent = new Agent({ connections: 1, connectTimeout: RESET_TIMEOUT_MS });
    try {
      for (const route of CACHE_RESET_ROUTES) {
        const url = serverRoute(this.config.endpoint.baseUrl, route);
        try {
          const answer = await request(url, {
            method: 'POST',
            headers: withApiKey(this.config.endpoint.headers, this.apiKey),
            dispatcher: agent,
            headersTimeout: RESET_TIMEOUT_MS,
            bodyTimeout: RESET_TIMEOUT_MS,
          });
          await answer.body.dump();
          if (answer.statusCode >= 200 && answer.statusCode < 300) return { outcome: { done: true, how: `POST ${route} answered ${answer.statusCode}` }, foundNone: false };
          tried.push(`${route} answered ${answer.statusCode}`);
        } catch (error) {
          tried.push(`${route}: ${errorCode(error) ?? messageOf(error)}`);
        }
      }
    } finally {
      await agent.close().catch(() => undefined);
    }
    this.unavailable = tried;
    return { outcome: noReset(tried), foundNone: true };
  }
}

const noReset = (tried: Tried): CacheReset => ({ done: false, how: `the server offers no prefix-cache reset (${tried.join('; ')})` });
