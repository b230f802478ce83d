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
// - A `fixture` (e.g. a loopback server) is started before the workspace is made, so that
//   `workspace` may be a function of it (settings naming its URL); the scenario receives it as
//   `fixture`, and it is stopped when the scenario ends, passed or failed.
// - A scenario fails by throwing, and when any frame (the workbench or a webview inside it) met a
//   Content Security Policy violation; it then gets a screenshot in .test-artifacts/e2e-<name>.png.
//   Its time limit is `timeoutMs` (default 120 s); each wait below has its own `timeoutMs` too.
// - Extension commands reach the palette some seconds after the workbench shows: runCommand reopens
//   the palette until the command is listed. Native dialogs do not exist in the web workbench.
// - Run one file: node scripts/test.mjs --no-setup --tier e2e, or node out/test/e2e/run.js FILTER
//   (FILTER keeps scenarios whose file or name contains it).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { parseResultDocument, type ResultDocument } from '../../../src/format/result';
import { extensionManifest, type CodeServer } from '../../vscode/harness/code-server';
import type { WorkspaceOptions } from '../../vscode/harness/workspace';

export { saveScreenshot } from '../../vscode/harness/browser';

export interface ScenarioContext<F = undefined> {
  /** The workbench, loaded on `workspace`. */
  page: Page;
  /** Absolute path of the scenario's workspace folder (on this machine: code-server runs here). */
  workspace: string;
  server: CodeServer;
  /** The CSP violations seen so far in any frame (a scenario testing the watcher itself may empty it). */
  cspViolations: string[];
  /** What the scenario's `fixture` started. */
  fixture: F;
}

/** Something a scenario needs running around it, e.g. a loopback server. */
export interface Fixture<F> {
  start(): Promise<F>;
  stop(value: F): Promise<void>;
}

export interface ScenarioOptions<F = undefined> {
  /** The workspace to open; a function receives the fixture (its server's URL for the settings). */
  workspace?: WorkspaceOptions | ((fixture: F) => WorkspaceOptions);
  fixture?: Fixture<F>;
  /** Time limit for the whole scenario (default 120 s). */
  timeoutMs?: number;
  /** The display language code-server starts with (`--locale`); the runner starts one code-server per language. */
  locale?: string;
}

/** A scenario ready to run: its fixture started, its workspace known. */
export interface PreparedScenario {
  workspace: WorkspaceOptions | undefined;
  run(context: Omit<ScenarioContext, 'fixture'>): Promise<void>;
  stop(): Promise<void>;
}

export interface Scenario {
  name: string;
  file: string;
  timeoutMs: number | undefined;
  locale: string | undefined;
  /** Starts the fixture (part of the scenario's time). */
  prepare(): Promise<PreparedScenario>;
}

export const registeredScenarios: Scenario[] = [];
let loadingFile = '';

/** Called by the runner before it loads each scenario file, so scenarios know where they come from. */
export function setLoadingFile(file: string): void {
  loadingFile = file;
}

export function scenario<F = undefined>(name: string, run: (context: ScenarioContext<F>) => Promise<void>, options: ScenarioOptions<F> = {}): void {
  const { fixture, workspace, timeoutMs, locale } = options;
  registeredScenarios.push({
    name,
    file: loadingFile,
    timeoutMs,
    locale,
    prepare: async () => {
      // Without a fixture, F is undefined (the default type argument).
      const value = (fixture ? await fixture.start() : undefined) as F;
      return {
        workspace: typeof workspace === 'function' ? workspace(value) : workspace,
        run: (context) => run({ ...context, fixture: value }),
        stop: async () => fixture?.stop(value),
      };
    },
  });
}

const defaultTimeoutMs = 30_000;
const quickInput = '.quick-input-widget';
const quickInputRows = `${quickInput} .quick-input-list .monaco-list-row`;

/** Calls `probe` every 250 ms until it answers something other than undefined, for `timeoutMs` at most. */
export async function pollUntil<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
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

/**
 * The labels of the rows the open quick input lists now (in the DOM's order). Only each row's first
 * `.label-name` is its label: a row reused from an earlier list keeps its old detail text, hidden.
 */
