// The extension in Simplified Chinese (issue 27): code-server started with --locale zh-cn. There is
// no zh-hans language pack offline, so VS Code's own UI stays English; the extension's manifest
// strings (package.nls.zh-cn.json) and its l10n bundle (l10n/bundle.l10n.zh-cn.json) load all the
// same, and the views draw in Chinese. Two concurrency sweeps run by the real engine against the
// simulator are opened as a result, compared, and reported, each screenshotted at 1000 and 1280 px
// in a dark, a light and a high-contrast theme, with the clipping and contrast checks of the English
// gallery (Chinese strings have other widths). Screenshots: .test-artifacts/gallery-zh-cn-<view>-<theme>-<width>.png.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { answerQuickPick, explorerContextCommand, findWebview, openFile, scenario, waitForText } from './harness';
import { boxFits, shootAtEachSize, THEMES } from './harness/layout';
import { writeSimRuns } from './harness/sim-runs';
import { repoRoot } from '../vscode/harness/tools';

const manifestChinese = JSON.parse(readFileSync(join(repoRoot, 'package.nls.zh-cn.json'), 'utf8')) as Record<string, string>;

/** The page's display language, as the host wrote it (vscode.env.language, webview-html.ts). */
async function pageLanguage(frame: Frame): Promise<string> {
  return frame.evaluate(() => document.documentElement.lang);
}

async function expectChinese(frame: Frame, what: string): Promise<void> {
  const lang = await pageLanguage(frame);
  if (lang !== 'zh-cn') throw new Error(`${what}: vscode.env.language is '${lang}', not 'zh-cn'`);
}

/** The first element at `selector` reads `text`: what the views word themselves (a status, a count) is Chinese too. */
async function expectText(frame: Frame, selector: string, text: string, what: string): Promise<void> {
  const found = (await frame.locator(selector).first().textContent())?.trim();
  if (found !== text) throw new Error(`${what}: ${selector} reads '${found}', not '${text}'`);
}

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `zh-cn in the ${theme} theme: the result, compare and the report in Chinese at 1000 and 1280 px`,
    async ({ page, workspace }) => {
      const sim = { preset: 'tiny' as const, engine: { maxNumSeqs: 8 } };
      await writeSimRuns(join(workspace, 'benchmarks'), sim, [
        { name: 'vllm-L20', labels: { engine: 'vllm', gpu: 'L20' }, inputTokens: 64, outputTokens: 32, levels: [1, 4, 16], requests: 40, seed: 1 },
        { name: 'sglang-L20', labels: { engine: 'sglang', gpu: 'L20' }, inputTokens: 64, outputTokens: 32, levels: [1, 4, 16], requests: 40, seed: 2 },
      ]);

      await openFile(page, 'benchmarks/vllm-L20.llmbench.json');
      const result = () => findWebview(page, { title: 'vllm-L20.llmbench.json', text: '各步', timeoutMs: 60_000 });
      await expectChinese(await result(), 'the result editor');
      await waitForText(await result(), '首 token 延迟 (TTFT)');
      await expectText(await result(), 'h1 .badge', '已完成', "the result's status badge");
      await expectText(await result(), '.step-table tbody tr td:last-child', '40 个中 0 个', "the result's failures column");
      await waitForText(await result(), '自动：负载最重的步');
      await shootAtEachSize(page, result, `zh-cn-result-${theme}`, (frame) => boxFits(frame, '.step-table-block .table-scroll', "the result table's default columns"));

      // Compare With... (its quick pick lists the other file).
      await (await result()).locator('#compare-with').click();
      await answerQuickPick(page, 'sglang-L20.llmbench.json');
      const compare = () => findWebview(page, { text: 'B 相对 A', timeoutMs: 60_000 });
      await expectChinese(await compare(), 'compare');
      await waitForText(await compare(), '两次运行');
      await expectText(await compare(), 'h2 .badge', '已完成', "compare's status badge");
      await shootAtEachSize(page, compare, `zh-cn-compare-${theme}`);

      // The explorer's menu item is the manifest's Chinese title: package.nls.zh-cn.json loaded.
      await explorerContextCommand(page, 'benchmarks', manifestChinese['command.openReport']!);
      const report = () => findWebview(page, { text: '排名', timeoutMs: 60_000 });
      await expectChinese(await report(), 'the report');
      await waitForText(await report(), '拐点');
      await shootAtEachSize(page, report, `zh-cn-report-${theme}`, (frame) => boxFits(frame, '.data-table.ranking', 'the ranking', true), '.report-legend');
    },
    {
      locale: 'zh-cn',
      timeoutMs: 240_000,
      workspace: { settings: { 'workbench.colorTheme': themeName } },
    },
  );
}
