/**
 * What every importer shares: reading other tools' JSON (Python writes NaN and Infinity, which
 * JSON.parse rejects), turning a partial set of statistics into our Stats without inventing the
 * missing ones, naming steps the way our runs do, and the shell of an imported ResultDocument.
 */
import * as z from 'zod';
import { stepName } from '../format/step-name';
import type { Labels } from '../format/config';
import {
  SCHEMA_VERSION,
  type ParseOutcome,
  type RequestRecord,
  type ResultDocument,
  type Stats,
  type Step,
  type StepProfile,
  type StepSummary,
  type TokenSource,
} from '../format/result';
import { messageOf } from '../format/errors';

/** One input file: its name (for messages and `importedFrom.file`) and its text. */
export interface ImportInput {
  path: string;
  text: string;
}

/** What an importer answers: a document, or a message naming the tool, version and what was missing. */
export type ImportOutcome = ParseOutcome<ResultDocument>;

export const importFailure = (error: string): { ok: false; error: string } => ({ ok: false, error });

/**
 * Parses JSON written by Python's json module, whose NaN, Infinity and -Infinity are not JSON:
 * they become null (a value the tool could not compute stays missing). Strings are left alone.
 */
export function parsePythonJson(text: string): ParseOutcome<unknown> {
  // Strings are matched as runs of plain characters between escapes: `(?:\\.|[^"\\])*` recursed once
  // per character and overflowed the stack on a 50 MB string.
  const cleaned = text.replace(/"[^"\\]*(?:\\.[^"\\]*)*"|-?\bInfinity\b|\bNaN\b/g, (token) => (token.startsWith('"') ? token : 'null'));
  try {
    return { ok: true, value: JSON.parse(cleaned) };
  } catch (e) {
    return { ok: false, error: `not valid JSON (${messageOf(e)})` };
  }
}

/** A number field that may be missing, null, or a string such as "inf" (read as missing). */
export const optionalNumber = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null));

/** A count (requests, tokens) that may be missing: a number must be a whole number, at least 0. */
export const optionalCount = z
  .union([z.number().int().nonnegative(), z.string(), z.null()])
  .optional()
  .transform((v) => (typeof v === 'number' ? v : null));

/** A figure that may be missing and, when present, is above 0 (a concurrency, a burstiness). */
export const optionalPositive = z
  .union([z.number().positive(), z.string(), z.null()])
  .optional()
  .transform((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null));

export type PartialStats = Partial<Record<keyof Stats, number | null | undefined>>;

/**
 * Our Stats from what a tool stored. Null when the tool stored no mean (nothing to show);
 * every other value the tool lacks stays null. `scale` converts units (1000 for seconds to ms).
 */
export function statsFrom(values: PartialStats, scale = 1): Stats | null {
  const read = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v * scale : null);
  const mean = read(values.mean);
  if (mean === null) return null;
  const count = values.count;
  return {
    count: typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : null,
    mean,
    std: read(values.std),
    min: read(values.min),
    max: read(values.max),
    p50: read(values.p50),
    p66: read(values.p66),
    p75: read(values.p75),
    p80: read(values.p80),
    p90: read(values.p90),
    p95: read(values.p95),
    p98: read(values.p98),
    p99: read(values.p99),
  };
}

/** A Stats of a known mean and count only (a tool that stores totals, e.g. tokens per request). */
export const meanOnly = (mean: number | null, count: number | null): Stats | null => statsFrom({ mean, count });

const emptySummary = (): StepSummary => ({
  requests: { total: 0, completed: 0, failed: 0 },
  durationSec: null,
  requestsPerSecond: null,
  outputTokensPerSecond: null,
  totalTokensPerSecond: null,
  ttftMs: null,
  itlMs: null,
  tpotMs: null,
  latencyMs: null,
  queueMs: null,
  errors: {},
});

