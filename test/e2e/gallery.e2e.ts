// The views as a user sees them, for review and for the README: a concurrency sweep on the
// simulator, then the result editor, the live panel's final state and the report of the run's
// folder, each at 1000x700 and 1280x800, in a dark, a light and a high-contrast theme. At each size
// nothing may be cut off: no card or table box reaches past the view's width or scrolls inside
// itself unmarked, the page itself does not scroll sideways, the result table's default columns,
// the live panel's step table and the report's ranking fit without scrolling, and every text reads
// (WCAG AA) in the theme, whose colours must be those test/unit/contrast.test.ts checks. Screenshots
// land in .test-artifacts/gallery-<view>-<theme>-<width>.png; docs/images/ keeps the 1280 px ones.
import { explorerContextCommand, findWebview, scenario, waitForText } from './harness';
import { boxFits, checkThemeColors, shootAtEachSize, THEMES } from './harness/layout';
import { LIVE_TITLE, liveTab, startSimulatorRun } from './harness/live-run';



for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `gallery in the ${theme} theme: the result editor and the live panel at 1000 and 1280 px`,
    async ({ page }) => {
      await startSimulatorRun(page, 'Concurrency sweep');
      const result = () => findWebview(page, { title: 'llmbench.json', text: 'concurrency@16', timeoutMs: 90_000 });
      await waitForText(await result(), 'Finished');
      await shootAtEachSize(page, result, `result-${theme}`, async (frame) => {
        // The result table's default columns fit without scrolling (issue 15: req/s ... failures at 1000 px).
        await boxFits(frame, '.step-table-block .table-scroll', "the result table's default columns");
      });
      await liveTab(page).click();
      const live = () => findWebview(page, { title: LIVE_TITLE, text: 'Finished (complete)', timeoutMs: 30_000 });
      await checkThemeColors(await live(), themeName);
      await shootAtEachSize(page, live, `live-${theme}`, (frame) => boxFits(frame, '#steps-table .table-scroll', "the live panel's step table"));
      await explorerContextCommand(page, 'benchmarks', 'Open Benchmark Report');
      const report = () => findWebview(page, { title: 'Report', text: 'Ranking', timeoutMs: 60_000 });
      await shootAtEachSize(page, report, `report-${theme}`, (frame) => boxFits(frame, '.data-table.ranking', 'the ranking', true), '.report-legend');
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
