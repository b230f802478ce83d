/**
 * The documented token estimate (docs/metrics.md), used when neither the server's `usage` nor a
 * local tokenizer gives a count. The simulator counts with the same function, so against it the
 * estimate is exact; against real servers it is within the usual ~4 characters per token of
 * English text, and the record says `estimate` so nobody mistakes it for a measurement.
 */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.round(text.length / CHARS_PER_TOKEN));
}
