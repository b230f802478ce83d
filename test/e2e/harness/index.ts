// End-to-end harness: headless Chromium (playwright-core) driving VS Code's workbench served by
// code-server, with the extension installed from its VSIX. test/e2e/run.ts runs every
// out/test/e2e/*.e2e.js in name order, one code-server and one browser for the whole run.
//
// Writing a scenario file, test/e2e/<area>.e2e.ts:
//
//   import { scenario, runCommand, answerQuickPick, answerInputBox, findWebview, waitForText } from './harness';
//
//   scenario('run from the palette shows the live panel', async ({ page, workspace }) => {
//     await runCommand(page, 'LLM Bench: Run LLM Benchmark');
//     await answerQuickPick(page, 'Built-in simulator');
//     await answerInputBox(page, 'my-label', { prompt: 'Engine' });
//     const live = await findWebview(page, { title: 'LLM Bench: Live' });   // the webview's <title>
//     await waitForText(live, 'Step 1');
//   }, { workspace: { settings: { 'llmBench.resultsDirectory': 'out' }, files: { 'a.json': '{}' } } });
//
// - Each scenario gets a fresh workspace folder (harness/workspace.ts: .vscode/settings.json from
//   `workspace.settings`, an empty benchmarks/, `workspace.files`) opened in a new browser context.
//   The code-server (user settings, global state, secrets) is shared by all scenarios of a run.
// - A scenario fails by throwing; it then gets a screenshot in .test-artifacts/e2e-<name>.png.
//   Its time limit is `timeoutMs` (default 120 s); each wait below has its own `timeoutMs` too.
// - Extension commands reach the palette some seconds after the workbench shows: runCommand reopens
//   the palette until the command is listed. Native dialogs do not exist in the web workbench.
// - Run one file: node scripts/test.mjs --no-setup --tier e2e, or node out/test/e2e/run.js FILTER
//   (FILTER keeps scenarios whose file or name contains it).
import type { Frame, Page } from 'playwright-core';
import type { CodeServer } from '../../vscode/harness/code-server';
import type { WorkspaceOptions } from '../../vscode/harness/workspace';

export { saveScreenshot } from '../../vscode/harness/browser';

export interface ScenarioContext {
  /** The workbench, loaded on `workspace`. */
  page: Page;
  /** Absolute path of the scenario's workspace folder (on this machine: code-server runs here). */
  workspace: string;
  server: CodeServer;
}

export interface ScenarioOptions {
  workspace?: WorkspaceOptions;
  /** Time limit for the whole scenario (default 120 s). */
  timeoutMs?: number;
}

export interface Scenario {
  name: string;
  file: string;
  run: (context: ScenarioContext) => Promise<void>;
  options: ScenarioOptions;
}

export const registeredScenarios: Scenario[] = [];
let loadingFile = '';

/** Called by the runner before it loads each scenario file, so scenarios know where they come from. */
export function setLoadingFile(file: string): void {
  loadingFile = file;
}

export function scenario(name: string, run: (context: ScenarioContext) => Promise<void>, options: ScenarioOptions = {}): void {
  registeredScenarios.push({ name, file: loadingFile, run, options });
}

const defaultTimeoutMs = 30_000;
const quickInput = '.quick-input-widget';
const quickInputRows = `${quickInput} .quick-input-list .monaco-list-row`;

async function pollUntil<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const matches = (text: string, expected: string | RegExp): boolean =>
  typeof expected === 'string' ? text.includes(expected) : expected.test(text);

/** Waits until the workbench shows its status bar and explorer (after goto or reload). */
export async function waitForWorkbench(page: Page, timeoutMs = 60_000): Promise<void> {
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.monaco-workbench .explorer-folders-view').waitFor({ state: 'visible', timeout: timeoutMs });
}

