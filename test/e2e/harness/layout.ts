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

/**
 * The class a view gives a box that scrolls sideways on purpose (webview/shared/dom.ts
 * `markOverflow`): with it the box shows a shadow at its cut edge and a visible `.scroll-hint`
 * line saying that more is to the side. A box that scrolls without both hides what it cuts.
 */
export const OVERFLOW_MARK = 'overflows';

/**
 * What a user would see cut off at this size; answers one phrase per problem:
 * - the page itself scrolls sideways;
 * - a table, chart or toolbar box ends past the view's right edge;
 * - a box scrolls inside itself (its content is wider than the box: `scrollWidth > clientWidth`),
 *   whatever its edge, unless the view marks that overflow visibly (OVERFLOW_MARK and a visible
 *   hint). The first two alone miss a table that scrolls inside a box that fits: the columns it
 *   hides were found by no check (issue 26).
 */
export async function clippedParts(view: Frame): Promise<string[]> {
  return view.evaluate((mark) => {
    const width = document.documentElement.clientWidth;
    const problems: string[] = [];
    const name = (node: Element) => `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}${typeof node.className === 'string' && node.className ? `.${node.className.trim().split(/\s+/).join('.')}` : ''}`;
    if (document.documentElement.scrollWidth > width + 1) problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${width} px)`);
    // A box inside one that scrolls sideways is judged by that box (below), not by its own edge.
    const insideScroller = (node: Element) => {
      for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
        const overflowX = getComputedStyle(up).overflowX;
        if (overflowX === 'auto' || overflowX === 'scroll') return true;
      }
      return false;
    };
    for (const node of document.querySelectorAll('.chart-card, .chart-box, .chart-grid, .table-scroll, table, .toolbar, h1, h2')) {
      if (insideScroller(node)) continue;
      const right = node.getBoundingClientRect().right;
      if (right > width + 1) problems.push(`${name(node)} ends at ${Math.round(right)} px of ${width}`);
    }
    const shown = (node: Element) => {
      const box = (node as HTMLElement).getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(node).visibility !== 'hidden' && (node.textContent ?? '').trim().length > 0;
    };
    // Every box that can scroll sideways (overflow-x other than visible), and every table and chart container.
    const candidates = new Set<Element>([...document.querySelectorAll('.table-scroll, table, .chart-card, .chart-box, .chart-grid')]);
    for (const node of document.body.querySelectorAll('*')) {
      const overflowX = getComputedStyle(node).overflowX;
      if (overflowX === 'auto' || overflowX === 'scroll') candidates.add(node);
    }
    for (const node of candidates) {
      const box = node as HTMLElement;
      if (box.getClientRects().length === 0) continue;
      if (box.scrollWidth <= box.clientWidth + 1) continue;
      const hint = box.parentElement?.querySelector(':scope > .scroll-hint');
      if (box.classList.contains(mark) && hint && shown(hint)) continue;
      problems.push(`${name(box)} scrolls sideways inside itself (${box.scrollWidth} px of content in ${box.clientWidth} px), hiding part of it without saying so`);
    }
    return problems;
  }, OVERFLOW_MARK);
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

