// Cancelling a run from each place the UI offers it: the live panel's button, the progress
// notification's Cancel and the status bar item's menu. Each time the run stops within seconds,
// its result file is partial and keeps every request the file held and the panel counted before
// the cancel, and the panel shows the run as cancelled.
import type { Frame, Page } from 'playwright-core';
import type { ResultDocument } from '../../src/format/result';
import { answerQuickPick, currentResult, findWebview, pollUntil, scenario, waitForFinishedResult, waitForText } from './harness';
import { LIVE_TITLE, liveTab, startSimulatorSweep, SWEEP_LEVELS, sweepLasting, sweepRequestsPerStep } from './harness/live-run';

/** The requests done in the running step, as the panel's step line counts them ("12 / 300 requests done"). */
async function requestsShown(live: Frame): Promise<number | undefined> {
  const detail = await live.locator('#step-detail').innerText().catch(() => '');
  const done = /^(\d+) \/ \d+ requests done/.exec(detail);
  return done ? Number(done[1]) : undefined;
}

/** The requests a result document holds as completed, by step and index. */
const completedRequests = (steps: ResultDocument['steps']): string[] =>
  steps.flatMap((step) => step.requests.filter((request) => request.error === null).map((request) => `${step.name} #${request.index}`));

const REQUESTS_BEFORE_CANCEL = 3;
// Requests in flight are aborted, so a cancel ends the run at once; the rest is a busy machine's slack.
const CANCEL_WITHIN_MS = 20_000;
// A sweep that lasts far longer than the scenario waits.
const SWEEP_SECONDS = 72;
const requestsInFullRun = SWEEP_LEVELS.length * sweepRequestsPerStep(SWEEP_SECONDS);

function cancelScenario(where: string, cancel: (page: Page, live: Frame) => Promise<void>): void {
  scenario(
    `cancelled from ${where}, a run stops at once and keeps every request measured`,
    async ({ page, workspace }) => {
      const live = await startSimulatorSweep(page);
      const shownBefore = await pollUntil(`the live panel to count ${REQUESTS_BEFORE_CANCEL} requests done`, 30_000, async () => {
        const shown = await requestsShown(live);
        return shown !== undefined && shown >= REQUESTS_BEFORE_CANCEL ? shown : undefined;
      });
      const before = currentResult(workspace);
      if (!before) throw new Error('the run wrote no result file while it went');
      const writtenBefore = completedRequests(before.document.steps);
      await cancel(page, live);
      const { document } = await waitForFinishedResult(workspace, { timeoutMs: CANCEL_WITHIN_MS });

      if (document.status !== 'partial') throw new Error(`the cancelled run's file says ${document.status}: ${document.statusReason}`);
      if (!/cancelled/i.test(document.statusReason ?? '')) throw new Error(`the file's reason does not say the run was cancelled: ${document.statusReason}`);
      const kept = completedRequests(document.steps);
      const lost = writtenBefore.filter((request) => !kept.includes(request));
      if (lost.length > 0) throw new Error(`the file lost requests it held before the cancel: ${lost.join(', ')}`);
      const measured = kept.length;
      if (measured < shownBefore) throw new Error(`the file keeps ${measured} completed requests, the panel counted ${shownBefore} before the cancel`);
      if (!(measured < requestsInFullRun)) throw new Error(`the run went on to ${measured} of ${requestsInFullRun} requests after the cancel`);

      // The result editor opened over the panel as the run ended.
      await liveTab(page).click();
      const shown = await findWebview(page, { title: LIVE_TITLE, text: 'Finished (partial)' });
      await waitForText(shown, 'Cancelled before the run finished');
      if (await shown.locator('#cancel').isVisible()) throw new Error('the panel of a cancelled run still offers to cancel it');
      await shown.locator('#open-result').waitFor({ state: 'visible' });
    },
    sweepLasting(SWEEP_SECONDS),
  );
}

cancelScenario('the live panel', async (_page, live) => {
  await live.locator('#cancel').click();
});

cancelScenario('the progress notification', async (page) => {
  const progress = page.locator('.notifications-toasts .notification-list-item', { hasText: 'LLM Bench:' });
  await progress.locator('.monaco-button', { hasText: 'Cancel' }).click();
});

cancelScenario('the status bar item', async (page) => {
  await page.locator('.statusbar-item', { hasText: 'LLM Bench' }).click();
  await answerQuickPick(page, 'Cancel Benchmark');
});
