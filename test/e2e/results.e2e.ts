// The result view in the browser: a result file opens as a table and charts; a corrupt one shows
// why and opens as text on request; the step table's chosen columns are remembered per workspace. Screenshots of the views land in .test-artifacts/ for review.
import { concurrencySweep } from '../helpers/result-documents';
import type { Frame } from 'playwright-core';
import { findWebview, openFile, pollUntil, runCommand, saveScreenshot, scenario, waitForText } from './harness';

scenario(
  'a result file opens as its step table and charts',
  async ({ page }) => {
    await openFile(page, 'benchmarks/sweep.llmbench.json');
    const view = await findWebview(page, { title: 'sweep.llmbench.json', text: 'concurrency@16', timeoutMs: 60_000 });
    await waitForText(view, 'test-model');
    const rows = await view.locator('.step-table tbody tr').count();
    if (rows !== 3) throw new Error(`expected 3 step rows, saw ${rows}`);
    // Every chart card draws on a canvas (a card that cannot says so in text instead).
    await view.locator('[data-chart="ttft"] canvas').waitFor({ state: 'visible' });
    const undrawn = await view.locator('.chart-card p.muted').count();
    if (undrawn > 0) throw new Error(`${undrawn} chart(s) could not be drawn`);
    await saveScreenshot(page, 'e2e-results-view-dark');
  },
  {
    workspace: {
      settings: { 'workbench.colorTheme': 'Default Dark Modern' },
      files: { 'benchmarks/sweep.llmbench.json': JSON.stringify(concurrencySweep(20)) },
    },
  },
);

/** The step table's metric headers (first header row). */
const tableGroups = (view: Frame) => view.locator('.step-table thead tr:first-child th').evaluateAll((cells) => cells.map((c) => c.firstChild?.textContent ?? ''));

scenario(
  'the columns chosen for the step table are remembered for the workspace: another result file opens with them',
  async ({ page }) => {
    await openFile(page, 'benchmarks/first.llmbench.json');
    const first = await findWebview(page, { title: 'first.llmbench.json', text: 'concurrency@16', timeoutMs: 60_000 });
    if ((await tableGroups(first)).includes('ITL')) throw new Error('ITL is not a default column');
    await first.locator('input[data-column="itl"]').check();
    await first.locator('input[data-column="p95"]').check();
    await pollUntil('the ITL column', 10_000, async () => ((await tableGroups(first)).includes('ITL') ? true : undefined));
    await runCommand(page, 'View: Close All Editors');
    await openFile(page, 'benchmarks/second.llmbench.json');
    const second = await findWebview(page, { title: 'second.llmbench.json', text: 'concurrency@16', timeoutMs: 60_000 });
    await pollUntil('the remembered columns in another file', 15_000, async () => ((await tableGroups(second)).includes('ITL') ? true : undefined));
    const stats = await second.locator('.step-table thead tr:nth-child(2) th').evaluateAll((cells) => cells.map((c) => c.textContent ?? ''));
    if (!stats.includes('p95')) throw new Error(`p95 was chosen too: the statistics read ${stats.join(' ')}`);
    if (!(await second.locator('input[data-column="itl"]').isChecked())) throw new Error('the ITL box should show as chosen');
  },
  {
    workspace: {
      files: {
        'benchmarks/first.llmbench.json': JSON.stringify(concurrencySweep(20)),
        'benchmarks/second.llmbench.json': JSON.stringify(concurrencySweep(20, 2)),
      },
    },
  },
);

scenario(
  'a corrupt result file shows the reason and opens as text',
  async ({ page }) => {
    await openFile(page, 'benchmarks/broken.llmbench.json');
    const view = await findWebview(page, { title: 'broken.llmbench.json', text: 'cannot be shown', timeoutMs: 60_000 });
    await waitForText(view, 'not valid JSON');
    await saveScreenshot(page, 'e2e-results-error-light');
    await view.locator('#open-as-text').click();
    await page.locator('.monaco-editor .view-lines', { hasText: 'schemaVersion' }).waitFor({ state: 'visible', timeout: 30_000 });
  },
  {
    workspace: {
      settings: { 'workbench.colorTheme': 'Default Light Modern' },
      files: { 'benchmarks/broken.llmbench.json': '{"schemaVersion": 1, "steps": [' },
    },
  },
);
