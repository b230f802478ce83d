// A language pack for VS Code's display language, as a user who reads VS Code in Chinese has one
// installed (Microsoft's zh-hans pack is not available offline here). VS Code resolves `--locale`
// only to a language some installed pack contributes: without one its server falls back to English
// (resolveNLSConfiguration answers resolvedLanguage 'en'), vscode.env.language is 'en' and no
// extension's l10n bundle loads. This pack contributes the language and no translation of VS Code's
// own strings, so its UI stays English while the extension sees zh-cn.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { repoRoot } from '../../vscode/harness/tools';

/** Packs a language pack for `locale` (e.g. zh-cn) into a .vsix; answers its path. */
export function packageLanguagePack(locale: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'llmbench-language-pack-'));
  const manifest = {
    name: `test-language-pack-${locale}`,
    displayName: `Test language pack ${locale}`,
    description: `Contributes the display language ${locale} for the e2e tests, with no translations of VS Code's own strings.`,
    publisher: 'llmbench-tests',
    version: '0.0.1',
    license: 'MIT',
    engines: { vscode: '^1.100.0' },
    categories: ['Language Packs'],
    contributes: { localizations: [{ languageId: locale, languageName: locale, localizedLanguageName: locale, translations: [{ id: 'vscode', path: './translations/main.i18n.json' }] }] },
  };
  mkdirSync(join(folder, 'translations'));
  writeFileSync(join(folder, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(folder, 'translations', 'main.i18n.json'), JSON.stringify({ version: '1.0.0', contents: {} }));
  writeFileSync(join(folder, 'README.md'), `${manifest.description}\n`);
  writeFileSync(join(folder, 'LICENSE'), 'MIT\n');
  const vsix = join(folder, `${manifest.name}.vsix`);
  const args = [join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--out', vsix, '--allow-missing-repository', '--no-dependencies'];
  const result = spawnSync(process.execPath, args, { cwd: folder, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`packing the ${locale} language pack failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  }
  return vsix;
}

/** The page's display language is `locale`, as the host wrote it into the page (vscode.env.language, webview-html.ts). */
export async function expectDisplayLanguage(frame: Frame, locale: string, what: string): Promise<void> {
  const lang = await frame.evaluate(() => document.documentElement.lang);
  if (lang !== locale) throw new Error(`${what}: vscode.env.language is '${lang}', not '${locale}'`);
}
