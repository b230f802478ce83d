// Tune Server Flags as a user does it, in each theme: the command from the palette (dark) or the
// explorer's menu of a tune config (light, high contrast) on a tune config of the workspace (the built-in simulator as the launched server), the first launch's exact command
// confirmed in the modal, the live tune panel following the trials, then the tune file in its editor.
// There a trial's row opens the trial's result, and Copy puts the best command line on the clipboard.
// The live panel (while the tune runs, with the time left in the whole tune, and once it ended) and
// the tune editor are shot at 1000 and 1280 px (.test-artifacts/gallery-tune-*).
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { TuneFile } from '../../src/format/tune';
import { isPortFree } from '../../src/tune/server';
import { writtenCommand } from '../../src/tune/space';
import { commandLine } from '../../src/views/tune';
import { findWebview, pollUntil, reloadWindow, saveScreenshot, scenario, waitForText } from './harness';
import { ENGLISH_TUNE_WORDS, readTune, startTune, tunePanelTab } from './harness/tune-run';
import { shootAtEachSize, SIZES, THEMES } from './harness/layout';
import { processesWhere } from '../helpers/processes';
import { simulatorTuneConfig } from '../helpers/tune-documents';

const TUNE_CONFIG = simulatorTuneConfig({ trials: 5, requests: 8, levels: [2, 8], ttftP99Ms: 2000, speedup: 20, shortRequests: true });
/** A tune far longer than the scenario waits. */
const LONG_TUNE_CONFIG = simulatorTuneConfig({ trials: 50, requests: 2000, levels: [2], ttftP99Ms: 2000, speedup: 2, shortRequests: true });

const TUNE_PANEL = ENGLISH_TUNE_WORDS.panelTitle;

/** Clicks the first trial row that has a result; answers that trial's result file name. */
async function openTrial(page: Page, editor: Frame, tune: TuneFile): Promise<void> {
  const row = editor.locator('tr.opens').first();
  const number = Number(await row.getAttribute('data-trial'));
  const resultFile = tune.trials.find((t) => t.number === number)?.resultFile;
  if (!resultFile) throw new Error(`the row of trial ${number} opens a result, but the file names none`);
  await row.click();
  const result = await findWebview(page, { title: basename(resultFile), text: 'concurrency@', timeoutMs: 60_000 });
  await waitForText(result, 'Steps');
}

