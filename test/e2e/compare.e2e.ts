// Comparing two results in the browser: "Compare With..." from the result view, picking the other
// file, opens one compare view in the editor column: both runs' headers, B against A with the
// slower run's cells marked worse (outside noise), both runs on the same charts and each on its
// own. Swap exchanges A and B; Open Side by Side adds the two result editors; a window reload
// restores the compare view. In a dark, a light and a high-contrast theme, the view is pictured at
// 1000x700 and 1280x800 with nothing cut off and B against A showing every column it has.
import type { Frame, Page } from 'playwright-core';
import { concurrencySweep } from '../helpers/result-documents';
import { answerQuickPick, findWebview, openFile, reloadWindow, scenario, waitForText } from './harness';
import { boxFits, shootAtEachSize, THEMES } from './harness/layout';

/** Result views (side by side) currently showing a given file name as their heading. */
async function resultViewsShowing(page: Page, fileName: string): Promise<Frame[]> {
  const found: Frame[] = [];
  for (const frame of page.frames()) {
    const heading = await frame.evaluate(() => document.querySelector('.run-summary h1')?.textContent ?? '').catch(() => '');
    const hasTable = await frame.evaluate(() => document.querySelector('.step-table') !== null).catch(() => false);
    if (heading.includes(fileName) && hasTable) found.push(frame);
  }
  return found;
}

const editorGroups = (page: Page) => page.locator('.editor-group-container').count();

async function openCompare(page: Page): Promise<Frame> {
  await openFile(page, 'benchmarks/fast.llmbench.json');
  const view = await findWebview(page, { title: 'fast.llmbench.json', text: 'concurrency@16', timeoutMs: 60_000 });
  await view.locator('#compare-with').click();
  await answerQuickPick(page, 'slow.llmbench.json');
  const compare = await findWebview(page, { text: 'B against A', timeoutMs: 60_000 });
  await waitForText(compare, 'A: fast.llmbench.json');
  await waitForText(compare, 'B: slow.llmbench.json');
  return compare;
}

const workspace = {
  files: {
    'benchmarks/fast.llmbench.json': JSON.stringify(concurrencySweep(20, 1)),
    'benchmarks/slow.llmbench.json': JSON.stringify(concurrencySweep(20, 2)),
  },
};

scenario(
  'Compare With... opens one compare view: deltas outside noise, swap, side by side on request, restored after a reload',
  async ({ page }) => {
    const compare = await openCompare(page);
    const groups = await editorGroups(page);
    if (groups !== 1) throw new Error(`the compare view should take one editor column, saw ${groups}`);
    const worse = await compare.locator('.delta-table .delta-worse').count();
    if (worse < 3) throw new Error(`the slower run should show worse cells, saw ${worse}`);

    await compare.locator('#swap-runs').click();
    await waitForText(compare, 'A: slow.llmbench.json');
    const better = await compare.locator('.delta-table .delta-better').count();
    if (better < 3) throw new Error(`after the swap the faster run is B: its cells should be better, saw ${better}`);
    await compare.locator('#swap-runs').click();
    await waitForText(compare, 'A: fast.llmbench.json');

    await compare.locator('#open-side-by-side').click();
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [a, b] = await Promise.all([resultViewsShowing(page, 'fast.llmbench.json'), resultViewsShowing(page, 'slow.llmbench.json')]);
      if (a.length >= 1 && b.length >= 1) break;
      if (Date.now() > deadline) throw new Error(`side by side: ${a.length} view(s) of fast, ${b.length} of slow`);
      await new Promise((r) => setTimeout(r, 500));
    }

    // After a reload the compare view comes back (its serializer), drawn again from the two files;
    // VS Code revives a webview tab behind the side-by-side editors when it is shown.
    await reloadWindow(page);
    await page.locator('.tabs-container .tab', { hasText: '\u2194' }).first().click();
    const restored = await findWebview(page, { text: 'B against A', timeoutMs: 60_000 });
    await waitForText(restored, 'B: slow.llmbench.json');
    if ((await restored.locator('.delta-table .delta-worse').count()) < 3) throw new Error('the restored compare view lost its delta table');
  },
  { workspace, timeoutMs: 180_000 },
);

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `compare view in the ${theme} theme at 1000 and 1280 px: nothing cut off`,
    async ({ page }) => {
      await openCompare(page);
      // B against A shows every column it has at both sizes (it was 1,284 px wide: three metrics showed at 1000 px).
      await shootAtEachSize(page, () => findWebview(page, { text: 'B against A', timeoutMs: 30_000 }), `compare-${theme}`, (frame) => boxFits(frame, '.delta-block .table-scroll', 'B against A'));
    },
    { workspace: { ...workspace, settings: { 'workbench.colorTheme': themeName } }, timeoutMs: 180_000 },
  );
}
