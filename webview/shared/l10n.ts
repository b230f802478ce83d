/**
 * The page's display language: English until the host's `language` event (vscode-api.ts) sets the
 * strings of the extension's l10n bundle and the locale. The DOM layer says every string through `t`.
 */
import { english, translator, type Translate, type ViewLocale } from '../../src/views/l10n';

let current: ViewLocale = { t: english, locale: 'en' };

/** The page's string `key` in the display language (src/views/l10n.ts). */
export const t: Translate = (key, ...args) => current.t(key, ...args);

/** The page's translator and locale, for the view models the page runs itself. */
export const viewLocale = (): ViewLocale => current;

/** Takes the host's language; `<html lang>` follows it. */
export function setLanguage(locale: string, strings: Record<string, string>): void {
  current = { t: translator(strings), locale };
  document.documentElement.lang = locale;
}