/** Copy puts the best command line on the clipboard as the user wrote it (`llmbench`, no trial port), quoted as the view shows it. */
async function copyBestCommand(page: Page, editor: Frame, tune: TuneFile): Promise<void> {
  if (!tune.best) throw new Error('the tune found no best trial to copy');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
  await page.evaluate(() => navigator.clipboard.writeText('nothing copied yet'));
  await editor.locator('#copy-best-command').click();
  const expected = commandLine(writtenCommand(tune.config.server, tune.config.space, tune.best.params));
  if (!expected.startsWith('llmbench sim --preset tiny --speedup') || expected.includes('--port')) throw new Error(`the best command is not as written: ${expected}`);
  const shown = await editor.locator('#best-command').innerText();
  if (shown.trim() !== expected) throw new Error(`the view shows ${shown}, the file's best command is ${expected}`);
  await pollUntil('the best command line on the clipboard', 10_000, async () => ((await page.evaluate(() => navigator.clipboard.readText())) === expected ? true : undefined));
}

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `tune in the ${theme} theme: confirm the first launch, the live panel, the tune editor; a trial's result opens, Copy copies the best command`,
    async ({ page, workspace }) => {
      const live = await startTune(page, theme === 'dark' ? 'palette' : 'explorer');
      if (!(await live.locator('#tune-headline').isVisible())) throw new Error('the live tune panel shows no headline');
      // While it runs, once a trial has ended: the time left in the whole tune, pictured at both sizes.
      await pollUntil('the time left in the tune', 120_000, async () => (/left in the tune/.test(await live.locator('#tune-eta').innerText().catch(() => '')) ? true : undefined));
      const running = () => findWebview(page, { title: TUNE_PANEL, text: /left in the tune/ });
      await shootAtEachSize(page, running, `tune-live-running-${theme}`, async (frame) => {
        const eta = frame.locator('#tune-eta');
        const text = await eta.innerText();
        if (!(await eta.isVisible()) || !/^\d+ of 5 trials done, .* a trial so far: about .* left in the tune/.test(text)) throw new Error(`the time left in the tune reads "${text}"`);
        // On the first screen, not below the fold.
        const box = await eta.boundingBox();
        const height = page.viewportSize()?.height ?? 0;
        if (!box || box.y + box.height > height) throw new Error(`the time left in the tune is below the first screen (${JSON.stringify(box)} in ${height} px)`);
      });
      // The tune editor opens over the panel as the tune ends.
      const tune = await pollUntil('the tune to finish', 240_000, async () => {
        const shown = readTune(workspace);
        return shown.status === 'running' ? undefined : shown;
      });
      if (tune.status !== 'complete' || tune.trials.length !== 5) throw new Error(`the tune file says ${tune.status} with ${tune.trials.length} trials`);
      // The best candidates were measured again after the search: the editor gives the winner's interval.
      if (tune.remeasure?.status !== 'complete' || tune.remeasure.runs.length !== tune.remeasure.candidates.length * 3) throw new Error(`the re-measurement says ${JSON.stringify(tune.remeasure)}`);
      const editor = () => findWebview(page, { title: 'sim.llmtune.json', text: 'Parameter effects', timeoutMs: 60_000 });
      const rows = await (await editor()).locator('.trials-table tbody tr').count();
      if (rows !== 5) throw new Error(`the tune editor lists ${rows} trials, the file 5`);
      const best = await (await editor()).locator('#best').innerText();
      if (!/ ± [\d,]+ output tok\/s/.test(best) || !/mean of 3 re-measurements, 95% interval/.test(best)) throw new Error(`the Best section gives no interval: ${best}`);
      await shootAtEachSize(page, editor, `tune-editor-${theme}`);
      // The trials table too, with its re-measured column and the rows tied with the best, at the narrower size.
      const [narrow] = SIZES;
      await page.setViewportSize(narrow!);
      await (await editor()).locator('.trials-table').evaluate((table) => table.scrollIntoView({ block: 'start' }));
      await saveScreenshot(page, `gallery-tune-editor-table-${theme}-${narrow!.width}`);
      await tunePanelTab(page).click();
      await shootAtEachSize(page, () => findWebview(page, { title: TUNE_PANEL, text: 'Finished (complete)' }), `tune-live-${theme}`);
      await page.locator('.tabs-container .tab', { hasText: 'sim.llmtune.json' }).click();
      await copyBestCommand(page, await editor(), tune);
      await openTrial(page, await editor(), tune);
      const serverLogs = readdirSync(join(workspace, 'benchmarks')).filter((name) => name.endsWith('.log')).length;
      if (serverLogs === 0) throw new Error('the trials kept no server log beside the tune file');
    },
    {
      timeoutMs: 420_000,
      workspace: {
        settings: { 'workbench.colorTheme': themeName },
        files: { 'sim.llmtune-config.json': JSON.stringify(TUNE_CONFIG, null, 2) },
      },
    },
  );
}

/** The processes serving `llmbench sim` on `port` (the trial's server), by their argv. */
const simServersOn = (port: number): string[] =>
  processesWhere((argv) => argv.includes('sim') && argv.some((arg, i) => arg === '--port' && argv[i + 1] === String(port)));


scenario(
  'a window reload stops the tune and its server; the tune panel comes back saying so, and the tune file is kept',
  async ({ page, workspace }) => {
    const live = await startTune(page, 'palette');
    const command = await pollUntil('the running trial\'s server command in the panel', 60_000, async () => {
      const text = await live.locator('.server-command').innerText().catch(() => '');
      return / --port \d+ /.test(text) && (await live.locator('#tune-headline').innerText()).includes('benchmarking') ? text : undefined;
    });
    const port = Number(/ --port (\d+) /.exec(command)?.[1]);
    if (simServersOn(port).length === 0) throw new Error(`no server process for ${command}`);
    await reloadWindow(page);
    // The old extension host stopped the tune as it deactivated, and with it the server.
    await pollUntil(`the server on port ${port} to be gone`, 30_000, async () => (simServersOn(port).length === 0 && (await isPortFree(port)) ? true : undefined));
    const restored = await findWebview(page, { title: TUNE_PANEL, text: 'VS Code reloaded while this tune was going', timeoutMs: 60_000 });
    await waitForText(restored, 'Finished (cancelled)');
    const tune = await pollUntil('the tune file to say how the tune ended', 30_000, async () => {
      const shown = readTune(workspace);
      return shown.status === 'running' ? undefined : shown;
    });
    if (tune.status !== 'cancelled') throw new Error(`the tune file says ${tune.status}: ${tune.statusReason}`);
  },
  { timeoutMs: 240_000, workspace: { files: { 'sim.llmtune-config.json': JSON.stringify(LONG_TUNE_CONFIG, null, 2) } } },
);
