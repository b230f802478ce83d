// The result view in the browser: a result file opens as a table and charts; a corrupt one shows
// why and opens as text on request. Screenshots of the views land in .test-artifacts/ for review.
import { concurrencySweep } from '../helpers/result-documents';
import { findWebview, openFile, saveScreenshot, scenario, waitForText } from './harness';

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
