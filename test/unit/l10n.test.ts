/**
 * Simplified Chinese through VS Code's own route (issue 27): package.nls*.json for the manifest,
 * l10n/bundle.l10n*.json for what the host and its webviews show. A key one side lacks shows a raw
 * `%key%` or an English string in a Chinese UI, so the sets must be equal both ways.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { repoRoot } from '../vscode/harness/tools';
import { builtStrings, listedWebviewKeys, translatedLiterals } from '../helpers/view-strings';
import { concurrencySweep } from '../helpers/result-documents';
import { runWithServerMetrics } from '../helpers/server-samples';
import { openPage } from '../helpers/webview-page';
import { english, translator } from '../../src/views/l10n';
import { warningTemplates } from '../../src/views/step-warnings';
import { buildResultView } from '../../src/views/result';
import { buildCompareView } from '../../src/views/compare';
import { forReading } from '../../src/results/read-result';

const readJson = (path: string): unknown => JSON.parse(readFileSync(isAbsolute(path) ? path : join(repoRoot, path), 'utf8'));

function manifestKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    const key = /^%(.+)%$/.exec(value)?.[1];
    if (key) into.add(key);
  } else if (Array.isArray(value)) for (const item of value) manifestKeys(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) manifestKeys(item, into);
  return into;
}

function stringTable(path: string): Record<string, string> {
  const table = readJson(path);
  assert.ok(table && typeof table === 'object' && !Array.isArray(table), `${path} is not an object`);
  for (const [key, text] of Object.entries(table)) assert.equal(typeof text, 'string', `${path}: ${key} is not a string`);
  return table as Record<string, string>;
}

const sorted = (keys: Iterable<string>): string[] => [...keys].sort();

test('every %key% of package.json is in package.nls.json and package.nls.zh-cn.json, and they hold no other key', () => {
  const used = sorted(manifestKeys(readJson('package.json')));
  assert.ok(used.length > 60, `package.json names only ${used.length} %keys%: its titles and descriptions are not localized`);
  assert.deepEqual(sorted(Object.keys(stringTable('package.nls.json'))), used);
  assert.deepEqual(sorted(Object.keys(stringTable('package.nls.zh-cn.json'))), used);
});

test('every command title and setting description of package.json goes through a %key%', () => {
  const manifest = readJson('package.json') as { contributes: { commands: { title: string; category?: string }[]; configuration: { properties: Record<string, unknown> } } };
  for (const command of manifest.contributes.commands) {
    assert.match(command.title, /^%.+%$/, `command title "${command.title}" is not localized`);
    if (command.category) assert.match(command.category, /^%.+%$/);
  }
  const plain: string[] = [];
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      if (/(description|markdownDescription|enumDescriptions\.\d+)$/.test(path) && !/^%.+%$/.test(value)) plain.push(path);
    } else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, `${path}.${k}`);
  };
  visit(manifest.contributes.configuration.properties, 'configuration');
  assert.deepEqual(plain, [], 'settings text not localized');
});

test('the zh-cn manifest strings are Chinese where the English is prose', () => {
  const english = stringTable('package.nls.json');
  const chinese = stringTable('package.nls.zh-cn.json');
  // Product names and bare API routes stay; every sentence gets a translation.
  const untranslated = Object.keys(english).filter((key) => /[a-z]{3,} [a-z]{3,}/i.test(english[key]!.replace(/POST \/v1\/\S+|LLM Bench/g, '')) && !/[\u4e00-\u9fff]/.test(chinese[key]!));
  assert.deepEqual(untranslated, []);
});

const placeholders = (text: string): string[] => [...new Set(text.match(/\{\d+\}/g) ?? [])].sort();

test('l10n/bundle.l10n.zh-cn.json has every key of bundle.l10n.json and no other, with the same {n} placeholders', () => {
  const english = stringTable('l10n/bundle.l10n.json');
  const chinese = stringTable('l10n/bundle.l10n.zh-cn.json');
  assert.ok(Object.keys(english).length > 100, 'the default bundle is nearly empty: run npm run l10n:export');
  assert.deepEqual(sorted(Object.keys(chinese)), sorted(Object.keys(english)));
  for (const key of Object.keys(english)) assert.deepEqual(placeholders(chinese[key]!), placeholders(key), `placeholders of "${key}"`);
  // The extension's name stays as is; everything else reads in Chinese.
  const untranslated = Object.keys(english).filter((key) => /[a-z]{2,}/i.test(key.replace(/LLM Bench|\{\d+\}/g, '')) && !/[\u4e00-\u9fff]/.test(chinese[key]!));
  assert.deepEqual(untranslated, []);
});

test('l10n/bundle.l10n.json is what @vscode/l10n-dev extracts from the host now (npm run l10n:export)', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'llmbench-l10n-'));
  try {
    const result = spawnSync(process.execPath, [join(repoRoot, 'node_modules', '@vscode', 'l10n-dev', 'dist', 'cli.js'), 'export', '--outDir', outDir, join(repoRoot, 'src', 'host')], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(sorted(Object.keys(stringTable(join(outDir, 'bundle.l10n.json')))), sorted(Object.keys(stringTable('l10n/bundle.l10n.json'))));
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});

/**
 * What a person reads from the host: the text of notifications, quick picks, input boxes, dialogs,
 * progress and the status bar, and the loading text of the webview pages. Each place is found by the
 * call or property that shows it; a string literal there that holds words must be `l10n.t`'s first
 * argument. Identifiers (view types, command ids, settings keys) have no capitalised word or space.
 */
