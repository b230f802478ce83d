// How a view looks at the sizes users have (1000x700, 1280x800) in dark, light and high-contrast
// themes: screenshots for review, and checks that nothing is cut off. Shared by the gallery and
// compare scenarios.
import type { Frame, Page } from 'playwright-core';
import { saveScreenshot } from './index';

export const THEMES = { dark: 'Default Dark Modern', light: 'Default Light Modern', 'high-contrast': 'Default High Contrast' } as const;
export const SIZES = [
  { width: 1000, height: 700 },
  { width: 1280, height: 800 },
];

/** What a user would see cut off at this size; answers one phrase per problem. */
export async function clippedParts(view: Frame): Promise<string[]> {
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

/** A gallery picture is what the scenario is for: one that could not be taken fails it. */
async function shoot(page: Page, name: string): Promise<void> {
  if (!(await saveScreenshot(page, name))) throw new Error(`the screenshot ${name} could not be taken`);
}

/**
 * Screenshots `view` at each size (and again with its charts in view, or the part `scrollTo`
 * selects), checking its canvases are drawn and nothing is cut off.
 */
export async function shootAtEachSize(page: Page, view: () => Promise<Frame>, name: string, check?: (frame: Frame) => Promise<void>, scrollTo = '.chart-card'): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    const frame = await view();
    // A resize re-lays the charts out on the next frames.
    await frame.waitForTimeout(500);
    await shoot(page, `gallery-${name}-${size.width}`);
    await assertCanvasesDrawn(frame, name);
    // The charts sit below the fold: a second picture with them in view.
    await frame.locator(scrollTo).first().evaluate((part) => part.scrollIntoView({ block: 'start' }));
    await shoot(page, `gallery-${name}-charts-${size.width}`);
    await frame.evaluate(() => window.scrollTo(0, 0));
    const clipped = await clippedParts(frame);
    if (clipped.length > 0) throw new Error(`${name} at ${size.width}x${size.height}: ${clipped.join('; ')}`);
    await check?.(frame);
  }
}

