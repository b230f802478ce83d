/**
 * The upper bounds of run configurations, apart from the schemas that use them so that every
 * schema of src/format/ (the run config, a trace source) can import them without importing each other.
 */

/**
 * Upper bounds on sizes and times. Beyond them a value is a typo or a unit mistake, and used as
 * given it would overflow a timer or an array rather than run: they are refused up front.
 */
export const LIMITS = {
  /** Node.js runs a timer longer than 2^31 - 1 ms after 1 ms. */
  timerMs: 2 ** 31 - 1,
  /** The longest step, in whole seconds within one timer. */
  durationSec: Math.floor((2 ** 31 - 1) / 1000),
  /** Tokens of one prompt or reply: above the longest context windows served today. */
  tokens: 10_000_000,
  /** Requests in flight: each is a connection and a file descriptor. */
  concurrency: 100_000,
  /** Requests per step, warm-up included: each send time and record is held in memory. */
  requests: 10_000_000,
  /** Requests per second of an open-loop step. */
  rate: 1_000_000,
  /** Steps of one run (concurrency levels, rates). */
  steps: 1000,
  /** Distinct shared prefixes: each is a prompt built and held in memory. */
  prefixes: 10_000,
  /** Turns of one session: its whole history is resent with each. */
  turns: 1000,
  /** Worker threads of one run: each is a thread with its own event loop and connections. */
  workers: 256,
  /** Inputs of one embeddings request (OpenAI allows 2,048). */
  embeddingBatch: 2048,
  /** Replicas one run spreads its load over (`endpoints`): each is a connection pool and a scraper. */
  endpoints: 64,
} as const;