export function bypassingStrings(source: string): string[] {
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
    // A literal l10n.t translates is fine: blank it out, keeping the call.
    .replace(/l10n\.t\(\s*(['"`])(?:\\.|(?!\1)[\s\S])*?\1/g, 'l10n.t(""');
  const shown = /\b(show(?:Information|Error|Warning)Message|showQuickPick|showInputBox|showOpenDialog|showSaveDialog|withProgress)\(|\b(title|placeHolder|prompt|label|detail|description|openLabel|saveLabel|filters|loading|tooltip|text)\s*(?::|=(?!=))|\bconst (?:open|log|show|manage|fresh|resumeIt|browse|other|write|\w*Title)\s*=|\bcreateWebviewPanel\(|\bfunction \w*Title\(|\.(?:notes|warnings)\.push\(|\bmessage\s*:(?!:)/g;
  const found: string[] = [];
  for (const site of code.matchAll(shown)) {
    // A function that words a title (a panel's): its whole body.
    const line = code.slice(site.index, code.indexOf(site[0].startsWith('function') ? '\n}' : '\n', site.index));
    for (const literal of line.matchAll(/(['"`])((?:\\.|(?!\1).)*)\1/g)) {
      const text = literal[2]!.replace(/\$\{[^}]*\}|\$\([a-z-]+\)/g, ' ').trim();
      // The product's name, URLs and bits of code stay as they are in every language.
      if (text === '' || text === 'LLM Bench' || /^[a-z]+:\/\/\S+$/.test(text) || /^\{.*\}$/.test(text)) continue;
      if (/[A-Za-z]{2,}[ ,.:?][ ]?[A-Za-z]{2,}|\b[A-Z][a-z]+\b/.test(text)) found.push(`${line.trim()}  <-  ${literal[0]}`);
    }
  }
  return [...new Set(found)];
}

test('no text the host shows bypasses vscode.l10n.t (a scan of src/host)', () => {
  const dir = join(repoRoot, 'src', 'host');
  const offenders = readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => bypassingStrings(readFileSync(join(dir, name), 'utf8')).map((hit) => `${name}: ${hit}`));
  assert.deepEqual(offenders, []);
});

test('the scan finds a plain string in a notification, a quick pick and a button, and passes the translated ones', () => {
  assert.equal(bypassingStrings("void vscode.window.showErrorMessage('LLM Bench: no benchmark is running.');").length, 1);
  assert.equal(bypassingStrings('    title: `Compare ${fileNameOf(exclude)} with...`,').length, 1);
  assert.equal(bypassingStrings("  const open = 'Open Result';").length, 1);
  assert.equal(bypassingStrings("    filters: { 'Traces (JSONL, CSV)': ['jsonl', 'csv'] },").length, 1);
  assert.equal(bypassingStrings("{ label: '$(output) Show Log', run: () => this.showLog() },").length, 1);
  // A webview panel's tab title, worded in a const or a function.
  assert.equal(bypassingStrings('const compareTitle = (a: vscode.Uri, b: vscode.Uri) => `Compare: ${fileNameOf(a)} \\u2194 ${fileNameOf(b)}`;').length, 1);
  assert.equal(bypassingStrings('function reportTitle(paths: string[]): string {\n  const names = paths;\n  return `Benchmark Report: ${names.length === 1 ? names[0] : `${names.length} selections`}`;\n}').length, 1);
  assert.equal(bypassingStrings("const panel = vscode.window.createWebviewPanel(VIEW, 'Benchmark Report', vscode.ViewColumn.Active, {});").length, 1);
  // A note or an error message the host adds to a view it sends a page.
  assert.equal(bypassingStrings("    if (unreadable > 0) view.notes.push(`${unreadable} trial result files are missing or unreadable.`);").length, 1);
  assert.equal(bypassingStrings("      this.session.show({ type: 'error', fileName, message: `The file could not be read (${reason}).` });").length, 1);
  assert.deepEqual(bypassingStrings("      this.session.show({ type: 'error', fileName, message: vscode.l10n.t('The file could not be read ({0}).', reason) });"), []);
  assert.deepEqual(bypassingStrings("void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: no benchmark is running.'));"), []);
  assert.deepEqual(bypassingStrings("{ label: `$(output) ${vscode.l10n.t('Show Log')}`, run: () => this.showLog() },"), []);
  assert.deepEqual(bypassingStrings("await vscode.commands.executeCommand('vscode.openWith', uri, RESULT_VIEW_TYPE);"), []);
});

// --- The webviews' strings (issue 27): from the host's bundle, English without one. ---

const zhCnLanguage = () => ({ type: 'language', locale: 'zh-cn', strings: stringTable('l10n/bundle.l10n.zh-cn.json') });

function sampleRuns() {
  // Two sweeps (compare, report), one with server metrics; a run whose responses reasoned; a repeated profile.
  const server = runWithServerMetrics();
  return [
    { doc: concurrencySweep(20), fileName: 'a.llmbench.json' },
    { doc: concurrencySweep(20, 1.5), fileName: 'b.llmbench.json' },
    { doc: server, fileName: 'server.llmbench.json' },
  ];
}

test('every string the webviews show is listed in src/host/webview-strings.ts and translated in both bundles', () => {
  const listed = listedWebviewKeys();
  const english = stringTable('l10n/bundle.l10n.json');
  const chinese = stringTable('l10n/bundle.l10n.zh-cn.json');
  const used = new Set([...translatedLiterals(), ...builtStrings(sampleRuns()).shown]);
  assert.ok(used.size > 150, `only ${used.size} strings found: the collection is broken`);
  assert.deepEqual([...used].filter((key) => !listed.has(key)), [], 'not listed in src/host/webview-strings.ts (then npm run l10n:export)');
  assert.deepEqual([...used].filter((key) => english[key] === undefined), [], 'not in l10n/bundle.l10n.json');
  assert.deepEqual([...used].filter((key) => !/[\u4e00-\u9fff]/.test(chinese[key] ?? '')), [], 'not in Chinese in l10n/bundle.l10n.zh-cn.json');
});

test('every template a warning or a reason is worded from is listed for extraction and translated in both bundles', () => {
  const templates = warningTemplates();
  assert.ok(templates.size > 100, `only ${templates.size} templates found: the walk is broken`);
  const listed = listedWebviewKeys();
  const english = stringTable('l10n/bundle.l10n.json');
  const chinese = stringTable('l10n/bundle.l10n.zh-cn.json');
  assert.deepEqual([...templates].filter((key) => !listed.has(key)), [], 'not listed in src/host/webview-strings.ts (then npm run l10n:export)');
  assert.deepEqual([...templates].filter((key) => english[key] === undefined), [], 'not in l10n/bundle.l10n.json');
  // A joining template (`{0}; {1}`) has no words: its Chinese is its punctuation.
  const worded = (key: string): boolean => /[A-Za-z]/.test(key.replace(/\{\d+\}/g, ''));
  assert.deepEqual([...templates].filter((key) => chinese[key] === undefined || (worded(key) && !/[\u4e00-\u9fff]/.test(chinese[key]!))), [], 'not in Chinese in l10n/bundle.l10n.zh-cn.json');
});

test('a translator without a bundle says English, filling {n}; with one, the bundle text', () => {
  assert.equal(english('Not shown: {0}.', 'ITL'), 'Not shown: ITL.');
  assert.equal(translator({})('Server log: trial {0}', 3), 'Server log: trial 3');
  assert.equal(translator(stringTable('l10n/bundle.l10n.zh-cn.json'))('Server log: trial {0}', 3), '服务端日志：试验 3');
  // A key the bundle lacks (a step's name) reads as it is.
  assert.equal(translator(stringTable('l10n/bundle.l10n.zh-cn.json'))('concurrency@16'), 'concurrency@16');
});

test('the result page draws in Chinese from the language the host writes into it, and in English without', () => {
  const view = buildResultView(forReading(concurrencySweep(20)), 'run.llmbench.json');
  const headings = (page: ReturnType<typeof openPage>) => [...page.document.querySelectorAll('h2')].map((h) => h.textContent);
  const plain = openPage('result');
  plain.send({ type: 'show', view });
  assert.deepEqual(headings(plain), ['Steps', 'Charts']);
  assert.equal(plain.document.querySelector('.step-table thead th:nth-child(4)')?.firstChild?.textContent, 'TTFT');
  const chinese = openPage('result', { language: zhCnLanguage() });
  chinese.send({ type: 'show', view });
  assert.deepEqual(headings(chinese), ['各步', '图表']);
  const ttft = chinese.document.querySelector('.step-table thead th:nth-child(4)');
  assert.equal(ttft?.firstChild?.textContent, '首 token 延迟 (TTFT)');
  assert.match(ttft?.getAttribute('title') ?? '', /^首 token 延迟：/);
  // The figures are the same in both (the failures cell is worded: "0 of 20" reads "20 个中 0 个").
  const cells = (page: ReturnType<typeof openPage>) => [...page.document.querySelectorAll('.step-table tbody td')].map((td) => (td.textContent?.match(/\d[\d,.]*/g) ?? []).sort().join(' '));
  assert.deepEqual(cells(chinese), cells(plain));
  assert.match(chinese.document.querySelector('.step-table tbody td:last-child')?.textContent ?? '', /^20 个中 0 个$/);
  assert.deepEqual([...plain.scriptErrors, ...chinese.scriptErrors], []);
});

test("a page that got its view before the host's language event draws it again in that language", () => {
  const page = openPage('compare');
  const [a, b] = sampleRuns();
  page.send({ type: 'show-compare', view: buildCompareView(forReading(a!.doc), forReading(b!.doc), a!.fileName, b!.fileName) });
  assert.ok([...page.document.querySelectorAll('h2')].some((h) => h.textContent === 'B against A' || h.textContent === 'Both runs'));
  page.send(zhCnLanguage());
  assert.ok([...page.document.querySelectorAll('h2')].some((h) => h.textContent === '两次运行'), 'the compare page did not redraw in Chinese');
  assert.equal(page.document.documentElement.lang, 'zh-cn');
  assert.deepEqual(page.scriptErrors, []);
});
