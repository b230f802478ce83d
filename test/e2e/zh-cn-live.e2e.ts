// The live views in Simplified Chinese (issue 27), code-server started with --locale zh-cn as in
// zh-cn.e2e.ts: a short concurrency sweep on the simulator run from the palette, its live panel
// while it runs and once it finished; then a tune of the simulator's flags from the palette (dark) or
// the config's explorer menu (light, high contrast), its live panel while it runs (with the time left)
// and once it ended, and the tune file's editor. Each is shot at 1000 and 1280 px in a dark, a light
// and a high-contrast theme with the English galleries' clipping and contrast checks, and read back:
// the Chinese labels are there, and the English sentences they replaced are not.
// The import review too (VS Code's quick input): the runs found in a page of Chinese notes, and a
// run's labels, in each theme at both sizes, nothing in them cut off.
// Screenshots: .test-artifacts/gallery-zh-cn-{live-running,live,tune-live-running,tune-live,tune-editor,import-runs,import-labels}-<theme>-<width>.png.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { answerQuickPick, explorerContextCommand, findWebview, pollUntil, quickPickLabels, scenario, waitForText } from './harness';
import { expectDisplayLanguage } from './harness/language-pack';
import { boxFits, shootAtEachSize, shootQuickInputAtEachSize, THEMES } from './harness/layout';
import { liveTab, startSimulatorSweep, sweepLasting, type RunWords } from './harness/live-run';
import { readTune, startTune, tunePanelTab, type TuneWords } from './harness/tune-run';
import { simulatorTuneConfig } from '../helpers/tune-documents';
import { NOTES } from '../helpers/import-samples';
import { repoRoot } from '../vscode/harness/tools';

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.nls.zh-cn.json'), 'utf8')) as Record<string, string>;
const bundle = JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const zh = (key: string): string => {
  const text = bundle[key];
  if (text === undefined) throw new Error(`"${key}" is not in l10n/bundle.l10n.zh-cn.json`);
  return text;
};

const RUN_WORDS: RunWords = {
  command: `LLM Bench: ${manifest['command.run']}`,
  simulator: zh('Built-in simulator'),
  concurrencySweep: zh('Concurrency sweep'),
  start: zh('Start the benchmark'),
  liveTitle: zh('LLM Bench: Live'),
  stepRunning: /正在运行第 \d+ \/ \d+ 步/,
};

const TUNE_WORDS: TuneWords = {
  command: manifest['command.tune']!,
  launch: zh('Launch'),
  panelTitle: zh('LLM Bench: Tune'),
  following: /试验 \d|正在选择下一个试验|已结束/,
};

/** Three trials and two candidates re-measured twice: every part of the views shows, in about a minute. */
const TUNE_CONFIG = { ...simulatorTuneConfig({ trials: 3, requests: 8, levels: [2, 8], ttftP99Ms: 2000, speedup: 20, shortRequests: true }), remeasure: { candidates: 2, rounds: 2 } };

/** The text a view shows, without the server's own log and command (data, in the server's words). */
async function viewText(frame: Frame): Promise<string> {
  return frame.evaluate(() => {
    const body = document.body.cloneNode(true) as HTMLElement;
    for (const data of body.querySelectorAll('.server-log, .server-command, .hidden, script')) data.remove();
    return body.innerText || body.textContent || '';
  });
}

/** `frame` reads `chinese` and none of `english` (the sentences the Chinese replaced). */
async function expectWords(frame: Frame, what: string, chinese: readonly (string | RegExp)[], english: readonly string[]): Promise<void> {
  await expectDisplayLanguage(frame, 'zh-cn', what);
  const text = await viewText(frame);
  const missing = chinese.filter((words) => (typeof words === 'string' ? !text.includes(words) : !words.test(text)));
  const left = english.filter((words) => text.includes(words));
  if (missing.length > 0 || left.length > 0) throw new Error(`${what}: ${missing.length > 0 ? `no ${missing.map(String).join(', ')}; ` : ''}${left.length > 0 ? `English left: ${left.join(', ')}; ` : ''}it reads: ${text.slice(0, 1500)}`);
}

const LIVE_ENGLISH = ['Running step', 'requests done', ' in flight', '(running)', 'left in this step', 'Throughput over time', 'TTFT per step', 'Saving to', 'Saved to', 'Finished (', 'marks the running step', 'Means over successful requests', 'Steps', 'keeps easily'];
const TUNE_ENGLISH = ['Trial ', 'trials done', 'left in the tune', 'launching its server', 'benchmarking', 'Choosing the next trial', 'Re-measuring', 'Finished (', 'Objective per trial', 'Best: trial', 'one measurement', 'mean of ', 'Noise:', 'Parameter effects', 'Tune file:', 'Server log'];

