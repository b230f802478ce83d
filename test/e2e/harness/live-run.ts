// Runs on the built-in simulator watched through the live panel: what the live panel and cancel
// scenarios share.
import type { Frame, Page } from 'playwright-core';
import { answerQuickPick, findWebview, pollUntil, runCommand, type ScenarioOptions } from './index';

export const LIVE_TITLE = 'LLM Bench: Live';

/** What a run from the palette reads in the display language: the words the scenario looks for. */
export interface RunWords {
  /** The palette's command. */
  command: string;
  /** The endpoint question's item for the simulator. */
  simulator: string;
  /** The profile question's item for the settings' concurrency sweep. */
  concurrencySweep: string;
  /** The plan's last item. */
  start: string;
  /** The live panel's tab title. */
  liveTitle: string;
  /** The live panel's headline while a step runs. */
  stepRunning: string | RegExp;
}

export const ENGLISH_RUN_WORDS: RunWords = {
  command: 'LLM Bench: Run LLM Benchmark',
  simulator: 'Built-in simulator',
  concurrencySweep: 'Concurrency sweep',
  start: 'Start the benchmark',
  liveTitle: LIVE_TITLE,
  stepRunning: 'Running step',
};

/** The live panel's tab (`title`: its title in the display language). */
export const liveTab = (page: Page, title = LIVE_TITLE) => page.locator('.tabs-container .tab', { hasText: title });

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
export async function startSimulatorRun(page: Page, profile: string, workers?: string, words: RunWords = ENGLISH_RUN_WORDS): Promise<void> {
  await runCommand(page, words.command);
  await answerQuickPick(page, words.simulator);
  await answerQuickPick(page, profile);
  if (workers !== undefined) {
    await answerQuickPick(page, 'Workers');
    await answerQuickPick(page, workers);
  }
  await answerQuickPick(page, words.start);
}

/** Starts the settings' concurrency sweep on the simulator; answers the live panel once it shows a step running. */
export async function startSimulatorSweep(page: Page, words: RunWords = ENGLISH_RUN_WORDS): Promise<Frame> {
  await startSimulatorRun(page, words.concurrencySweep, undefined, words);
  return findWebview(page, { title: words.liveTitle, text: words.stepRunning, timeoutMs: 60_000 });
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
