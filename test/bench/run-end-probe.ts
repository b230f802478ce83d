// Loaded by VS Code's extension host as the "tests" of test/bench/run-end.ts: runs a 10,000-request
// benchmark through the installed extension's `llmBench.run` (the built-in tiny simulator, live
// panel open) while a 1 ms timer on this same thread, the extension host's, notes every stall;
// writes the longest stall of the run's last second and the time from the last progress to the
// command's answer into $LLMBENCH_RUN_END_RESULTS.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';

const REQUESTS = 10_000;
const ROUNDS = 3;
/** The end of a run: its last second before `llmBench.run` answers. */
const END_WINDOW_MS = 1000;

export interface Round {
  requests: number;
  runMs: number;
  /** Longest gap past 1 ms between two timer turns in the last second before the answer. */
  endStallMs: number;
  /** The same over the whole run. */
  runStallMs: number;
  status: string;
}

async function measureOnce(): Promise<Round> {
  const stalls: Array<{ at: number; ms: number }> = [];
  let tick = performance.now();
  const sampler = setInterval(() => {
    const now = performance.now();
    stalls.push({ at: now, ms: now - tick - 1 });
    tick = now;
  }, 1);
  const started = performance.now();
  try {
    const outcome = await vscode.commands.executeCommand<{ status: string } | undefined>('llmBench.run', {
      config: { workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 4 }, profile: { kind: 'concurrency', levels: [64] }, limits: { requests: REQUESTS } },
      simulator: { preset: 'tiny' },
      openResult: false,
    });
    const answered = performance.now();
    // One more timer turn, so a stall that ended with the answer is counted.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const longest = (from: number) => Math.max(0, ...stalls.filter((s) => s.at >= from).map((s) => s.ms));
    return { requests: REQUESTS, runMs: answered - started, endStallMs: longest(answered - END_WINDOW_MS), runStallMs: longest(started), status: outcome?.status ?? 'no answer' };
  } finally {
    clearInterval(sampler);
  }
}

export async function run(): Promise<void> {
  const out = process.env['LLMBENCH_RUN_END_RESULTS'];
  if (!out) throw new Error('LLMBENCH_RUN_END_RESULTS is not set: start this with test/bench/run-end.ts');
  await vscode.extensions.getExtension('llm-bench.llm-bench')?.activate();
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await measureOnce());
  writeFileSync(out, JSON.stringify(rounds));
}
