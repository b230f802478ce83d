// Runs on the built-in simulator watched through the live panel: what the live panel and cancel
// scenarios share.
import type { Frame, Page } from 'playwright-core';
import { answerQuickPick, findWebview, pollUntil, runCommand, type ScenarioOptions } from './index';

export const LIVE_TITLE = 'LLM Bench: Live';

export const liveTab = (page: Page) => page.locator('.tabs-container .tab', { hasText: LIVE_TITLE });

/** How far the run shown has gone, in steps: those done plus the running one's fraction. */
async function shownProgress(live: Frame): Promise<number> {
  return live.locator('#overall-progress').evaluate((bar: HTMLProgressElement) => bar.value);
}

/** Waits until the panel shows the run further than `than` steps; answers how far. */
export async function waitForProgressBeyond(live: Frame, than: number, timeoutMs: number): Promise<number> {
  return pollUntil(`the live panel to show more than ${than} steps done`, timeoutMs, async () => {
    const shown = await shownProgress(live).catch(() => 0);
    return shown > than ? shown : undefined;
  });
}

/**
 * Starts a run on the built-in simulator with a profile preset ("Concurrency sweep", "Quick check"...)
 * from the palette; `workers` answers the Workers question beside the labels ("auto", "1"...).
 */
export async function startSimulatorRun(page: Page, profile: string, workers?: string): Promise<void> {
  await runCommand(page, 'LLM Bench: Run LLM Benchmark');
  await answerQuickPick(page, 'Built-in simulator');
  await answerQuickPick(page, profile);
  if (workers !== undefined) {
    await answerQuickPick(page, 'Workers');
    await answerQuickPick(page, workers);
  }
  await answerQuickPick(page, 'Start the benchmark');
}

/** Starts the settings' concurrency sweep on the simulator; answers the live panel once it shows a step running. */
export async function startSimulatorSweep(page: Page): Promise<Frame> {
  await startSimulatorRun(page, 'Concurrency sweep');
  return findWebview(page, { title: LIVE_TITLE, text: 'Running step', timeoutMs: 60_000 });
}

/** The concurrency levels of `sweepLasting`'s sweep. */
export const SWEEP_LEVELS = [1, 2];

/** Requests per step of `sweepLasting(seconds)`: a request of 100 output tokens takes about 80 ms, so each adds 0.12 s to a step. */
export const sweepRequestsPerStep = (seconds: number): number => Math.round(seconds / 0.12);

/** A concurrency sweep (SWEEP_LEVELS) on the tiny simulator that lasts about `seconds` on an idle machine. */
export function sweepLasting(seconds: number): ScenarioOptions {
  return {
    timeoutMs: 180_000,
    workspace: {
      settings: {
        'llmBench.simulator.preset': 'tiny',
        'llmBench.concurrencyLevels': SWEEP_LEVELS,
        'llmBench.requestsPerStep': sweepRequestsPerStep(seconds),
        'llmBench.warmupRequests': 0,
        'llmBench.inputTokens': 64,
        'llmBench.outputTokens': 100,
      },
      files: { 'notes.md': 'another editor\n' },
    },
  };
}
