// Importing a page of notes in the browser, as a user does: "Import Benchmark Results" from the
// explorer's context menu on a Markdown file lists the runs it found; picking a run opens its labels
// for editing; "Write" takes the folder the dialog offers; the notification's "Open Report..."
// asks which label to group by and opens the report grouped so. The edited label is in the file.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Page } from 'playwright-core';
import { GUIDELLM_MEANS_TABLE, NOTES } from '../helpers/import-samples';
import { answerInputBox, answerQuickPick, explorerContextCommand, findWebview, openFile, pollUntil, quickPickLabels, runCommand, scenario, waitForNotification, waitForText } from './harness';
import { boxFits, shootAtEachSize, shootQuickInputAtEachSize, THEMES } from './harness/layout';

const IMPORT = 'Import Benchmark Results (vLLM, GuideLLM, EvalScope, AIPerf, LLMPerf)...';

/** Accepts what the folder dialog offers (the workspace's results folder) until the files are there. */
async function acceptOfferedFolder(page: Page, workspace: string, count = 2): Promise<string[]> {
  return pollUntil('the imported result files', 30_000, async () => {
    const folder = join(workspace, 'benchmarks');
    const written = (() => {
      try {
        return readdirSync(folder).filter((name) => name.endsWith('.llmbench.json'));
      } catch {
        return [];
      }
    })();
    if (written.length === count) return written.map((name) => join(folder, name));
    if (await page.locator('.quick-input-widget input').isVisible()) await page.keyboard.press('Enter');
    return undefined;
  });
}

scenario(
  'a page of notes imports with a label edited in the review, then opens as a report grouped by the label chosen',
  async ({ page, workspace }) => {
    await explorerContextCommand(page, 'notes.md', IMPORT);
    const listed = await quickPickLabels(page, /found 2 runs, 4 steps/);
    if (!listed.includes('Run 2: Qwen2-7B-Instruct-AWQ')) throw new Error(`the review lists ${JSON.stringify(listed)}`);

    await answerQuickPick(page, 'Run 2: Qwen2-7B-Instruct-AWQ');
    // A field per label, the known keys offered (one comma-separated line before issue 26).
    const fields = await quickPickLabels(page, /Labels of run 2/);
    for (const key of ['engine', 'gpu', 'gpus', 'quantization', 'model']) if (!fields.includes(key)) throw new Error(`the label fields offered are ${JSON.stringify(fields)}`);
    // The last item, past the rows a run with many labels shows at once: found by typing.
    const filter = page.locator('.quick-input-widget input');
    await filter.fill('Add a label');
    const adding = await quickPickLabels(page, /Labels of run 2/);
    if (!adding.includes('Add a label…')) throw new Error(`typing "Add a label" offers ${JSON.stringify(adding)}`);
    await filter.fill('');
    await answerQuickPick(page, 'engine');
    await answerInputBox(page, 'vLLM', { prompt: /Inference engine/ });
    await answerQuickPick(page, 'gpu');
    await answerInputBox(page, 'H20 96GB', { prompt: /GPU/ });
    await answerQuickPick(page, 'Done');
    await answerQuickPick(page, 'Write 2 result files');
    const files = await acceptOfferedFolder(page, workspace);

    const labels = files.map((file) => (JSON.parse(readFileSync(file, 'utf8')) as { labels: Record<string, string> }).labels);
    const edited = labels.find((l) => l['engine'] === 'vLLM');
    if (edited?.['gpu'] !== 'H20 96GB') throw new Error(`the edited labels were not written: ${JSON.stringify(labels)}`);
    if (!labels.some((l) => l['engine'] === 'sglang' && l['gpu']?.includes('L20'))) throw new Error(`the other run kept its labels: ${JSON.stringify(labels)}`);

    await waitForNotification(page, 'imported 2 runs');
    await page.locator('.notifications-toasts .notification-list-item', { hasText: 'imported 2 runs' }).locator('.monaco-button', { hasText: 'Open Report...' }).click();
    await answerQuickPick(page, 'engine');
    const report = await findWebview(page, { text: 'Ranking', timeoutMs: 60_000 });
    await waitForText(report, 'vLLM');
    const groupBy = await report.locator('#group-by').evaluate((node) => (node as HTMLElement & { value: string }).value);
    if (groupBy !== 'engine') throw new Error(`the report is grouped by "${groupBy}", not engine`);
  },
  { workspace: { files: { 'notes.md': NOTES } }, timeoutMs: 180_000 },
);

