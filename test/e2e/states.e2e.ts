// The states a user meets when a run went wrong or measured little (issue 26), pictured in the
// gallery at 1000x700 and 1280x800 in a dark, a light and a high-contrast theme, nothing cut off:
// a run where every request failed (what failed and what to try, no charts of zeros, a failure
// badge), a run of one load (an imported vLLM block: a figure card, not charts of one point), an
// imported GuideLLM table (its means by default, its own step names, unknown counts), a run
// that repeated its profile (means with their 95% band; each repeat's faint points on the toggle),
// two repeated runs compared (each cell says why it is within noise), and the report of an empty
// folder (no runs, and how to make one). Screenshots: .test-artifacts/gallery-<state>-<theme>-<width>.png.
// Then the palette as a new user goes through it, in the same three themes at both sizes, nothing in
// it cut off and its text readable: three numbered questions, labels a field each, the plan on
// Start, and a URL where nothing listens said as such, with the URL corrected in place
// (.test-artifacts/gallery-palette-<question>-<theme>-<width>.png).
import type { Frame, Page } from 'playwright-core';
import { importPastedText } from '../../src/import';
import type { ResultDocument } from '../../src/format/result';
import { startChatEndpoint, type ScriptedServer } from '../helpers/sse-server';
import { makeDocument, type StepShape } from '../helpers/result-documents';
import { GUIDELLM_MEANS_TABLE, vllmBlock } from '../helpers/import-samples';
import { closedPort } from '../helpers/cli-server';
import { answerInputBox, answerQuickPick, explorerContextCommand, findWebview, openFile, pollUntil, quickPickLabels, runCommand, scenario, waitForText, type Fixture } from './harness';
import { shootAtEachSize, shootQuickInputAtEachSize, THEMES } from './harness/layout';

const NOT_FOUND = 'HTTP 404 Not Found from http://127.0.0.1:8000/v1/chat/completions: {"error":{"message":"The model `wrong-model` does not exist.","type":"NotFoundError","param":"model","code":404}}. Check that the base URL ends with /v1.';

/** A sweep 1, 4 where every request was answered 404 with the server's JSON error. */
function everythingFailed(): ResultDocument {
  const doc = makeDocument([1, 4].map((c) => ({ name: `concurrency@${c}`, profile: { kind: 'concurrency' as const, concurrency: c }, requests: 8, ttftMs: 20, gapMs: 5, chunks: 4, failEvery: 1 })));
  for (const step of doc.steps) {
    for (const r of step.requests) Object.assign(r, { httpStatus: 404, error: { kind: 'http', message: NOT_FOUND } });
    step.summary = { ...step.summary!, achievedConcurrency: step.profile.concurrency === 1 ? 0.75 : 2.1, errors: { http: 8 } };
  }
  return { ...doc, status: 'failed', statusReason: `Every measured request failed (16 http); the first: ${NOT_FOUND}` };
}

/** The first run of pasted text, imported as our tool imports it. */
function imported(text: string, source: string): ResultDocument {
  const found = importPastedText(text, source);
  if (!found.ok || !found.value[0]) throw new Error(`${source} did not import: ${found.ok ? 'no run' : found.error}`);
  return found.value[0];
}

const shape = (c: number, ttftMs: number): StepShape => ({ name: `concurrency@${c}`, profile: { kind: 'concurrency', concurrency: c }, requests: 20, ttftMs, gapMs: 8 + c / 4, chunks: 12 });

/** A sweep 1, 4, 16 repeated three times, each repeat's TTFT a little apart. */
function repeated(scale: number): ResultDocument {
  const doc = makeDocument([0, 1, 2].flatMap((r) => [1, 4, 16].map((c) => shape(c, (20 + c * 6 + r * 7) * scale))));
  doc.steps = doc.steps.map((step, i) => ({ ...step, repeat: Math.floor(i / 3) }));
  doc.config = { ...doc.config, repeat: { count: 3, pauseSec: 0 } };
  return doc;
}

const files = {
  'benchmarks/failed.llmbench.json': JSON.stringify(everythingFailed()),
  // vLLM's result block for concurrency 64.
  'benchmarks/one-load.llmbench.json': JSON.stringify(imported(vllmBlock(64, 120), 'vllm-notes.md')),
  'benchmarks/guidellm-means.llmbench.json': JSON.stringify(imported(GUIDELLM_MEANS_TABLE, 'guidellm-notes.md')),
  'benchmarks/repeats.llmbench.json': JSON.stringify(repeated(1)),
  'benchmarks/repeats-slower.llmbench.json': JSON.stringify(repeated(1.15)),
  'empty/notes.txt': 'No result files here.\n',
};

