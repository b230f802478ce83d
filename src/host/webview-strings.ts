/**
 * The webviews' strings in the display language (issue 27). The views say their strings through a
 * translator (src/views/l10n.ts) keyed by the English text; the host gives them the l10n bundle VS
 * Code loaded for the extension (`vscode.l10n.bundle`, undefined in English) and the display
 * language (`vscode.env.language`). @vscode/l10n-dev extracts only `l10n.t` calls in files that
 * import vscode, so `webviewStringKeys` below names every key the views use (src/views, webview/)
 * once: `npm run l10n:export` puts them in l10n/bundle.l10n.json, and test/unit/l10n.test.ts checks
 * that every `t('...')` of the views is listed here and translated in both bundles.
 */
import * as vscode from 'vscode';
import type { LanguageEvent } from '../format/messages/protocol';
import type { ViewLocale } from '../views/l10n';

/** What the host posts a page before its first view (webview-session.ts). */
export function webviewLanguage(): LanguageEvent {
  return { type: 'language', locale: vscode.env.language, strings: { ...(vscode.l10n.bundle ?? {}) } };
}

/** The view models the host builds (result, compare, report) say their strings in the display language. */
export function hostLocale(): ViewLocale {
  return { t: (key, ...args) => vscode.l10n.t(key, ...args), locale: vscode.env.language };
}

/**
 * Every string of the views, for extraction: called by nothing at run time (the views look their
 * strings up by key in the bundle); the list is what @vscode/l10n-dev reads.
 */
export function webviewStringKeys(): string[] {
  return [
    // webview/shared
    vscode.l10n.t('A message from LLM Bench could not be read.'),
    vscode.l10n.t('LLM Bench sent the {0} an update it could not read; the panel shows the last good state.'),
  ];
}