async function quickInputLabels(page: Page): Promise<string[]> {
  return page
    .locator(quickInputRows)
    .evaluateAll((rows) => rows.map((row) => (row.querySelector('.label-name')?.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

async function clickQuickInputRow(page: Page, label: string): Promise<void> {
  const index = (await quickInputLabels(page)).indexOf(label);
  if (index < 0) throw new Error(`the quick input does not list "${label}"`);
  // The mouse left where the last click was: the hover of the row now under it (its detail) can
  // cover the row to click. Moving off the list hides it; it takes some time to show again.
  await page.mouse.move(0, 0);
  await page.locator('.context-view :is(.workbench-hover, .monaco-hover)').first().waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
  await page.locator(quickInputRows).nth(index).click();
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
    // An editor tab clicked just before takes its focus a moment later (a webview focuses itself
    // once revealed), and the palette closes when it loses focus: open it again then.
    const typed = await input.fill(`>${title}`, { timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (!typed) return undefined;
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
 * Waits until the quick input showing asks `prompt` (matched against its title, prompt and
 * placeholder), so that an answer goes to the expected question, not the previous step's.
 */
async function waitForQuickInput(page: Page, prompt: string | RegExp | undefined, timeoutMs: number): Promise<void> {
  const input = page.locator(`${quickInput} input`);
  await pollUntil(`a quick input${prompt ? ` asking "${prompt}"` : ''}`, timeoutMs, async () => {
    if (!(await input.isVisible())) return undefined;
    if (prompt === undefined) return true;
    const texts = await page.locator(quickInput).evaluate((widget) => {
      const field = widget.querySelector('input');
      const pick = (selector: string): string => widget.querySelector(selector)?.textContent ?? '';
      return [pick('.quick-input-title'), pick('.quick-input-message'), field?.placeholder ?? '', field?.getAttribute('aria-label') ?? ''];
    });
    return texts.some((text) => matches(text, prompt)) ? true : undefined;
  });
}

/** The labels a quick pick asking `prompt` lists, once it lists any (it stays open). */
export async function quickPickLabels(page: Page, prompt: string | RegExp, { timeoutMs = defaultTimeoutMs } = {}): Promise<string[]> {
  await waitForQuickInput(page, prompt, timeoutMs);
  return pollUntil(`items in the quick pick "${prompt}"`, timeoutMs, async () => {
    const labels = await quickInputLabels(page);
    return labels.length > 0 ? labels : undefined;
  });
}

export interface InputBoxAnswer {
  /** Makes sure the box is the expected one (see waitForQuickInput). */
  prompt?: string | RegExp;
  /** The box must hide what is typed (a password or key). */
  password?: boolean;
  timeoutMs?: number;
}

/** Types `value` into the input box now showing and accepts it. */
export async function answerInputBox(page: Page, value: string, { prompt, password, timeoutMs = defaultTimeoutMs }: InputBoxAnswer = {}): Promise<void> {
  const input = page.locator(`${quickInput} input`);
  await waitForQuickInput(page, prompt, timeoutMs);
  const type = await input.getAttribute('type');
  if (password !== undefined && (type === 'password') !== password) {
    throw new Error(`the input box${prompt ? ` "${prompt}"` : ''} is ${password ? 'not ' : ''}a password field (its type is "${type}")`);
  }
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

/**
 * Right-clicks a row of the explorer (a file or folder at the top of the workspace, by its name)
 * and picks `command` from its context menu, reopening the menu until it lists the command (the
 * extension's menu items arrive some seconds after the workbench shows).
 */
export async function explorerContextCommand(page: Page, name: string, command: string, { timeoutMs = 60_000 } = {}): Promise<void> {
  const exactName = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  const row = page.locator('.explorer-folders-view .monaco-list-row', { has: page.locator('.label-name', { hasText: exactName }) }).first();
  const item = page.locator('.monaco-menu .action-item', { hasText: command }).first();
  await pollUntil(`"${command}" in the context menu of ${name}`, timeoutMs, async () => {
    await row.click({ button: 'right' });
    if (await item.waitFor({ state: 'visible', timeout: 2_000 }).then(() => true, () => false)) return true;
    await page.keyboard.press('Escape');
    await new Promise((r) => setTimeout(r, 750));
    return undefined;
  });
  // The menu ignores a click that comes right after the right-click opened it: focus the item, then Enter.
  await item.hover();
  await page.keyboard.press('Enter');
}

/** "Developer: Reload Window", as a user does it; resolves when the reloaded workbench shows. */
export async function reloadWindow(page: Page, { timeoutMs = 60_000 } = {}): Promise<void> {
  const reloaded = page.waitForEvent('load', { timeout: timeoutMs });
  await runCommand(page, 'Developer: Reload Window');
  await reloaded;
  await waitForWorkbench(page, timeoutMs);
}

/**
 * Everything the extension wrote to its "LLM Bench" log output channel in this code-server (every
 * window, before and after reloads): VS Code keeps a log channel in a file per extension host.
 */
export function extensionLogText(server: CodeServer): string {
  const logs = join(server.userDataDir, 'logs');
  const { id } = extensionManifest();
  return readdirSync(logs, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith(join(id, 'LLM Bench.log')))
    .map((path) => readFileSync(join(logs, path), 'utf8'))
    .join('\n');
}

/**
 * The result file of the run writing into the workspace's benchmarks/ (the default results folder)
 * as it is now, or undefined before the run created it. It must be the only one there and a valid
 * result document: the engine replaces the file atomically as it goes, so every version parses.
 */
export function currentResult(workspace: string): { path: string; text: string; document: ResultDocument } | undefined {
  const folder = join(workspace, 'benchmarks');
  const files = readdirSync(folder).filter((name) => name.endsWith('.llmbench.json'));
  if (files.length > 1) throw new Error(`one run should write one result file, found ${files.join(', ')}`);
  if (files.length === 0) return undefined;
  const path = join(folder, files[0]!);
  const text = readFileSync(path, 'utf8');
  const parsed = parseResultDocument(text);
  if (!parsed.ok) throw new Error(`${path} is not a valid result document: ${parsed.error}`);
  return { path, text, document: parsed.value };
}

/** Waits until the run writing into the workspace's benchmarks/ has ended; answers its result file (see currentResult). */
export async function waitForFinishedResult(workspace: string, { timeoutMs = 90_000 } = {}): Promise<{ path: string; text: string; document: ResultDocument }> {
  // A running run appends its records in place (src/results/writer.ts), so a read that races an
  // append can see the old document with new bytes after it: read again until the run has ended,
  // and fail with the last reading's reason only if it never parses.
  let lastProblem = '';
  try {
    return await pollUntil(`a finished result file in ${join(workspace, 'benchmarks')}`, timeoutMs, async () => {
      try {
        const result = currentResult(workspace);
        return result && result.document.status !== 'running' ? result : undefined;
      } catch (error) {
        lastProblem = error instanceof Error ? error.message : String(error);
        return undefined;
      }
    });
  } catch (error) {
    throw lastProblem ? new Error(`${error instanceof Error ? error.message : String(error)}; the last reading: ${lastProblem}`) : error;
  }
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

/** The function each frame calls (a Playwright binding) to report a CSP violation. */
const CSP_REPORT_BINDING = 'llmbenchReportCspViolation';

/**
 * Runs in every frame before its own scripts: reports each `securitypolicyviolation` event, which
 * fires even when the page catches what was blocked without a console message (zod's
 * `new Function` probe). Self-contained: Playwright sends its source to the browser.
 */
function reportCspViolations(binding: string): void {
  const report = (event: SecurityPolicyViolationEvent): void => {
    const send = (window as unknown as Record<string, ((text: string) => Promise<void>) | undefined>)[binding];
    const where = event.sourceFile ? ` at ${event.sourceFile}:${event.lineNumber}` : '';
    void send?.(`${event.effectiveDirective} blocked ${event.blockedURI || 'inline code'}${where} (in ${location.href})`);
  };
  const listen = (): void => document.addEventListener('securitypolicyviolation', report, true);
  listen();
  // VS Code writes a webview's page into its frame with document.open() and write(), which erases
  // the document's listeners: listen again on the page written.
  const open = Document.prototype.open;
  Document.prototype.open = function (this: Document, ...args: unknown[]) {
    const opened = (open as (...a: unknown[]) => unknown).apply(this, args);
    if (this === document) listen();
    return opened;
  } as typeof open;
}

/**
 * Records every Content Security Policy violation in any frame of `context` (the workbench and
 * every webview inside it): the frames' own `securitypolicyviolation` events and the console's CSP
 * reports. Call it before the context opens a page; the list returned fills as violations happen.
 */
export async function watchCspViolations(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.exposeBinding(CSP_REPORT_BINDING, (_source, report: unknown) => {
    violations.push(String(report));
  });
  await context.addInitScript(reportCspViolations, CSP_REPORT_BINDING);
  context.on('console', (message) => {
    const { url, lineNumber } = message.location();
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(`${message.text()} (at ${url}:${lineNumber})`);
  });
  return violations;
}
