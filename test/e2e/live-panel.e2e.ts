// The live panel is a view of a run the extension host owns: hidden and shown again, or closed and
// reopened, it shows where the run is now, and closing it does not stop the run. After "Reload
// Window" it comes back by itself with the state it showed, the run marked as stopped by the
// reload, and the result file keeps every request measured until then.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseResultDocument } from '../../src/format/result';
import { findWebview, openFile, pollUntil, reloadWindow, runCommand, scenario, waitForFinishedResult, waitForText } from './harness';
import { LIVE_TITLE, liveTab, startSimulatorRun, startSimulatorSweep, sweepLasting, waitForProgressBeyond } from './harness/live-run';

scenario(
  'hidden then shown, or closed then reopened, the live panel shows the run now; closing it does not stop the run',
  async ({ page, workspace }) => {
    let live = await startSimulatorSweep(page);
    const beforeHiding = await waitForProgressBeyond(live, 0.05, 30_000);

    // Another editor over the panel: its webview is discarded until the tab is shown again.
    await openFile(page, 'notes.md');
    await new Promise((r) => setTimeout(r, 3_000));
    await liveTab(page).click();
    live = await findWebview(page, { title: LIVE_TITLE, text: 'Running step' });
    const afterShowing = await waitForProgressBeyond(live, beforeHiding, 2_000);

    await liveTab(page).click();
    await runCommand(page, 'View: Close Editor');
    await liveTab(page).waitFor({ state: 'detached' });
    await new Promise((r) => setTimeout(r, 3_000));
    // The status bar item still counts the run.
    await page.locator('.statusbar-item', { hasText: 'LLM Bench' }).waitFor({ state: 'visible' });
    await runCommand(page, 'LLM Bench: Show Live Panel');
    live = await findWebview(page, { title: LIVE_TITLE, text: /Running step|Finished/ });
    await waitForProgressBeyond(live, afterShowing, 2_000);

    const { document } = await waitForFinishedResult(workspace, { timeoutMs: 120_000 });
    if (document.status !== 'complete') throw new Error(`the run ended ${document.status}: ${document.statusReason}`);
  },
  sweepLasting(50),
);

scenario(
  'after Reload Window the live panel comes back with the run as it last showed it, stopped by the reload',
  async ({ page, workspace }) => {
    const live = await startSimulatorSweep(page);
    await waitForProgressBeyond(live, 0.1, 30_000);
    const rowsBefore = await live.locator('#steps-table tbody tr').count();
    await reloadWindow(page);

    const restored = await findWebview(page, { title: LIVE_TITLE, text: 'VS Code reloaded while this run was going', timeoutMs: 60_000 });
    await waitForText(restored, 'Finished (partial)');
    const rows = await restored.locator('#steps-table tbody tr').allInnerTexts();
    if (rows.length < rowsBefore) throw new Error(`the restored panel shows ${rows.length} steps, it showed ${rowsBefore} before the reload`);
    if (rows.some((row) => row.includes('running') || row.includes('…'))) throw new Error(`a step of the stopped run still reads as running: ${rows.join(' | ')}`);

    const { document } = await waitForFinishedResult(workspace, { timeoutMs: 30_000 });
    if (document.status !== 'partial') throw new Error(`the result file says ${document.status}, expected partial`);
    const measured = document.steps.reduce((n, step) => n + step.requests.length, 0);
    if (measured === 0) throw new Error('the result file kept no request measured before the reload');
  },
  sweepLasting(90),
);

scenario(
  'a live panel left in a background tab at a reload gives way to the new run\'s panel, and its run\'s file is finished',
  async ({ page, workspace }) => {
    await startSimulatorSweep(page);
    await openFile(page, 'notes.md');
    await reloadWindow(page);
    // VS Code revives a background webview only when its tab is shown: start a new run first.
    await startSimulatorRun(page, 'Quick check');
    await findWebview(page, { title: LIVE_TITLE, text: 'synchronous', timeoutMs: 60_000 });
    // The tab left from before the reload is the first (leftmost): showing it revives its panel,
    // which gives way. The new run's tab may join the tab bar only after the live webview's text
    // is found (a count taken once could see one tab and never click): click the first tab as long
    // as there are two.
    let attempt = 0;
    await pollUntil('one live panel tab', 45_000, async () => {
      const count = await liveTab(page).count();
      if (count === 1) return true;
      // Which tab is the old one depends on where VS Code put the new panel: try each in turn.
      await liveTab(page).nth(attempt++ % count).click().catch(() => undefined);
      await page.waitForTimeout(500);
      return undefined;
    });
    // The revived tab may still be closing as it gives way, so a click can land on it, and the
    // webview found then is the old panel's, about to go: click again until a live webview shows
    // the new run's step.
    await pollUntil('the new run\'s live panel shown from its tab', 60_000, async () => {
      await liveTab(page).first().click().catch(() => undefined);
      return findWebview(page, { title: LIVE_TITLE, text: 'synchronous', timeoutMs: 5_000 }).catch(() => undefined);
    });
    const interrupted = await pollUntil('the first run\'s file to be finished', 10_000, async () => {
      const first = readdirSync(join(workspace, 'benchmarks')).filter((name) => name.endsWith('-concurrency.llmbench.json'))[0];
      const parsed = first ? parseResultDocument(readFileSync(join(workspace, 'benchmarks', first), 'utf8')) : undefined;
      return parsed?.ok && parsed.value.status !== 'running' ? parsed.value : undefined;
    });
    // Finished by the new extension host, or by the old one as it shut down (it cancels its run): partial either way.
    if (interrupted.status !== 'partial') throw new Error(`the first run's file says ${interrupted.status}: ${interrupted.statusReason}`);
  },
  sweepLasting(60),
);