/** The labels of the rows the open quick input lists now. */
async function quickInputLabels(page: Page): Promise<string[]> {
  return page
    .locator(`${quickInputRows} .label-name`)
    .evaluateAll((names) => names.map((n) => (n.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

async function clickQuickInputRow(page: Page, label: string): Promise<void> {
  const row = page.locator(quickInputRows).filter({ has: page.locator('.label-name', { hasText: label }) });
  await row.first().click();
}

async function closeQuickInput(page: Page): Promise<void> {
  if (await page.locator(quickInput).isVisible()) await page.keyboard.press('Escape');
}

/**
 * Opens the command palette and waits until it lists the command titled `title` ("Category: Title"),
 * reopening it meanwhile (the palette does not refresh while open, and extension commands arrive
 * late). The palette stays open with the command's row showing.
 */
export async function waitForCommand(page: Page, title: string, { timeoutMs = 60_000 } = {}): Promise<void> {
  await pollUntil(`the command "${title}" in the command palette`, timeoutMs, async () => {
    await closeQuickInput(page);
    await page.keyboard.press('F1');
    const input = page.locator(`${quickInput} input`);
    await input.waitFor({ state: 'visible', timeout: defaultTimeoutMs });
    await input.fill(`>${title}`);
    const listed = await pollUntil('palette rows', 2_000, async () => ((await quickInputLabels(page)).includes(title) ? true : undefined)).catch(
      () => undefined,
    );
    if (listed) return true;
    await page.keyboard.press('Escape');
    await new Promise((r) => setTimeout(r, 750));
    return undefined;
  });
}

/** Runs a command by its palette title ("Category: Title") once the palette lists it. */
export async function runCommand(page: Page, title: string, options: { timeoutMs?: number } = {}): Promise<void> {
  await waitForCommand(page, title, options);
  await clickQuickInputRow(page, title);
}

/** Picks the item whose label is `label` in the quick pick now showing (typing it in as a filter first). */
export async function answerQuickPick(page: Page, label: string, { timeoutMs = defaultTimeoutMs } = {}): Promise<void> {
  const input = page.locator(`${quickInput} input`);
  await input.waitFor({ state: 'visible', timeout: timeoutMs });
  await pollUntil(`a quick pick listing "${label}"`, timeoutMs, async () => {
    const labels = await quickInputLabels(page);
    if (labels.includes(label)) return true;
    // A long list shows only its first rows: filter it down to the label.
    if ((await input.inputValue()) !== label) await input.fill(label);
    return undefined;
  });
  await clickQuickInputRow(page, label);
}

/**
 * Types `value` into the input box now showing and accepts it. `prompt` (matched against the box's
 * title, prompt and placeholder) makes sure it is the expected box, not the previous step's.
 */
export async function answerInputBox(
  page: Page,
  value: string,
  { prompt, timeoutMs = defaultTimeoutMs }: { prompt?: string | RegExp; timeoutMs?: number } = {},
): Promise<void> {
  const input = page.locator(`${quickInput} input`);
  await pollUntil(`an input box${prompt ? ` asking "${prompt}"` : ''}`, timeoutMs, async () => {
    if (!(await input.isVisible())) return undefined;
    if (prompt === undefined) return true;
    const texts = await page.locator(quickInput).evaluate((widget) => {
      const field = widget.querySelector('input');
      const pick = (selector: string): string => widget.querySelector(selector)?.textContent ?? '';
      return [pick('.quick-input-title'), pick('.quick-input-message'), field?.placeholder ?? '', field?.getAttribute('aria-label') ?? ''];
    });
    return texts.some((text) => matches(text, prompt)) ? true : undefined;
  });
  await input.fill(value);
  await input.press('Enter');
}

/** Opens a file in an editor through Quick Open: a workspace-relative or absolute path. */
export async function openFile(page: Page, path: string, { timeoutMs = defaultTimeoutMs } = {}): Promise<void> {
  const name = path.split('/').pop() ?? path;
  await closeQuickInput(page);
  await page.keyboard.press('F1');
  const input = page.locator(`${quickInput} input`);
  await input.waitFor({ state: 'visible', timeout: timeoutMs });
  // Without the palette's ">" the same box is Quick Open (files).
  await input.fill(path);
  await pollUntil(`Quick Open to list ${path}`, timeoutMs, async () => ((await quickInputLabels(page)).includes(name) ? true : undefined));
  await clickQuickInputRow(page, name);
  await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ state: 'visible', timeout: timeoutMs });
}

export interface WebviewMatch {
  /** Matched against the webview document's <title> (a substring, or a RegExp). */
  title?: string | RegExp;
  /** Matched against the text the webview shows. */
  text?: string | RegExp;
  timeoutMs?: number;
}

/** The content frame of a webview (they are nested iframes) whose title and/or text match. */
export async function findWebview(page: Page, { title, text, timeoutMs = defaultTimeoutMs }: WebviewMatch): Promise<Frame> {
  const wanted = [title && `title "${title}"`, text && `text "${text}"`].filter(Boolean).join(' and ');
  return pollUntil(`a webview with ${wanted || 'any content'}`, timeoutMs, async () => {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      const content = await frame
        .evaluate(() => ({ title: document.title, text: document.body?.innerText ?? '', frames: document.querySelectorAll('iframe').length }))
        .catch(() => undefined);
      // Skip the outer host frames: the content is the innermost document.
      if (!content || content.frames > 0) continue;
      if (title !== undefined && !matches(content.title, title)) continue;
      if (text !== undefined && !matches(content.text, text)) continue;
      return frame;
    }
    return undefined;
  });
}

/** Waits until `frame` (e.g. a webview from findWebview) shows `text`. */
export async function waitForText(frame: Frame, text: string | RegExp, { timeoutMs = defaultTimeoutMs } = {}): Promise<void> {
  await pollUntil(`the text "${text}" in ${frame.url()}`, timeoutMs, async () => {
    const shown = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
    return matches(shown, text) ? true : undefined;
  });
}

/** Waits for a notification toast whose message contains `text`; returns its whole message. */
export async function waitForNotification(page: Page, text: string | RegExp, { timeoutMs = defaultTimeoutMs } = {}): Promise<string> {
  return pollUntil(`a notification "${text}"`, timeoutMs, async () => {
    const messages = await page
      .locator('.notifications-toasts .notification-list-item-message')
      .evaluateAll((items) => items.map((item) => item.textContent ?? ''));
    return messages.find((message) => matches(message, text));
  });
}

/**
 * Collects what the browser console reports as blocked by a Content Security Policy, in any frame;
 * the returned function throws if anything was. It sees console reports only: a violation the page
 * catches without a console message (zod's eval probe) does not show here.
 */
export function watchCsp(page: Page): () => void {
  const violations: string[] = [];
  page.on('console', (message) => {
    const { url, lineNumber } = message.location();
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(`${message.text()} (at ${url}:${lineNumber})`);
  });
  return () => {
    if (violations.length > 0) throw new Error(`CSP violations: ${violations.join(' | ')}`);
  };
}
