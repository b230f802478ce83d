// The many-run report in the browser: four real runs (two simulated engines labelled vllm and
// sglang, two runs each) are written into the workspace's benchmarks/ folder, the report opens on
// that folder from the explorer's context menu, and grouping by `engine` redraws the overlaid
// curves with their knees and ranks every run; after Reload Window the report comes back as it was.
// Screenshots of the report (tables, then curves) in three themes at 1000 and 1280 px land in
// .test-artifacts/gallery-report-4-runs-*.png; at both sizes the ranking shows every column and
// the toolbar keeps "Export" with its buttons.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import type { ResultDocument } from '../../src/format/result';
import type { SimOptionsInput } from '../../src/sim';
import { explorerContextCommand, findWebview, pollUntil, reloadWindow, scenario, waitForText } from './harness';
import { boxFits, shootAtEachSize, THEMES } from './harness/layout';
import { writeSimRuns } from './harness/sim-runs';

// Two engines on the tiny preset, batching at most 12 and 6 sequences (the second stepping slower):
// both are saturated from concurrency 16 on, even on a busy machine, so every curve bends inside
// the sweep and has a knee. The last level, 64, with 96 requests keeps about 43 in flight (48 with
// 48 requests kept only about 26, one wave draining), so the flat stretch after the knee is long.
const engines: { engine: string; sim: SimOptionsInput }[] = [
  { engine: 'vllm', sim: { preset: 'tiny', engine: { maxNumSeqs: 12 } } },
  { engine: 'sglang', sim: { preset: 'tiny', engine: { maxNumSeqs: 6 }, hardware: { stepBaseMs: 1.5 } } },
];
const gpus = ['A100', 'L20'];

/** Runs each simulated engine twice (a concurrency sweep of a second or two) into `folder`; answers the file names and documents. */
async function writeRuns(folder: string): Promise<{ files: string[]; documents: ResultDocument[] }> {
  const names: string[] = [];
  const documents: ResultDocument[] = [];
  for (const { engine, sim } of engines) {
    const runs = gpus.map((gpu, run) => ({
      name: `${engine}-${gpu}`,
      // gpu comes first: the report's first grouping is by it, so choosing engine is a change.
      labels: { gpu, engine },
      inputTokens: 64,
      outputTokens: 32,
      levels: [1, 4, 16, 64],
      requests: 96,
      seed: run + 1,
    }));
    documents.push(...(await writeSimRuns(folder, sim, runs)));
    names.push(...runs.map((run) => `${run.name}.llmbench.json`));
  }
  return { files: names, documents };
}

/** The text of one column of a table, row by row: a cell's `line`-th line (a cell may stack a run over its group, a step over its load). */
async function column(frame: Frame, table: string, index: number, line = 0): Promise<string[]> {
  return frame
    .locator(`${table} tbody tr`)
    .evaluateAll((rows, [i, n]) => rows.map((row) => ((row.children[i] as HTMLElement | undefined)?.innerText ?? '').split('\n')[n]?.trim() ?? ''), [index, line] as const);
}

/** Waits until a column reads `expected` (the host answers an option with a new model). */
async function waitForColumn(frame: Frame, table: string, index: number, expected: string[], timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await column(frame, table, index);
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) throw new Error(`column ${index} of ${table}: expected ${JSON.stringify(expected)}, saw ${JSON.stringify(seen)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A chart card's counts, and whether its canvas stayed blank for 5 s (charts are drawn a frame after the tables). */
async function chartCard(frame: Frame, id: string): Promise<{ curves: number; knees: number; blank: boolean }> {
  const card = frame.locator(`[data-chart="${id}"]`);
  await card.locator('canvas').waitFor({ state: 'visible' });
  const isBlank = () =>
    card.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
      const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
      return !data || data.every((value, i) => i % 4 !== 3 || value === 0);
    });
  const blank = await pollUntil(`the ${id} chart drawn`, 5_000, async () => ((await isBlank()) ? undefined : false)).catch(() => true);
  return { curves: Number(await card.getAttribute('data-curves')), knees: Number(await card.getAttribute('data-knees')), blank };
}

function expectEqual<T>(what: string, actual: T, expected: T): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, saw ${JSON.stringify(actual)}`);
}