async function openResult(page: Page, name: string, text: string): Promise<Frame> {
  await runCommand(page, 'View: Close All Editors');
  await openFile(page, `benchmarks/${name}`);
  return findWebview(page, { title: name, text, timeoutMs: 60_000 });
}

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `states gallery in the ${theme} theme: everything failed, one load, repeats with the toggle, repeated runs compared, an empty folder's report`,
    async ({ page }) => {
      // Everything failed: the failure said, no chart of zeros, a badge that reads as a failure.
      const failed = await openResult(page, 'failed.llmbench.json', 'Nothing was measured');
      await waitForText(failed, 'The model `wrong-model` does not exist.');
      if ((await failed.locator('.chart-card').count()) > 0) throw new Error('a run that measured nothing still draws charts');
      if ((await failed.locator('.badge.badge-error').count()) === 0) throw new Error('the failed badge does not read as a failure');
      if (/Raise the requests per step/.test(await failed.locator('body').innerText())) throw new Error('the failed run still advises raising the requests');
      await shootAtEachSize(page, () => findWebview(page, { title: 'failed.llmbench.json', text: 'Nothing was measured' }), `failed-${theme}`, undefined, '#run-failure');

      // One load: a figure card, an axis that does not claim a measured concurrency.
      const single = await openResult(page, 'one-load.llmbench.json', 'concurrency@64');
      await waitForText(single, 'configured: the file has no measured concurrency');
      if ((await single.locator('.chart-card').count()) > 0) throw new Error('a run of one load draws charts of one point');
      await shootAtEachSize(page, () => findWebview(page, { title: 'one-load.llmbench.json', text: 'concurrency@64' }), `one-load-${theme}`, undefined, '#figure-card');

      // An imported GuideLLM table: its means by default, its own step names, unknown counts said so, no chart of req/s against itself.
      const guidellm = await openResult(page, 'guidellm-means.llmbench.json', 'constant@1.90 (asynchronous@1.90 req/sec)');
      await waitForText(guidellm, 'unknown');
      if ((await guidellm.locator('[data-chart="requests"]').count()) > 0) throw new Error('an imported table charts req/s against the achieved request rate');
      await shootAtEachSize(page, () => findWebview(page, { title: 'guidellm-means.llmbench.json', text: 'constant@1.90' }), `imported-means-${theme}`);

      // Repeats: means with their band; each repeat's faint points on the toggle.
      const repeats = await openResult(page, 'repeats.llmbench.json', 'Across repeats');
      await repeats.locator('[data-chart="ttft"] canvas').waitFor({ state: 'visible' });
      await shootAtEachSize(page, () => findWebview(page, { title: 'repeats.llmbench.json', text: 'Across repeats' }), `repeats-${theme}`);
      await repeats.locator('#show-repeats').check();
      await repeats.waitForTimeout(500);
      await shootAtEachSize(page, () => findWebview(page, { title: 'repeats.llmbench.json', text: 'Across repeats' }), `repeats-each-${theme}`);

      // Repeated runs compared: every cell says why it is within noise, or not.
      await repeats.locator('#compare-with').click();
      await answerQuickPick(page, 'repeats-slower.llmbench.json');
      const compare = await findWebview(page, { text: 'B against A', timeoutMs: 60_000 });
      await waitForText(compare, 'B: repeats-slower.llmbench.json');
      const reasons = await compare.locator('.delta-table .verdict-reason').allInnerTexts();
      if (reasons.length === 0 || !reasons.some((r) => /^A .* ± .*, B .* ± .*: (overlap|apart)$/.test(r))) throw new Error(`the delta cells do not say why: ${JSON.stringify(reasons.slice(0, 4))}`);
      await shootAtEachSize(page, () => findWebview(page, { text: 'B against A' }), `compare-repeats-${theme}`, undefined, '.delta-table');

      // An empty folder: no runs, and how to make one.
      await runCommand(page, 'View: Close All Editors');
      await explorerContextCommand(page, 'empty', 'Open Benchmark Report');
      const report = await findWebview(page, { title: 'Report', text: 'No benchmark runs to report', timeoutMs: 60_000 });
      if ((await report.locator('canvas, table').count()) > 0) throw new Error('the report of an empty folder still draws tables or charts');
      await shootAtEachSize(page, () => findWebview(page, { title: 'Report', text: 'No benchmark runs to report' }), `report-empty-${theme}`, undefined, '#no-runs');
    },
    { timeoutMs: 300_000, workspace: { settings: { 'workbench.colorTheme': themeName }, files } },
  );
}

const ENDPOINT_NAME = 'Server that is not running';

