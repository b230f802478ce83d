// The harness's own smoke scenario: the workbench loads with the extension installed from its VSIX,
// the command palette lists the commands the extension contributes, Quick Open opens a file, and the
// CSP watcher hears a violation from inside a webview frame.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { repoRoot } from '../vscode/harness/tools';
import { findWebview, openFile, pollUntil, runCommand, scenario, waitForCommand } from './harness';

const manifest = z
  .object({
    contributes: z.object({
      commands: z.array(z.object({ command: z.string(), title: z.string(), category: z.string().optional() })),
      menus: z.object({ commandPalette: z.array(z.object({ command: z.string() })).optional() }).optional(),
    }),
  })
  .parse(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')));
// Titles are %keys% of package.nls.json, which the English UI shows.
const englishTitles = z.record(z.string(), z.string()).parse(JSON.parse(readFileSync(join(repoRoot, 'package.nls.json'), 'utf8')));
const english = (text: string): string => text.replace(/^%(.+)%$/, (_, key: string) => englishTitles[key] ?? text);

scenario('the command palette lists an LLM Bench command', async ({ page }) => {
  // A command with a commandPalette menu entry may be hidden there by its `when`: take one without.
  const restricted = new Set(manifest.contributes.menus?.commandPalette?.map((entry) => entry.command));
  const command = manifest.contributes.commands.find((c) => c.category !== undefined && english(c.category) === 'LLM Bench' && !restricted.has(c.command));
  if (!command) throw new Error('package.json contributes no palette command in the "LLM Bench" category');
  await waitForCommand(page, `${english(command.category!)}: ${english(command.title)}`);
});

scenario('a workspace file opens in an editor', async ({ page }) => {
  await openFile(page, 'notes/hello.md');
  await page.locator('.monaco-editor .view-lines', { hasText: 'hello from the harness' }).waitFor({ state: 'visible' });
}, { workspace: { files: { 'notes/hello.md': 'hello from the harness\n' } } });

scenario('the CSP watcher sees a violation inside a webview', async ({ page, cspViolations }) => {
  await runCommand(page, 'LLM Bench: Show Live Panel');
  const live = await findWebview(page, { title: 'LLM Bench: Live', text: 'No benchmark has run' });
  // An image from a source the webview's policy does not allow: blocked, and reported from the frame.
  const blocked = 'http://127.0.0.1:9/blocked-by-csp.png';
  await live.evaluate((src) => document.body.append(Object.assign(document.createElement('img'), { src })), blocked);
  await pollUntil('the violation to be recorded', 10_000, async () => (cspViolations.some((v) => v.startsWith(`img-src blocked ${blocked}`)) ? true : undefined));
  // Expected here: taken out, so that the scenario passes unless something else was blocked too.
  const unexpected = cspViolations.filter((v) => !v.includes(blocked));
  cspViolations.splice(0, cspViolations.length, ...unexpected);
});
