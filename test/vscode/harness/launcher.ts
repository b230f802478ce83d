#!/usr/bin/env node
// The `vscodeExecutablePath` handed to @vscode/test-electron's runTests (see test/vscode/run.ts).
// runTests starts it like a VS Code binary: `launcher FOLDER --user-data-dir=... --extensions-dir=...
// ... --extensionTestsPath=... --extensionDevelopmentPath=...`. It turns that into what works offline
// (../shared/notes/real-vscode.md): code-server with the smoke-test driver and the VSIX named by
// $LLMBENCH_VSIX installed, the workbench opened in headless Chromium with a `payload` naming the
// installed extension as the one under development and the tests to run, and the extension host's exit
// code (reported through codeAutomationExit) as its own. LLMBENCH_* variables reach the extension host.
// $LLMBENCH_WORKSPACE_TRUST=restricted (./environment) starts it in Restricted Mode. The suites can
// read the page's notifications through the workbench probe (./workbench-probe).
import { format } from 'node:util';
import { startCodeServer, type CodeServer } from './code-server';
import { launchChromium, saveScreenshot } from './browser';
import { workspaceTrustSchema, workspaceTrustVariable } from './environment';
import { serveWorkbenchProbe, workbenchProbeVariable } from './workbench-probe';
import type { Browser, Page } from 'playwright-core';

const runTimeoutMs = 10 * 60_000;

interface LaunchArguments {
  folder: string;
  extensionTestsPath: string;
  userDataDir?: string;
  extensionsDir?: string;
}

function parseArguments(argv: string[]): LaunchArguments {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (const arg of argv) {
    const flag = arg.match(/^--([^=]+)(?:=(.*))?$/);
    if (flag) flags.set(flag[1] ?? '', flag[2] ?? '');
    else positional.push(arg);
  }
  const folder = positional[0];
  const extensionTestsPath = flags.get('extensionTestsPath');
  if (!folder || !extensionTestsPath) {
    throw new Error('usage: launcher FOLDER --extensionTestsPath=PATH [--user-data-dir=DIR] [--extensions-dir=DIR] (as runTests passes them)');
  }
  return { folder, extensionTestsPath, userDataDir: flags.get('user-data-dir'), extensionsDir: flags.get('extensions-dir') };
}

async function main(): Promise<number> {
  const args = parseArguments(process.argv.slice(2));
  const vsix = process.env.LLMBENCH_VSIX;
  if (!vsix) throw new Error('LLMBENCH_VSIX must name the packaged extension to test (test/vscode/run.ts sets it)');
  const workspaceTrust = workspaceTrustSchema.default('disabled').parse(process.env[workspaceTrustVariable] || undefined);

  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const probe = await serveWorkbenchProbe(() => page);
  const testEnvironment = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('LLMBENCH_'))),
    [workbenchProbeVariable]: probe.url,
  };
  try {
    server = await startCodeServer({
      vsix,
      userDataDir: args.userDataDir,
      extensionsDir: args.extensionsDir,
      testDriver: true,
      workspaceTrust,
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    let reportExit: (code: number) => void = () => undefined;
    const exitCode = new Promise<number>((resolve) => (reportExit = resolve));
    // The workbench's log and the extension host's console (mocha's report) arrive here as console arguments.
    await context.exposeFunction('codeAutomationLog', (_level: unknown, message: unknown) => {
      process.stdout.write(`${Array.isArray(message) ? format(...(message as unknown[])) : String(message)}\n`);
    });
    await context.exposeFunction('codeAutomationExit', (code: unknown) => reportExit(typeof code === 'number' ? code : 1));

    const payload = [
      ['extensionDevelopmentPath', server.remoteUri(server.extensionPath)],
      ['extensionTestsPath', server.remoteUri(args.extensionTestsPath)],
      ['extensionEnvironment', JSON.stringify(testEnvironment)],
    ];
    const url = `${server.url}?folder=${encodeURIComponent(args.folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    page = await context.newPage();
    await page.goto(url);
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      exitCode,
      new Promise<number>((resolve) => {
        timer = setTimeout(() => {
          console.error(`The tests did not finish within ${runTimeoutMs / 60_000} minutes.`);
          resolve(1);
        }, runTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (code !== 0) {
      const shot = await saveScreenshot(page, `vscode-workbench-${new Date().toISOString()}`);
      if (shot) console.error(`Screenshot of the workbench: ${shot}`);
    }
    return code;
  } finally {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    await probe.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
