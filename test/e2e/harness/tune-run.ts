// A tune of server flags run as a user starts one, on the built-in simulator as the launched
// server: what the English tune scenarios and the Chinese ones (zh-cn-live.e2e.ts) share.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { parseTuneFile, type TuneFile } from '../../../src/format/tune';
import { answerQuickPick, explorerContextCommand, findWebview, runCommand } from './index';

/** What starting a tune reads in the display language: the words the scenario looks for. */
export interface TuneWords {
  /** The command's title, as the explorer's menu shows it; the palette shows it after "LLM Bench: ". */
  command: string;
  /** The modal's button that confirms the first launch. */
  launch: string;
  /** The live tune panel's tab title. */
  panelTitle: string;
  /** What the live tune panel says once it follows the tune. */
  following: RegExp;
}

export const ENGLISH_TUNE_WORDS: TuneWords = {
  command: 'Tune Server Flags',
  launch: 'Launch',
  panelTitle: 'LLM Bench: Tune',
  following: /Trial \d|Choosing the next trial|Finished/,
};

export const tunePanelTab = (page: Page, words: TuneWords = ENGLISH_TUNE_WORDS) => page.locator('.tabs-container .tab', { hasText: words.panelTitle });

/** The tune file the tuner writes for `sim.llmtune-config.json`, parsed. */
export function readTune(workspace: string): TuneFile {
  const path = join(workspace, 'benchmarks', 'sim.llmtune.json');
  if (!existsSync(path)) throw new Error(`no tune file at ${path}`);
  const parsed = parseTuneFile(readFileSync(path, 'utf8'));
  // The tuner replaces the file atomically: every version parses.
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

/** Runs the tune from the palette (or the config's explorer menu) and confirms its first launch; answers the live panel. */
export async function startTune(page: Page, from: 'palette' | 'explorer', words: TuneWords = ENGLISH_TUNE_WORDS): Promise<Frame> {
  if (from === 'explorer') {
    await explorerContextCommand(page, 'sim.llmtune-config.json', words.command);
  } else {
    await runCommand(page, `LLM Bench: ${words.command}`);
    await answerQuickPick(page, 'sim.llmtune-config.json');
  }
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: 30_000 });
  const detail = await dialog.locator('.dialog-message-detail').innerText();
  if (!/ sim --preset tiny --port \d+ --speedup \d+ --max-num-seqs \d+ /.test(detail)) throw new Error(`the confirmation does not show the exact command: ${detail}`);
  await dialog.locator('.monaco-button', { hasText: words.launch }).click();
  return findWebview(page, { title: words.panelTitle, text: words.following, timeoutMs: 60_000 });
}