export interface ImportedHead {
  tool: string;
  version: string | null;
  path: string;
  notes: string[];
  model: string;
  baseUrl?: string;
  createdAt?: string;
  config: Record<string, unknown>;
  labels?: Labels;
}

/** An imported step, named as our runs name the same load; what the tool did not store stays empty. */
export function importedStep(profile: StepProfile, summary: Partial<StepSummary>, requests: RequestRecord[] = [], startedAt?: string, sourceName?: string): Step {
  const name = stepName(profile);
  const own = sourceName?.replace(/\*\*|`/g, '').trim();
  return {
    name,
    ...(own && own !== name ? { sourceName: own } : {}),
    profile,
    ...(startedAt ? { startedAt } : {}),
    summary: { ...emptySummary(), ...summary },
    requests,
  };
}

/** What a tool records of one request; the rest of a RequestRecord is what no tool keeps. */
export interface ImportedRequest {
  index: number;
  sentMs: number;
  firstTokenMs: number | null;
  chunkMs: number[];
  endMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** How the tool counted the tokens it has counts for; null when it does not say. */
  tokenSource: TokenSource | null;
  httpStatus?: number | null;
  error: RequestRecord['error'];
}

/** A request record from another tool: never warm-up, sent when scheduled (no client queue), no finish reason. */
export function importedRequest(r: ImportedRequest): RequestRecord {
  return {
    index: r.index,
    warmup: false,
    scheduledMs: r.sentMs,
    sentMs: r.sentMs,
    queueMs: 0,
    firstTokenMs: r.firstTokenMs,
    chunkMs: r.chunkMs,
    endMs: r.endMs,
    inputTokens: r.inputTokens,
    inputTokensSource: r.inputTokens === null ? null : r.tokenSource,
    outputTokens: r.outputTokens,
    outputTokensSource: r.outputTokens === null ? null : r.tokenSource,
    finishReason: null,
    httpStatus: r.httpStatus ?? null,
    error: r.error,
  };
}

/**
 * A run where no request of any step completed but some failed is `failed`, as our own runs are:
 * the tool's file says `complete` only because the tool finished sending.
 */
function importedStatus(steps: Step[]): Pick<ResultDocument, 'status' | 'statusReason'> {
  const completed = steps.reduce((sum, step) => sum + (step.summary?.requests.completed ?? 0), 0);
  const failed = steps.reduce((sum, step) => sum + (step.summary?.requests.failed ?? 0), 0);
  return completed === 0 && failed > 0 ? { status: 'failed', statusReason: `every request failed (${failed})` } : { status: 'complete' };
}

/** The successful import of these steps; `tool` says it was imported, `importedFrom` by what. */
export function importedResult(head: ImportedHead, steps: Step[]): ImportOutcome {
  return {
    ok: true,
    value: {
      schemaVersion: SCHEMA_VERSION,
      tool: { name: `${head.tool} (imported)`, version: head.version ?? 'unknown' },
      createdAt: head.createdAt ?? new Date(0).toISOString(),
      endpoint: { baseUrl: head.baseUrl ?? '', api: 'chat', model: head.model },
      labels: { source: head.tool, model: head.model, ...head.labels },
      config: head.config,
      ...importedStatus(steps),
      importedFrom: { tool: head.tool, version: head.version, file: head.path, notes: head.notes },
      steps,
    },
  };
}

/** Seconds since the epoch as an ISO date, or undefined for a missing or implausible value. */
export function isoFromEpochSeconds(seconds: number | null | undefined): string | undefined {
  return typeof seconds === 'number' && seconds > 0 && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : undefined;
}

/** `rate / duration`-style division that yields null instead of Infinity or NaN. */
export function ratio(numerator: number | null | undefined, denominator: number | null | undefined): number | null {
  if (typeof numerator !== 'number' || typeof denominator !== 'number' || denominator <= 0) return null;
  const value = numerator / denominator;
  return Number.isFinite(value) ? value : null;
}
