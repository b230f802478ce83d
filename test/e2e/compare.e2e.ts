// Comparing two results in the browser: "Compare With..." from the result view, picking the other
// file, opens both runs side by side and the overlay panel with its delta table, which a window
// reload restores.
import type { Frame, Page } from 'playwright-core';
import { concurrencySweep } from '../helpers/result-documents';
import { answerQuickPick, findWebview, openFile, reloadWindow, saveScreenshot, scenario, waitForText } from './harness';

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

scenario(
  'Compare With... opens both runs side by side and the overlay with deltas',
  async ({ page }) => {
    await openFile(page, 'benchmarks/fast.llmbench.json');
    const view = await findWebview(page, { title: 'fast.llmbench.json', text: 'concurrency@16', timeoutMs: 60_000 });
    await view.locator('#compare-with').click();
    await answerQuickPick(page, 'slow.llmbench.json');

    const compare = await findWebview(page, { text: 'B against A', timeoutMs: 60_000 });
    await waitForText(compare, 'A: fast.llmbench.json');
    await waitForText(compare, 'B: slow.llmbench.json');
    const worse = await compare.locator('.delta-table .delta-worse').count();
    if (worse < 3) throw new Error(`the slower run should show worse cells, saw ${worse}`);

    // The two sides of the split view are result views of each file.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [a, b] = await Promise.all([resultViewsShowing(page, 'fast.llmbench.json'), resultViewsShowing(page, 'slow.llmbench.json')]);
      if (a.length >= 1 && b.length >= 1) break;
      if (Date.now() > deadline) throw new Error(`side by side: ${a.length} view(s) of fast, ${b.length} of slow`);
      await new Promise((r) => setTimeout(r, 500));
    }
    await saveScreenshot(page, 'e2e-compare-light');

    // After a reload the overlay panel comes back (its serializer), drawn again from the two files.
    // Reloading through VS Code saves the window's layout first, as a user's reload does.
    await reloadWindow(page);
    const restored = await findWebview(page, { text: 'B against A', timeoutMs: 60_000 });
    await waitForText(restored, 'B: slow.llmbench.json');
    if ((await restored.locator('.delta-table .delta-worse').count()) < 3) throw new Error('the restored overlay lost its delta table');
  },
  {
    workspace: {
      files: {
        'benchmarks/fast.llmbench.json': JSON.stringify(concurrencySweep(20, 1)),
        'benchmarks/slow.llmbench.json': JSON.stringify(concurrencySweep(20, 2)),
      },
    },
    timeoutMs: 180_000,
  },
);