scenario(
  'a folder of results opens as a report; grouping by engine overlays the curves with knees and ranks the runs',
  async ({ page, workspace }) => {
    const { files, documents } = await writeRuns(join(workspace, 'benchmarks'));
    await explorerContextCommand(page, 'benchmarks', 'Open Benchmark Report');
    const report = await findWebview(page, { title: 'Benchmark Report: benchmarks', text: 'Ranking', timeoutMs: 60_000 });
    const runsTable = '.data-table.runs';
    await waitForText(report, files[0]!.replace('.llmbench.json', ''));
    const sources = await column(report, runsTable, 0);
    expectEqual('runs listed', sources.length, files.length);
    const groupsBy = (pick: (name: string) => string) => sources.map(pick);
    const gpuOf = (name: string) => (name.includes('-A100') ? 'A100' : 'L20');
    const engineOf = (name: string) => (name.includes('sglang-') ? 'sglang' : 'vllm');
    expectEqual('first grouping (the first label telling runs apart)', await column(report, runsTable, 1), groupsBy(gpuOf));

    const groupBy = report.locator('#group-by');
    expectEqual('the group-by dropdown shows the grouping', await groupBy.evaluate((node) => (node as HTMLElement & { value: string }).value), 'gpu');
    await groupBy.click();
    await groupBy.getByRole('option', { name: 'engine', exact: true }).click();
    await waitForColumn(report, runsTable, 1, groupsBy(engineOf));

    for (const id of ['requestsPerSecond', 'outputTokensPerSecond', 'latencyMs', 'ttftMs', 'itlMs', 'tpotMs', 'failures', 'tradeoff']) {
      const card = await chartCard(report, id);
      if (card.blank) throw new Error(`the ${id} chart canvas is blank`);
      expectEqual(`curves on the ${id} chart`, card.curves, files.length);
    }
    const throughput = await chartCard(report, 'outputTokensPerSecond');
    if (throughput.knees !== files.length) {
      // Say which curve lacks its knee, with its points, so that a failure can be read from the log.
      const curves = documents.map((doc, i) => `${files[i]}: ${doc.steps.map((s) => `${s.summary?.achievedConcurrency?.toFixed(1)} in flight → ${s.summary?.outputTokensPerSecond?.toFixed(0)} tok/s`).join(', ')}`);
      throw new Error(`knees marked on the throughput chart: expected ${files.length}, saw ${throughput.knees}; the curves: ${curves.join(' | ')}`);
    }

    const ranking = '.data-table.ranking';
    // Runs within noise of the one above share its rank, marked ≈ (the compare view's rule).
    const ranks = await column(report, ranking, 0);
    const expectedRanks = ranks.reduce<string[]>((done, rank, i) => [...done, rank.startsWith('\u2248') ? `\u2248${(done[i - 1] ?? '').replace('\u2248', '')}` : String(i + 1)], []);
    expectEqual('ranks, ties sharing the rank above', ranks, expectedRanks);
    expectEqual('ranks counted', ranks.length, 4);
    // The run with its group under it, the heaviest step with its load under it.
    const rankedRuns = await column(report, ranking, 1);
    expectEqual('ranked runs', [...rankedRuns].sort(), [...sources].sort());
    const rankedGroups = await column(report, ranking, 1, 1);
    expectEqual('ranked groups', rankedGroups, rankedRuns.map(engineOf));
    // Without an SLO every step qualifies: the heaviest one ranks, and each run's knee is named.
    expectEqual('ranked steps', await column(report, ranking, 2), Array(files.length).fill('concurrency@64'));
    const loads = await column(report, ranking, 2, 1);
    if (!loads.every((load) => /^\d+\.\d in flight$/.test(load))) throw new Error(`each load with its unit, saw ${loads.join(', ')}`);
    // The knee table lists the runs in the ranking's order.
    const kneeTable = '.data-table.knees';
    expectEqual('knees in the ranking\'s order', await column(report, kneeTable, 0), rankedRuns);
    const knees = await column(report, kneeTable, 1);
    if (!knees.every((knee) => /^concurrency@\d+$/.test(knee))) throw new Error(`every run should have a knee, saw ${knees.join(', ')}`);

    // Four runs pictured at 1000 and 1280 px in each theme, nothing cut off; the theme changes
    // through the workspace's settings file, as a user's would.
    const settingsFile = join(workspace, '.vscode', 'settings.json');
    for (const [theme, themeName] of Object.entries(THEMES)) {
      const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
      writeFileSync(settingsFile, JSON.stringify({ ...settings, 'workbench.colorTheme': themeName }, null, 2));
      await page.waitForTimeout(1_500);
      await shootAtEachSize(page, () => findWebview(page, { title: 'Benchmark Report: benchmarks', text: 'Ranking' }), `report-4-runs-${theme}`, async (frame) => {
        await boxFits(frame, '.data-table.ranking', 'the ranking', true);
        // At 1000 px the toolbar wrapped between "Export" and its buttons.
        const apart = await frame.locator('#export-html').evaluate((button) => {
          const toolbar = button.closest('.toolbar');
          const walker = document.createTreeWalker(toolbar ?? document.body, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            if (node.textContent?.trim() !== 'Export') continue;
            const range = document.createRange();
            range.selectNodeContents(node);
            const [word, first] = [range.getBoundingClientRect(), button.getBoundingClientRect()];
            return Math.abs(word.top + word.height / 2 - (first.top + first.height / 2)) > first.height / 2;
          }
          return true;
        });
        if (apart) throw new Error('"Export" and its buttons are on different lines');
      }, '.report-legend');
    }

    // The panel comes back by itself after a reload, on the same runs and grouping.
    await reloadWindow(page);
    const restored = await findWebview(page, { title: 'Benchmark Report: benchmarks', text: 'Ranking', timeoutMs: 60_000 });
    await waitForColumn(restored, runsTable, 0, sources);
    await waitForColumn(restored, runsTable, 1, groupsBy(engineOf));
  },
  { timeoutMs: 240_000, workspace: { settings: { 'workbench.colorTheme': 'Default Dark Modern' } } },
);