/** The loopback server the URL is corrected to, and the closed port the setting names first. */
interface TwoUrls {
  server: ScriptedServer;
  closed: number;
}
const servingOneModel: Fixture<TwoUrls> = {
  start: async () => ({ server: await startChatEndpoint(['org/model-alpha'], { pieces: ['one ', 'two'], usage: { prompt_tokens: 8, completion_tokens: 2 } }), closed: await closedPort() }),
  stop: ({ server }) => server.close(),
};

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `palette states gallery in the ${theme} theme at 1000 and 1280 px: three numbered questions, labels a field each, the plan on Start, and a URL where nothing listens corrected in place`,
    async ({ page, fixture }) => {
      // The simulator has no model question: its profile is question 2 of 3, its labels 3 of 3.
      await runCommand(page, 'LLM Bench: Run LLM Benchmark');
      await quickPickLabels(page, '(1/3): endpoint');
      await shootQuickInputAtEachSize(page, `palette-endpoint-${theme}`);
      await answerQuickPick(page, 'Built-in simulator');
      await quickPickLabels(page, '(2/3): profile');
      await shootQuickInputAtEachSize(page, `palette-profile-${theme}`);
      await answerQuickPick(page, 'Concurrency sweep');
      const fields = await quickPickLabels(page, '(3/3): labels');
      for (const key of ['engine', 'gpu', 'gpus', 'quantization']) if (!fields.includes(key)) throw new Error(`the label fields are ${JSON.stringify(fields)}`);
      if (fields.includes('hardware')) throw new Error('the palette still offers hardware, where the command line and import say gpu');
      const placeholder = await page.locator('.quick-input-widget input').getAttribute('placeholder');
      if (placeholder !== 'Set labels (optional), then Start') throw new Error(`the placeholder reads "${placeholder}"`);
      // The plan on Start, read in full at each size (the check of cut text fails an ellipsis).
      await shootQuickInputAtEachSize(page, `palette-labels-${theme}`, {
        whole: /^Plan: /,
        check: async () => {
          const start = await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Start the benchmark' }).innerText();
          if (!/Plan: 3 steps, \d[\d,]* requests \(\+\d+ warm-up\); time: as long as the server takes$/m.test(start)) throw new Error(`the Start item shows no plan: ${start}`);
        },
      });
      // A label's own field, with what the key holds.
      await answerQuickPick(page, 'gpu');
      await pollUntil('the gpu label\'s field', 10_000, async () => ((await page.locator('.quick-input-widget .quick-input-title').innerText().catch(() => '')).includes('gpu') ? true : undefined));
      await shootQuickInputAtEachSize(page, `palette-label-field-${theme}`);
      // Escape leaves the field for the labels question, a second one the palette.
      await page.keyboard.press('Escape');
      await quickPickLabels(page, '(3/3): labels');
      await page.keyboard.press('Escape');
      await pollUntil('the palette to close', 10_000, async () => ((await page.locator('.quick-input-widget').isVisible()) ? undefined : true));

      // Nothing listening: what was tried, what to check, and the URL corrected there.
      await runCommand(page, 'LLM Bench: Run LLM Benchmark');
      await answerQuickPick(page, ENDPOINT_NAME);
      const offered = await quickPickLabels(page, /Nothing answered at/);
      for (const item of ['Change the URL…', 'Try again', 'Type a model name anyway']) if (!offered.includes(item)) throw new Error(`the question offers ${JSON.stringify(offered)}`);
      await shootQuickInputAtEachSize(page, `palette-nothing-listening-${theme}`, {
        check: async () => {
          const tried = await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Change the URL' }).innerText();
          if (!tried.includes(`Tried GET http://127.0.0.1:${fixture.closed}/v1/models`)) throw new Error(`it does not say what was tried: ${tried}`);
        },
      });
      await answerQuickPick(page, 'Change the URL…');
      await answerInputBox(page, fixture.server.baseUrl, { prompt: /Base URL/ });
      const models = await quickPickLabels(page, /model at http/);
      if (!models.includes('org/model-alpha')) throw new Error(`after the URL was corrected, the models offered are ${JSON.stringify(models)}`);
      await page.keyboard.press('Escape');
      await pollUntil('the palette to close', 10_000, async () => ((await page.locator('.quick-input-widget').isVisible()) ? undefined : true));
    },
    {
      fixture: servingOneModel,
      workspace: (f) => ({
        settings: {
          'workbench.colorTheme': themeName,
          'llmBench.simulator.preset': 'tiny',
          'llmBench.concurrencyLevels': [1, 4, 16],
          'llmBench.requestsPerStep': 40,
          'llmBench.endpoints': [{ name: ENDPOINT_NAME, baseUrl: `http://127.0.0.1:${f.closed}/v1` }],
        },
      }),
      timeoutMs: 180_000,
    },
  );
}
