// The views as a user sees them, for review and for the README: a concurrency sweep on the
// simulator, then the result editor and the live panel's final state, each at 1000 and 1280 px
// wide, in a dark, a light and a high-contrast theme. Screenshots land in
// .test-artifacts/gallery-<view>-<theme>-<width>.png; docs/images/ keeps the dark 1280 px pair.
import type { Frame, Page } from 'playwright-core';
import { findWebview, saveScreenshot, scenario, waitForText } from './harness';
import { LIVE_TITLE, liveTab, startSimulatorRun } from './harness/live-run';

const THEMES = { dark: 'Default Dark Modern', light: 'Default Light Modern', 'high-contrast': 'Default High Contrast' } as const;
const WIDTHS = [1000, 1280];
const HEIGHT = 800;

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

async function shootAtEachWidth(page: Page, view: () => Promise<Frame>, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    const frame = await view();
    // A resize re-lays the charts out on the next frames.
    await frame.waitForTimeout(500);
    await assertCanvasesDrawn(frame, name);
    await saveScreenshot(page, `gallery-${name}-${width}`);
  }
}

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `gallery in the ${theme} theme: the result editor and the live panel at 1000 and 1280 px`,
    async ({ page }) => {
      await startSimulatorRun(page, 'Concurrency sweep');
      const result = () => findWebview(page, { title: 'llmbench.json', text: 'concurrency@16', timeoutMs: 90_000 });
      await waitForText(await result(), 'Finished');
      await shootAtEachWidth(page, result, `result-${theme}`);
      await liveTab(page).click();
      const live = () => findWebview(page, { title: LIVE_TITLE, text: 'Finished (complete)', timeoutMs: 30_000 });
      await shootAtEachWidth(page, live, `live-${theme}`);
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
