/**
 * The token cross-check's threshold (src/observe/monitor.ts): over a run of about 1,000 generated
 * tokens, a server whose counter is off by 5% makes the run warn; off by 1% it does not. The
 * 16-token minimum does not decide either case, so a tolerance raised past 5% fails the first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunConfigSchema } from '../../src/format/config';
import { parseResultDocument, type ResultDocument } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { startRunnerServer, vllmMetrics } from '../helpers/runner-server';

/** 20 requests of 50 tokens (1,000 in all) against a server whose counter reads `share` times what it generated. */
async function runWithCounterOff(share: number): Promise<ResultDocument> {
  const server = await startRunnerServer(() => ({ tokens: 50, firstTokenMs: 2, gapMs: 0 }), (counts) => vllmMetrics({ ...counts, generatedTokens: Math.round(counts.generatedTokens * share) }));
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-cross-check-'));
  try {
    const path = join(dir, 'run.llmbench.json');
    await runBenchmark(
      RunConfigSchema.parse({
        endpoint: { baseUrl: server.baseUrl, model: 'm' },
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 50 },
        profile: { kind: 'concurrency', levels: [4] },
        limits: { requests: 20, warmup: 0 },
        labels: { engine: 'loopback' },
        serverMetrics: { intervalMs: 250 },
      }),
      { resultPath: path, keepRecords: false },
    );
    const parsed = parseResultDocument(readFileSync(path, 'utf8'));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    return parsed.value;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
}

const crossCheckWarnings = (doc: ResultDocument): string[] => (doc.warnings ?? []).filter((w) => w.includes('cross-check'));

test('the cross-check over 1,000 tokens: a server 5% off warns, 1% off does not', async () => {
  const clientTokens = (doc: ResultDocument) => doc.steps.flatMap((s) => s.requests).reduce((n, r) => n + (r.outputTokens ?? 0), 0);
  const fivePercent = await runWithCounterOff(1.05);
  assert.equal(clientTokens(fivePercent), 1000);
  assert.equal(crossCheckWarnings(fivePercent).length, 1, JSON.stringify(fivePercent.warnings));
  assert.match(crossCheckWarnings(fivePercent)[0]!, /the server counted 1050 generated tokens during the run, the client received 1000 \(tolerance 21\)/);
  const onePercent = await runWithCounterOff(1.01);
  assert.equal(clientTokens(onePercent), 1000);
  assert.deepEqual(crossCheckWarnings(onePercent), []);
});