/** The settings of a two-step sweep on the tiny simulator of about 20 s: long enough to picture it running. */
const SWEEP = sweepLasting(20).workspace;
const SWEEP_SETTINGS = typeof SWEEP === 'function' ? {} : SWEEP?.settings;

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `zh-cn in the ${theme} theme: a sweep's live panel, a tune's live panel and its editor in Chinese at 1000 and 1280 px`,
    async ({ page, workspace }) => {
      // The sweep, from the palette: its panel while a step runs, then once the run finished.
      const started = await startSimulatorSweep(page, RUN_WORDS);
      // Past the step's first requests ("正在发送首批请求"): its progress line counts them.
      await pollUntil("the step's progress line", 30_000, async () => (/已完成 \d+/.test(await started.locator('#step-detail').innerText().catch(() => '')) ? true : undefined));
      const live = () => findWebview(page, { title: RUN_WORDS.liveTitle });
      await expectWords(await live(), 'the live panel while it runs', [RUN_WORDS.stepRunning, /已完成 \d+ \/ \d+ 个请求/, '首 token 延迟 (TTFT)', '吞吐量随时间变化'], LIVE_ENGLISH);
      await shootAtEachSize(page, live, `zh-cn-live-running-${theme}`, (frame) => boxFits(frame, '#steps-table .table-scroll', "the live panel's step table"));
      // The result opens over the panel as the run ends.
      await findWebview(page, { title: 'llmbench.json', text: zh('Steps'), timeoutMs: 120_000 });
      await liveTab(page, RUN_WORDS.liveTitle).click();
      const finished = () => findWebview(page, { title: RUN_WORDS.liveTitle, text: '已结束（已完成）', timeoutMs: 30_000 });
      await expectWords(await finished(), 'the finished live panel', [/已结束（已完成），共 2 步，用时/, /已保存到 .*\.llmbench\.json/], LIVE_ENGLISH);
      await shootAtEachSize(page, finished, `zh-cn-live-${theme}`, (frame) => boxFits(frame, '#steps-table .table-scroll', "the live panel's step table"));

      // The tune: its panel while a trial runs and the time left is known, then ended, and its file's editor.
      const tunePanel = await startTune(page, theme === 'dark' ? 'palette' : 'explorer', TUNE_WORDS);
      await pollUntil('the time left in the tune', 120_000, async () => (/调优约剩/.test(await tunePanel.locator('#tune-eta').innerText().catch(() => '')) ? true : undefined));
      const running = () => findWebview(page, { title: TUNE_WORDS.panelTitle });
      await expectWords(await running(), 'the live tune panel while it runs', [/已完成 \d \/ 3 个试验，目前每个试验用时/, '调优文件：', '服务端日志'], TUNE_ENGLISH);
      await shootAtEachSize(page, running, `zh-cn-tune-live-running-${theme}`);
      const tune = await pollUntil('the tune to finish', 240_000, async () => {
        const shown = readTune(workspace);
        return shown.status === 'running' ? undefined : shown;
      });
      if (tune.status !== 'complete' || tune.trials.length !== 3) throw new Error(`the tune file says ${tune.status} with ${tune.trials.length} trials`);
      const editor = () => findWebview(page, { title: 'sim.llmtune.json', text: zh('Parameter effects'), timeoutMs: 60_000 });
      await expectWords(await editor(), 'the tune editor', [/3 个试验中的 3 个：.*。最佳：/, /最佳：试验 \d/, /\d+ 次复测的均值/, '已完成'], TUNE_ENGLISH);
      await shootAtEachSize(page, editor, `zh-cn-tune-editor-${theme}`);
      await tunePanelTab(page, TUNE_WORDS).click();
      const ended = () => findWebview(page, { title: TUNE_WORDS.panelTitle, text: '已结束（已完成）' });
      await waitForText(await ended(), '已结束（已完成）');
      await expectWords(await ended(), 'the ended live tune panel', ['已结束（已完成）', /最佳：试验 \d/], TUNE_ENGLISH);
      await shootAtEachSize(page, ended, `zh-cn-tune-live-${theme}`);
    },
    {
      locale: 'zh-cn',
      timeoutMs: 420_000,
      workspace: {
        settings: { ...SWEEP_SETTINGS, 'workbench.colorTheme': themeName },
        files: { 'sim.llmtune-config.json': JSON.stringify(TUNE_CONFIG, null, 2) },
      },
    },
  );
}

/** The quick input's title and rows as text. */
const quickInputText = (page: Parameters<typeof quickPickLabels>[0]) => page.locator('.quick-input-widget').innerText();

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `zh-cn in the ${theme} theme: the import review's runs and a run's labels in Chinese at 1000 and 1280 px`,
    async ({ page }) => {
      await explorerContextCommand(page, 'notes.md', manifest['command.importResults']!);
      const runs = await quickPickLabels(page, /^LLM Bench: 找到 2 次运行、4 步/);
      const second = zh('Run {0}: {1}').replace('{0}', '2').replace('{1}', 'Qwen2-7B-Instruct-AWQ');
      if (!runs.includes(second)) throw new Error(`the review lists ${JSON.stringify(runs)}`);
      await shootQuickInputAtEachSize(page, `zh-cn-import-runs-${theme}`, {
        check: async () => {
          const text = await quickInputText(page);
          for (const english of ['found', 'pick a run', 'Run 1', 'steps', 'Write 2 result files', 'no labels']) if (text.includes(english)) throw new Error(`the review reads English "${english}": ${text}`);
        },
      });
      await answerQuickPick(page, second);
      await quickPickLabels(page, /^运行 2 的标签/);
      await shootQuickInputAtEachSize(page, `zh-cn-import-labels-${theme}`, {
        check: async () => {
          const text = await quickInputText(page);
          for (const english of ['Labels of run', 'Pick a label', 'Done', 'Back to the runs found', 'Add a label']) if (text.includes(english)) throw new Error(`the labels read English "${english}": ${text}`);
        },
      });
      await page.keyboard.press('Escape');
    },
    { locale: 'zh-cn', timeoutMs: 120_000, workspace: { settings: { 'workbench.colorTheme': themeName }, files: { 'notes.md': NOTES } } },
  );
}
