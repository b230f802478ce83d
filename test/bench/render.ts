/**
 * How long a 10,000-request result takes to show in the result view, and how big the view
 * bundles are. Prints figures; asserts nothing. Run: node esbuild.mjs && node dist/bench/render.js
 *   host:    read the file's text -> parseResultDocument -> buildResultView -> the message (an event envelope) as JSON
 *   webview: the result bundle in headless Chromium (Debian's, if installed): message received ->
 *            table and all charts drawn (two animation frames later), in a light and a dark theme.
 * Screenshots go to .test-artifacts/render-<theme>.png.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { forReading } from '../../src/results/read-result';
import { join } from 'node:path';
import { parseResultDocument } from '../../src/format/result';
import type { Envelope } from '../../src/format/messages/protocol';
import { buildResultView } from '../../src/views/result';
import { bigResultText, CHUNKS, REQUESTS, STEPS, webviewBundleSizes } from './lib/result-views';

const root = process.env['LLMBENCH_ROOT'] ?? process.cwd();
const REPEATS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const ms = (value: number) => `${value.toFixed(1)} ms`;

function time<T>(work: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = work();
  return { value, ms: performance.now() - start };
}

function hostSide(text: string) {
  const parse: number[] = [];
  const model: number[] = [];
  const serialize: number[] = [];
  let message = '';
  for (let i = 0; i < REPEATS; i++) {
    const parsed = time(() => parseResultDocument(text));
    if (!parsed.value.ok) throw new Error(parsed.value.error);
    const doc = parsed.value.value;
    const view = time(() => buildResultView(forReading(doc), 'bench.llmbench.json'));
    // As the host's session posts it: an event envelope of the protocol (src/format/messages/protocol.ts).
    const json = time(() => JSON.stringify({ kind: 'event', id: 1, body: { type: 'show', view: view.value } } satisfies Envelope));
    parse.push(parsed.ms);
    model.push(view.ms);
    serialize.push(json.ms);
    message = json.value;
  }
  return { parse: median(parse), model: median(model), serialize: median(serialize), message };
}

const THEMES = {
  light: { bodyClass: 'vscode-light', vars: { background: '#ffffff', foreground: '#3b3b3b', muted: '#717171', border: '#e5e5e5' } },
  dark: { bodyClass: 'vscode-dark', vars: { background: '#1f1f1f', foreground: '#cccccc', muted: '#9d9d9d', border: '#2b2b2b' } },
};

function pageHtml(theme: keyof typeof THEMES): string {
  const { bodyClass, vars } = THEMES[theme];
  const css = readFileSync(join(root, 'media', 'webview.css'), 'utf8');
  return `<!DOCTYPE html><html><head><style>
:root { --vscode-editor-background: ${vars.background}; --vscode-foreground: ${vars.foreground};
  --vscode-descriptionForeground: ${vars.muted}; --vscode-panel-border: ${vars.border};
  --vscode-font-family: system-ui, sans-serif; --vscode-font-size: 13px; }
${css}</style></head><body class="${bodyClass}"><main id="app" aria-busy="true"></main></body></html>`;
}

async function webviewSide(message: string): Promise<Record<string, number> | string> {
  const executablePath = '/usr/bin/chromium';
  try {
    statSync(executablePath);
  } catch {
    return 'skipped: /usr/bin/chromium is not installed (scripts/setup-test-env.sh installs it)';
  }
  // Loaded at run time from node_modules: playwright-core does not survive bundling.
  const { chromium } = require(join(root, 'node_modules', 'playwright-core')) as typeof import('playwright-core');
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  const bundle = readFileSync(join(root, 'dist', 'webview', 'result.js'), 'utf8');
  const figures: Record<string, number> = {};
  try {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.setContent(pageHtml(theme));
      await page.addScriptTag({ content: 'window.acquireVsCodeApi = () => ({ postMessage() {}, getState() {}, setState() {} });' });
      await page.addScriptTag({ content: bundle });
      const renderMs = await page.evaluate(async (text) => {
        const start = performance.now();
        window.dispatchEvent(new MessageEvent('message', { data: JSON.parse(text) }));
        await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
        return performance.now() - start;
      }, message);
      const rows = await page.locator('.step-table tbody tr').count();
      if (rows !== STEPS) throw new Error(`expected ${STEPS} table rows, saw ${rows}`);
      figures[theme] = renderMs;
      mkdirSync(join(root, '.test-artifacts'), { recursive: true });
      await page.screenshot({ path: join(root, '.test-artifacts', `render-${theme}.png`), fullPage: true });
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return figures;
}

async function main(): Promise<void> {
  const text = bigResultText();
  console.log(`result file: ${REQUESTS} requests in ${STEPS} steps, ${CHUNKS} chunks each, ${(text.length / 1e6).toFixed(1)} MB of JSON`);
  const host = hostSide(text);
  console.log(`host (median of ${REPEATS}): parse + validate ${ms(host.parse)}, view model ${ms(host.model)}, message JSON ${ms(host.serialize)}`);
  console.log(`  message to the webview: ${(host.message.length / 1024).toFixed(0)} KiB`);
  const web = await webviewSide(host.message);
  if (typeof web === 'string') console.log(`webview: ${web}`);
  else {
    for (const [theme, value] of Object.entries(web)) {
      const total = host.parse + host.model + host.serialize + value;
      console.log(`webview (${theme} theme, Chromium): table and 7 charts drawn in ${ms(value)}; file to pixels ${ms(total)} (goal < 1000 ms)`);
    }
  }
  console.log('bundle sizes:');
  for (const line of webviewBundleSizes(root)) console.log(line);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
