/**
 * The page's display language. The host writes it into the page as JSON data (webview-html.ts), so
 * that what a page builds as it loads reads in that language at once, and posts it again before its
 * first view (the `language` event, vscode-api.ts). Without either, English. The DOM layer says every
 * string through `t`.
 */
import './zod-csp';
import { LanguageEventSchema } from '../../src/format/messages/protocol';
import { ENGLISH, translator, type Translate, type ViewLocale } from '../../src/views/l10n';
import { setDisplayLocale } from '../../src/views/number-format';

function fromPage(): ViewLocale {
  const block = typeof document === 'undefined' ? null : document.getElementById('llmbench-language');
  if (!block?.textContent) return ENGLISH;
  try {
    const parsed = LanguageEventSchema.safeParse(JSON.parse(block.textContent));
    return parsed.success ? { t: translator(parsed.data.strings), locale: parsed.data.locale } : ENGLISH;
  } catch {
    return ENGLISH;
  }
}

let current: ViewLocale = fromPage();
setDisplayLocale(current.locale);

/** The page's string `key` in the display language (src/views/l10n.ts). */
export const t: Translate = (key, ...args) => current.t(key, ...args);

/** The page's translator and locale, for the view models the page runs itself. */
export const viewLocale = (): ViewLocale => current;

/** Takes the host's language; `<html lang>` follows it. */
export function setLanguage(locale: string, strings: Record<string, string>): void {
  current = { t: translator(strings), locale };
  setDisplayLocale(locale);
  document.documentElement.lang = locale;
}
