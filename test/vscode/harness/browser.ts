// Headless Debian Chromium through playwright-core (which downloads no browser of its own here),
// with a fresh empty profile per launch and nothing that reaches outside the machine.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { artifactsDir, assertChromium, chromiumPath } from './tools';

export async function launchChromium(): Promise<Browser> {
  assertChromium();
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Saves a full-page screenshot into .test-artifacts/<name>.png; returns its path, or undefined if the page is gone. */
export async function saveScreenshot(page: Page, name: string): Promise<string | undefined> {
  mkdirSync(artifactsDir, { recursive: true });
  const path = join(artifactsDir, `${name.replace(/[^\w.-]+/g, '-')}.png`);
  try {
    await page.screenshot({ path, fullPage: true, timeout: 10_000 });
    return path;
  } catch {
    return undefined;
  }
}
