// The views this project's workload shapes add, as a user sees them: the Rate ramp preset run twice
// over (repeatCount 2) in three-turn sessions on the simulator. The live panel draws the ramp's
// target rate against the achieved one; the result editor shows the Across repeats table (mean ±
// 95% interval) and TTFT by turn. Two more runs of three repeats each, made by the real engine on
// the simulator, open in compare, which says when a difference is within noise of the repeats'
// intervals. Each at 1000x700 and 1280x800 in dark, light and high-contrast
// themes, nothing cut off; screenshots in .test-artifacts/gallery-<view>-<theme>-<width>.png.
import { join } from 'node:path';
import { answerQuickPick, findWebview, openFile, scenario, waitForText } from './harness';
import { boxFits, shootAtEachSize, THEMES } from './harness/layout';
import { LIVE_TITLE, liveTab, startSimulatorRun } from './harness/live-run';
import { writeSimRuns, type SimRun } from './harness/sim-runs';

/** A short concurrency sweep run three times over into one file. */
const repeated = (name: string, seed: number): SimRun => ({ name, labels: { run: name }, inputTokens: 64, outputTokens: 32, levels: [2, 8], requests: 24, seed, repeat: 3 });


for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `workload gallery in the ${theme} theme: a repeated rate ramp of sessions in the live panel and the result editor`,
    async ({ page, workspace }) => {
      await writeSimRuns(join(workspace, 'repeats'), { preset: 'tiny' }, [repeated('first', 1), repeated('second', 2)]);
      await startSimulatorRun(page, 'Rate ramp');
      const result = () => findWebview(page, { title: 'llmbench.json', text: 'Across repeats', timeoutMs: 120_000 });
      await waitForText(await result(), 'Finished');
      await waitForText(await result(), 'TTFT by turn');
      await shootAtEachSize(page, result, `workloads-result-${theme}`, async (frame) => {
        await boxFits(frame, '#repeat-table .table-scroll', 'the Across repeats table');
      });
      await liveTab(page).click();
      const live = () => findWebview(page, { title: LIVE_TITLE, text: 'Finished (complete)', timeoutMs: 30_000 });
      await shootAtEachSize(page, live, `workloads-live-${theme}`);

      await openFile(page, 'repeats/first.llmbench.json');
      const first = await findWebview(page, { title: 'first.llmbench.json', text: 'Across repeats', timeoutMs: 60_000 });
      await first.locator('#compare-with').click();
      await answerQuickPick(page, 'second.llmbench.json');
      const compare = () => findWebview(page, { text: 'B against A', timeoutMs: 60_000 });
      await waitForText(await compare(), /a difference is "within noise" when the two runs' intervals overlap/);
      await shootAtEachSize(page, compare, `workloads-compare-${theme}`);
    },
    {
      timeoutMs: 240_000,
      workspace: {
        settings: {
          'workbench.colorTheme': themeName,
          'llmBench.simulator.preset': 'tiny',
          'llmBench.requestsPerStep': 60,
          'llmBench.warmupRequests': 0,
          'llmBench.inputTokens': 64,
          'llmBench.outputTokens': 32,
          'llmBench.rampStrategy': 'linear',
          'llmBench.rampStartRate': 5,
          'llmBench.rampEndRate': 40,
          'llmBench.repeatCount': 2,
          'llmBench.repeatPauseSec': 1,
          'llmBench.sessionTurns': 3,
          'llmBench.thinkTimeMs': 50,
        },
      },
    },
  );
}
