// The e2e tier (scripts/test.mjs runs out/test/e2e/run.js): headless Chromium driving VS Code.
// Packages the extension as a VSIX, starts one code-server with it installed and one browser, then
// runs the scenarios of every out/test/e2e/*.e2e.js (name order) one after another, each on a fresh
// workspace in a fresh browser context that watches every frame for CSP violations. Prints each
// result, then the scenarios that passed only on a second try (`flaky: ...`), then `N passed, N failed` last.
// Arguments: FILTER... keeps the scenarios whose file or name contains one of them.
// How to write a scenario: test/e2e/harness/index.ts.
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, saveScreenshot } from '../vscode/harness/browser';
import { startCodeServer, type CodeServer } from '../vscode/harness/code-server';
import { repoRoot } from '../vscode/harness/tools';
import { packageExtension } from '../vscode/harness/vsix';
import { createWorkspace } from '../vscode/harness/workspace';
import { registeredScenarios, setLoadingFile, waitForWorkbench, watchCspViolations, type PreparedScenario, type Scenario } from './harness';
import { packageLanguagePack } from './harness/language-pack';

const defaultScenarioTimeoutMs = 120_000;
/** Tries a scenario gets before it counts as failed. */
const SCENARIO_ATTEMPTS = 2;

function loadScenarios(filters: string[]): Scenario[] {
  for (const file of readdirSync(__dirname).filter((name) => name.endsWith('.e2e.js')).sort()) {
    setLoadingFile(file);
    require(join(__dirname, file));
  }
  return registeredScenarios.filter((s) => filters.length === 0 || filters.some((f) => s.file.includes(f) || s.name.includes(f)));
}

async function runScenario(scenario: Scenario, browser: Browser, server: CodeServer): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const cspViolations = await watchCspViolations(context);
  const page = await context.newPage();
  const timeoutMs = scenario.timeoutMs ?? defaultScenarioTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  let prepared: PreparedScenario | undefined;
  let workspace: string | undefined;
  try {
    await Promise.race([
      (async () => {
        prepared = await scenario.prepare();
        workspace = createWorkspace(prepared.workspace);
        await page.goto(`${server.url}?folder=${encodeURIComponent(workspace)}`);
        await waitForWorkbench(page);
        await prepared.run({ page, workspace, server, cspViolations });
      })(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the scenario took longer than ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
    if (cspViolations.length > 0) throw new Error(`Content Security Policy violations: ${cspViolations.join(' | ')}`);
  } catch (error) {
    const shot = await saveScreenshot(page, `e2e-${scenario.file.replace(/\.e2e\.js$/, '')}-${scenario.name}`);
    if (shot) console.log(`       screenshot: ${shot}`);
    throw error;
  } finally {
    clearTimeout(timer);
    await context.close().catch(() => undefined);
    await prepared?.stop().catch((error: unknown) => console.log(`       the scenario's fixture did not stop cleanly: ${String(error)}`));
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  let passed = 0;
  let failed = 0;
  const flaky: string[] = [];
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let vsix: string | undefined;
  try {
    const scenarios = loadScenarios(process.argv.slice(2));
    if (scenarios.length === 0) throw new Error('no scenario found in out/test/e2e/*.e2e.js');
    const started = Date.now();
    vsix = packageExtension();
    browser = await launchChromium();
    // One code-server per display language (--locale is the server's), the default one first.
    const locales = [...new Set(scenarios.map((s) => s.locale))].sort((a, b) => (a ?? '').localeCompare(b ?? ''));
    for (const locale of locales) {
      await server?.stop();
      server = await startCodeServer({ vsix, env: { LLMBENCH_ROOT: repoRoot }, ...(locale ? { locale, otherVsix: [packageLanguagePack(locale)] } : {}) });
      console.log(`code-server ${server.url}${locale ? ` (--locale ${locale})` : ''} and Chromium ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      for (const scenario of scenarios.filter((s) => s.locale === locale)) {
        const label = `${scenario.file.replace(/\.e2e\.js$/, '')}: ${scenario.name}`;
        // A scenario drives a whole VS Code on a shared machine: one that fails is run once more
        // on a fresh workspace, and one that passes only then is named flaky at the end of the
        // log, with its first failure printed here (Playwright's `retries` works alike).
        for (let attempt = 1; attempt <= SCENARIO_ATTEMPTS; attempt++) {
          const scenarioStarted = Date.now();
          const took = () => `${((Date.now() - scenarioStarted) / 1000).toFixed(1)} s`;
          try {
            await runScenario(scenario, browser, server);
            passed += 1;
            if (attempt > 1) flaky.push(label);
            console.log(`  ok   ${label} (${took()}${attempt > 1 ? ', on its second try' : ''})`);
            break;
          } catch (error) {
            const last = attempt === SCENARIO_ATTEMPTS;
            if (last) failed += 1;
            console.log(`  FAIL ${label} (${took()}${last ? '' : '; trying it once more'})`);
            console.log(String(error instanceof Error ? error.stack ?? error.message : error).replace(/^/gm, '       '));
          }
        }
      }
    }
  } catch (error) {
    console.log(`The e2e tier could not run: ${error instanceof Error ? error.message : String(error)}`);
    failed += 1;
  } finally {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (vsix) rmSync(dirname(vsix), { recursive: true, force: true });
  }
  for (const label of flaky) console.log(`flaky: ${label} (failed, then passed on its second try)`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

void main().then((code) => process.exit(code));