// The import review's pick lists as a user sees them, in a dark, a light and a high-contrast theme
// at 1000 and 1280 px, nothing in them cut off and their text readable: the runs found with their
// steps under the source's own names (a page of notes holding two vLLM runs and a GuideLLM table),
// a field per label with the known keys offered, a label's own field; then the GuideLLM run's
// result editor with its default columns (its means: the table has no p50).
// Screenshots: .test-artifacts/gallery-import-<list>-<theme>-<width>.png.
const NOTES_WITH_GUIDELLM = `${NOTES}\n\n## GuideLLM, constant rate\n\n${GUIDELLM_MEANS_TABLE}`;

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `import review gallery in the ${theme} theme at 1000 and 1280 px: the runs found with their step names, a field per label, the default columns`,
    async ({ page, workspace }) => {
      await explorerContextCommand(page, 'notes.md', IMPORT);
      const listed = await quickPickLabels(page, /found 3 runs, 7 steps/);
      if (!listed.some((label) => label.startsWith('Run 3:'))) throw new Error(`the review lists ${JSON.stringify(listed)}`);
      await shootQuickInputAtEachSize(page, `import-runs-${theme}`, {
        check: async () => {
          const guidellm = await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Run 3' }).innerText();
          // The source's own step name, ours beside it where they differ.
          if (!guidellm.includes('constant@1.90')) throw new Error(`the GuideLLM run's steps read ${guidellm}`);
        },
      });
      await answerQuickPick(page, 'Run 2: Qwen2-7B-Instruct-AWQ');
      const fields = await quickPickLabels(page, /Labels of run 2/);
      for (const key of ['engine', 'gpu', 'gpus', 'quantization', 'model']) if (!fields.includes(key)) throw new Error(`the label fields offered are ${JSON.stringify(fields)}`);
      await shootQuickInputAtEachSize(page, `import-labels-${theme}`);
      await answerQuickPick(page, 'gpu');
      await shootQuickInputAtEachSize(page, `import-label-field-${theme}`, {
        check: async () => {
          const value = await page.locator('.quick-input-widget input').inputValue();
          if (value !== 'L20 48GB') throw new Error(`the gpu field holds "${value}"`);
        },
      });
      await page.keyboard.press('Enter');
      await answerQuickPick(page, 'Done');
      await answerQuickPick(page, 'Write 3 result files');
      const files = await acceptOfferedFolder(page, workspace, 3);
      const guidellmFile = files.find((file) => (JSON.parse(readFileSync(file, 'utf8')) as { importedFrom?: { tool?: string } }).importedFrom?.tool === 'GuideLLM');
      if (!guidellmFile) throw new Error(`no GuideLLM result among ${files.join(', ')}`);
      await runCommand(page, 'View: Close All Editors');
      await openFile(page, `benchmarks/${basename(guidellmFile)}`);
      const result = () => findWebview(page, { title: basename(guidellmFile), text: 'constant@1.90', timeoutMs: 60_000 });
      await shootAtEachSize(page, result, `import-result-${theme}`, async (frame) => {
        await boxFits(frame, '.step-table-block .table-scroll', "the imported run's default columns");
        const headers = await frame.locator('.step-table-block thead').innerText();
        if (!/mean/i.test(headers)) throw new Error(`the default columns of a table of means show no mean: ${headers}`);
      });
    },
    { workspace: { settings: { 'workbench.colorTheme': themeName }, files: { 'notes.md': NOTES_WITH_GUIDELLM } }, timeoutMs: 240_000 },
  );
}
