// Running from the palette in the browser: the flow's questions, the live panel growing its charts
// and table as the run goes, then the result editor. Screenshots of the live panel in a dark and a
// light theme land in .test-artifacts/ for review. A config file also runs from its explorer context menu.
import type { Frame, Page } from 'playwright-core';
import { answerQuickPick, explorerContextCommand, findWebview, pollUntil, runCommand, saveScreenshot, scenario, waitForFinishedResult, waitForText } from './harness';
import { startSimulatorRun } from './harness/live-run';

async function waitForRows(live: Frame, count: number, timeoutMs: number): Promise<void> {
  await pollUntil(`${count} rows in the live table`, timeoutMs, async () => ((await live.locator('#steps-table tbody tr').count()) >= count ? true : undefined));
}

/** Every live chart drew on a canvas (a card that cannot says so in text instead). */
async function assertChartsDrawn(live: Frame): Promise<void> {
  for (const id of ['throughput', 'load', 'ttft', 'tpot', 'latency']) await live.locator(`[data-chart="${id}"] canvas`).waitFor({ state: 'visible' });
  const undrawn = await live.locator('.chart-card p.muted').count();
  if (undrawn > 0) throw new Error(`${undrawn} live chart(s) could not be drawn`);
  const blank = await live.locator('[data-chart="throughput"] canvas').evaluate((canvas: HTMLCanvasElement) => {
    const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
    return !data || data.every((v, i) => i % 4 !== 3 || v === 0);
  });
  if (blank) throw new Error('the throughput chart canvas is blank');
}

/**
 * The result editor opens over the live panel when the run ends; bringing the panel back shows the
 * run's final state (a hidden webview is sent the latest state when it is shown again).
 */
async function finishAndReturnToLivePanel(page: Page): Promise<Frame> {
  await findWebview(page, { title: 'llmbench.json', text: 'Benchmark', timeoutMs: 90_000 });
  await page.locator('.tabs-container .tab', { hasText: 'LLM Bench: Live' }).click();
  const live = await findWebview(page, { title: 'LLM Bench: Live', text: 'Finished (complete)', timeoutMs: 30_000 });
  await assertChartsDrawn(live);
  return live;
}

scenario(
  'run from the palette against the simulator: the live panel grows, then the result opens',
  async ({ page }) => {
    // The Run command offers the workers beside the labels, auto by default.
    await startSimulatorRun(page, 'Concurrency sweep', '1');
    const live = await findWebview(page, { title: 'LLM Bench: Live', text: 'concurrency', timeoutMs: 60_000 });
    await waitForText(live, 'sim-tiny');
    await waitForRows(live, 2, 60_000);
    await assertChartsDrawn(live);
    await saveScreenshot(page, 'e2e-live-running-dark');
    const done = await finishAndReturnToLivePanel(page);
    await waitForRows(done, 3, 1_000);
    // Checked once the run is over, so that the checks of the running panel keep its short run.
    await waitForText(done, 'Workers: 1 (asked for 1)');
    await saveScreenshot(page, 'e2e-live-done-dark');
  },
  {
    timeoutMs: 180_000,
    workspace: {
      settings: {
        'llmBench.simulator.preset': 'tiny',
        // About 12 s in all on the tiny engine: long enough to watch the panel grow.
        'llmBench.concurrencyLevels': [2, 8, 32],
        'llmBench.requestsPerStep': 120,
        'llmBench.outputTokens': 128,
        'llmBench.inputTokens': 128,
      },
    },
  },
);

scenario(
  'run a workspace config file against the simulator, in a light theme',
  async ({ page }) => {
    await runCommand(page, 'LLM Bench: Run LLM Benchmark');
    await answerQuickPick(page, 'Built-in simulator');
    await answerQuickPick(page, 'From a config file…');
    await answerQuickPick(page, 'bench/rate-sweep.json');
    // The setting asks for 2 workers (more than this 2-core machine's cores less one, so the
    // choices go up to it); the Workers question keeps it.
    await answerQuickPick(page, 'Workers');
    await answerQuickPick(page, '2');
    await answerQuickPick(page, 'Start the benchmark');
    const live = await findWebview(page, { title: 'LLM Bench: Live', text: 'rate', timeoutMs: 60_000 });
    // Both workers, each with its requests in flight and send lateness while a step runs.
    await waitForText(live, 'Workers: 2 (asked for 2');
    await pollUntil('each worker on the live panel', 60_000, async () => {
      const text = (await live.locator('#workers').textContent()) ?? '';
      return text.includes('#0:') && text.includes('#1:') ? true : undefined;
    });
    await waitForRows(live, 2, 60_000);
    await assertChartsDrawn(live);
    await live.locator('#step-progress').waitFor({ state: 'visible' });
    await saveScreenshot(page, 'e2e-live-running-light');
    await finishAndReturnToLivePanel(page);
  },
  {
    timeoutMs: 180_000,
    workspace: {
      settings: { 'workbench.colorTheme': 'Default Light Modern', 'llmBench.simulator.preset': 'tiny', 'llmBench.workers': 2 },
      files: {
        'bench/rate-sweep.json': JSON.stringify({
          profile: { kind: 'rate', rates: [5, 10, 20], arrival: 'poisson' },
          limits: { requests: 60, warmup: 2 },
          workload: { kind: 'synthetic', inputTokens: 128, outputTokens: 48 },
          labels: { purpose: 'e2e' },
        }),
      },
    },
  },
);

scenario(
  'run a config file from its context menu in the explorer',
  async ({ page, workspace }) => {
    await explorerContextCommand(page, 'two-levels.json', 'Run LLM Benchmark from This Config');
    // The file names no endpoint: that is the one question asked.
    await answerQuickPick(page, 'Built-in simulator');
    // The run takes under a second, so its result editor may cover the live panel before a check of
    // that panel could see it; the other run scenarios watch the panel.
    const { document } = await waitForFinishedResult(workspace);
    if (document.status !== 'complete') throw new Error(`the run ended ${document.status}: ${document.statusReason}`);
    const steps = document.steps.map((step) => step.name);
    if (JSON.stringify(steps) !== JSON.stringify(['concurrency@1', 'concurrency@3'])) throw new Error(`the run's steps are ${steps.join(', ')}`);
    if (document.labels['purpose'] !== 'context-menu') throw new Error(`the file's labels did not reach the result: ${JSON.stringify(document.labels)}`);
    await findWebview(page, { title: 'llmbench.json', text: 'concurrency@3', timeoutMs: 30_000 });
  },
  {
    workspace: {
      settings: { 'llmBench.simulator.preset': 'tiny' },
      files: {
        'two-levels.json': JSON.stringify({
          profile: { kind: 'concurrency', levels: [1, 3] },
          limits: { requests: 12, warmup: 1 },
          workload: { kind: 'synthetic', inputTokens: 64, outputTokens: 16 },
          labels: { purpose: 'context-menu' },
        }),
      },
    },
  },
);
