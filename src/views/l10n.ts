/**
 * The views' strings in the display language (issue 27). A view model and the DOM layer say each
 * string through a `Translate`: the English text is the key, `{0}`, `{1}` its arguments, as in
 * VS Code's l10n bundles. The host hands the webviews the bundle VS Code loaded for the extension
 * (src/host/webview-strings.ts lists every key, so that @vscode/l10n-dev extracts them); without
 * one, as in the command line and the tests, the English key is the text.
 */

import { english, type Translate } from '../format/translate';
import { fillPlaceholders } from '../format/warning-text';

export { english, type Translate };

export { fillPlaceholders };

/** A translator over `strings` (key -> text); a key the table lacks reads in English. */
export function translator(strings: Readonly<Record<string, string>> = {}): Translate {
  return (key, ...args) => fillPlaceholders(Object.prototype.hasOwnProperty.call(strings, key) ? strings[key]! : key, args);
}


/** The language a view draws in: its translator and the locale numbers and dates are formatted with. */
export interface ViewLocale {
  t: Translate;
  /** A BCP 47 tag, VS Code's display language (vscode.env.language): 'en', 'zh-cn'. */
  locale: string;
}

export const ENGLISH: ViewLocale = { t: english, locale: 'en' };

/**
 * A status in a word, for a run, a tune or a trial (its file's own word as the key): complete,
 * partial, failed, running, cancelled, refused, failed-to-start; null is unknown. A status this
 * version does not know reads as it is.
 */
export function statusWord(status: string | null, t: Translate = english): string {
  switch (status) {
    case 'complete':
      return t('complete');
    case 'partial':
      return t('partial');
    case 'failed':
      return t('failed');
    case 'running':
      return t('running');
    case 'cancelled':
      return t('cancelled');
    case 'refused':
      return t('refused');
    case 'failed-to-start':
      return t('failed to start');
    case null:
      return t('unknown');
    default:
      return status;
  }
}

/** Sentences one after another: a space between them, none after a full-width stop (Chinese runs its sentences on). */
export function joinSentences(...sentences: string[]): string {
  return sentences.filter((sentence) => sentence !== '').reduce((text, sentence) => (text === '' ? sentence : /[。！？：；）]$/.test(text) ? `${text}${sentence}` : `${text} ${sentence}`), '');
}
