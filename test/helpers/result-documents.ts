/**
 * Valid result documents built by hand for the result and compare view tests and the render
 * benchmark: deterministic request records, summarized with the engine's own summarizeStep.
 */
import { summarizeStep } from '../../src/results/stats';
import { readFileSync } from 'node:fs';
import { parseResultDocument, SCHEMA_VERSION, type RequestRecord, type ResultDocument, type Step, type StepProfile } from '../../src/format/result';

/**
 * A table's step name without the warning mark a step with warnings carries (src/views/step-warnings.ts
 * markedName): for tests about names, whose short loopback steps may be rightly marked too short.
 */
export const withoutWarningMark = (name: string): string => name.replace(/[ \u00a0]\u26a0$/, '');

export interface StepShape {
  name: string;
  profile: StepProfile;
  requests: number;
  /** Milliseconds to the first token and between chunks; each request varies around these. */
  ttftMs: number;
  gapMs: number;
  chunks: number;
  /** Every n-th request fails (0: none). */
  failEvery?: number;
  /** Leave the summary null, as in a file cut short while this step ran. */
  partial?: boolean;
}

/**
 * A request record for the statistics tests: a successful one sent at `sentMs` with nothing
 * measured, and the fields given (chunks, tokens, an error, reasoning...).
 */
export function requestRecord(fields: Partial<RequestRecord> & Pick<RequestRecord, 'sentMs'>): RequestRecord {
  return {
    index: 0,
    warmup: false,
    scheduledMs: fields.sentMs,
    queueMs: 0,
    firstTokenMs: null,
    chunkMs: [],
    endMs: null,
    inputTokens: null,
    inputTokensSource: 'estimate',
    outputTokens: null,
    outputTokensSource: 'usage',
    finishReason: 'stop',
    httpStatus: 200,
    error: null,
    ...fields,
  };
}

/** Request i of a step: sent every 10 ms, TTFT and gaps varying by a fixed pattern. */
export function makeRequest(i: number, shape: StepShape): RequestRecord {
  const sentMs = i * 10;
  const wobble = (i % 5) - 2; // -2..2
  const failed = shape.failEvery ? i % shape.failEvery === shape.failEvery - 1 : false;
  if (failed) {
    return {
      index: i, warmup: false, scheduledMs: sentMs, sentMs, queueMs: 0, firstTokenMs: null, chunkMs: [], endMs: null,
      inputTokens: 100, inputTokensSource: 'estimate', outputTokens: null, outputTokensSource: null,
      finishReason: null, httpStatus: 500, error: { kind: 'http', message: 'HTTP 500 <b>boom</b>' },
    };
  }
  const first = sentMs + shape.ttftMs + wobble;
  const chunkMs = Array.from({ length: shape.chunks }, (_, c) => first + c * (shape.gapMs + wobble * 0.1));
  return {
    index: i, warmup: false, scheduledMs: sentMs, sentMs, queueMs: 0, firstTokenMs: first, chunkMs,
    endMs: chunkMs[chunkMs.length - 1] ?? first, inputTokens: 100, inputTokensSource: 'usage',
    outputTokens: shape.chunks, outputTokensSource: 'usage', finishReason: 'length', httpStatus: 200, error: null,
  };
}

export function makeStep(shape: StepShape): Step {
  const requests = Array.from({ length: shape.requests }, (_, i) => makeRequest(i, shape));
  return {
    name: shape.name,
    profile: shape.profile,
    startedAt: '2025-01-01T00:00:00.000Z',
    summary: shape.partial ? null : summarizeStep(requests, shape.profile),
    requests,
  };
}

export function makeDocument(shapes: StepShape[], overrides: Partial<ResultDocument> = {}): ResultDocument {
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'llm-bench', version: '0.1.0' },
    createdAt: '2025-01-01T00:00:00.000Z',
    finishedAt: '2025-01-01T00:01:00.000Z',
    endpoint: { baseUrl: 'http://127.0.0.1:8000/v1', api: 'chat', model: 'test-model' },
    labels: { engine: 'sim', gpu: 'none' },
    config: { profile: { kind: 'concurrency', levels: shapes.map((s) => s.profile.concurrency ?? 1) }, limits: { requests: 10 } },
    status: shapes.some((s) => s.partial) ? 'partial' : 'complete',
    statusReason: shapes.some((s) => s.partial) ? 'cancelled by the user' : null,
    steps: shapes.map(makeStep),
    ...overrides,
  };
}

/** A concurrency sweep 1, 4, 16 whose TTFT grows with load. */
export function concurrencySweep(requestsPerStep = 20, scale = 1): ResultDocument {
  return makeDocument(
    [1, 4, 16].map((c) => ({
      name: c === 1 ? 'synchronous' : `concurrency@${c}`,
      profile: c === 1 ? { kind: 'synchronous' as const } : { kind: 'concurrency' as const, concurrency: c },
      requests: requestsPerStep,
      ttftMs: 20 * c * scale,
      gapMs: 5 * scale,
      chunks: 16,
    })),
  );
}

/** A result file a run wrote, parsed; throws with the parser's message when it is not a valid one. */
export function readResultFile(path: string): ResultDocument {
  const parsed = parseResultDocument(readFileSync(path, 'utf8'));
  if (!parsed.ok) throw new Error(`${path}: ${parsed.error}`);
  return parsed.value;
}
