// The views as a user sees them, for review and for the README: a concurrency sweep on the
// simulator, then the result editor, the live panel's final state and the report of the run's
// folder, each at 1000x700 and 1280x800, in a dark, a light and a high-contrast theme. At each size
// nothing may be cut off: no card or table box reaches past the view's width, the page itself does
// not scroll sideways, and the result table's default columns fit without scrolling. Screenshots
// land in .test-artifacts/gallery-<view>-<theme>-<width>.png; docs/images/ keeps the dark 1280 px ones.
import type { Frame } from 'playwright-core';
import { explorerContextCommand, findWebview, scenario, waitForText } from './harness';
import { shootAtEachSize, THEMES } from './harness/layout';
import { LIVE_TITLE, liveTab, startSimulatorRun } from './harness/live-run';


/** The result table's default columns fit the view without scrolling (issue 15: req/s ... failures at 1000 px). */
async function resultTableFits(view: Frame): Promise<boolean> {
  return view.locator('.step-table-block .table-scroll').evaluate((box: HTMLElement) => box.scrollWidth <= box.clientWidth + 1);
}

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `gallery in the ${theme} theme: the result editor and the live panel at 1000 and 1280 px`,
    async ({ page }) => {
      await startSimulatorRun(page, 'Concurrency sweep');
      const result = () => findWebview(page, { title: 'llmbench.json', text: 'concurrency@16', timeoutMs: 90_000 });
      await waitForText(await result(), 'Finished');
      await shootAtEachSize(page, result, `result-${theme}`, async (frame) => {
        if (!(await resultTableFits(frame))) throw new Error(`the result table's default columns do not fit at ${page.viewportSize()?.width} px`);
      });
      await liveTab(page).click();
      const live = () => findWebview(page, { title: LIVE_TITLE, text: 'Finished (complete)', timeoutMs: 30_000 });
      await shootAtEachSize(page, live, `live-${theme}`);
      await explorerContextCommand(page, 'benchmarks', 'Open Benchmark Report');
      const report = () => findWebview(page, { title: 'Report', text: 'Ranking', timeoutMs: 60_000 });
      await shootAtEachSize(page, report, `report-${theme}`);
    },
    {
      timeoutMs: 180_000,
      workspace: {
        settings: {
          'workbench.colorTheme': themeName,
          'llmBench.simulator.preset': 'tiny',
          'llmBench.concurrencyLevels': [1, 4, 16],
          'llmBench.requestsPerStep': 40,
          'llmBench.warmupRequests': 0,
          'llmBench.inputTokens': 128,
          'llmBench.outputTokens': 64,
        },
      },
    },
  );
}
