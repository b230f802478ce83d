// The views as a user sees them, for review and for the README: a concurrency sweep on the
// simulator, then the result editor, the live panel's final state and the report of the run's
// folder, each at 1000x700 and 1280x800, in a dark, a light and a high-contrast theme. At each size
// nothing may be cut off: no card or table box reaches past the view's width, the page itself does
// not scroll sideways, and the result table's default columns fit without scrolling. Screenshots
// land in .test-artifacts/gallery-<view>-<theme>-<width>.png; docs/images/ keeps the dark 1280 px ones.
import type { Frame, Page } from 'playwright-core';
import { explorerContextCommand, findWebview, saveScreenshot, scenario, waitForText } from './harness';
import { LIVE_TITLE, liveTab, startSimulatorRun } from './harness/live-run';

const THEMES = { dark: 'Default Dark Modern', light: 'Default Light Modern', 'high-contrast': 'Default High Contrast' } as const;
const SIZES = [
  { width: 1000, height: 700 },
  { width: 1280, height: 800 },
];

/** What a user would see cut off at this size; answers one phrase per problem. */
async function clippedParts(view: Frame): Promise<string[]> {
  return view.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > width + 1) problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${width} px)`);
    for (const node of document.querySelectorAll('.chart-card, .table-scroll, .toolbar, h1, h2')) {
      const right = node.getBoundingClientRect().right;
      if (right > width + 1) problems.push(`${node.tagName.toLowerCase()}.${node.className} ends at ${Math.round(right)} px of ${width}`);
    }
    return problems;
  });
}

/** The result table's default columns fit the view without scrolling (issue 15: req/s ... failures at 1000 px). */
async function resultTableFits(view: Frame): Promise<boolean> {
  return view.locator('.step-table-block .table-scroll').evaluate((box: HTMLElement) => box.scrollWidth <= box.clientWidth + 1);
}

/** Every canvas of the view has been drawn on (chart.js paints nothing on a canvas it could not lay out). */
async function assertCanvasesDrawn(view: Frame, name: string): Promise<void> {
  const blank = await view.locator('canvas').evaluateAll((canvases: HTMLCanvasElement[]) =>
    canvases.filter((canvas) => {
      const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
      return !data || data.every((v, i) => i % 4 !== 3 || v === 0);
    }).length,
  );
  if (blank > 0) throw new Error(`${blank} blank chart canvas(es) in the ${name}`);
}

async function shootAtEachSize(page: Page, view: () => Promise<Frame>, name: string, check?: (frame: Frame) => Promise<void>): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    const frame = await view();
    // A resize re-lays the charts out on the next frames.
    await frame.waitForTimeout(500);
    await saveScreenshot(page, `gallery-${name}-${size.width}`);
    await assertCanvasesDrawn(frame, name);
    // The charts sit below the fold: a second picture with them in view.
    await frame.locator('.chart-card').first().evaluate((card) => card.scrollIntoView({ block: 'start' }));
    await saveScreenshot(page, `gallery-${name}-charts-${size.width}`);
    await frame.evaluate(() => window.scrollTo(0, 0));
    const clipped = await clippedParts(frame);
    if (clipped.length > 0) throw new Error(`${name} at ${size.width}x${size.height}: ${clipped.join('; ')}`);
    await check?.(frame);
  }
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
