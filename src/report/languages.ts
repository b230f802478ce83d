/**
 * The languages a report can be written in (`llmbench report --lang`): English, the keys themselves,
 * and Simplified Chinese from the extension's own l10n bundle, the one VS Code loads for a zh-cn
 * display language (issue 27), so that the command line's reports read as the extension's exports.
 */
import simplifiedChinese from '../../l10n/bundle.l10n.zh-cn.json';
import { ENGLISH, translator, type ViewLocale } from '../views/l10n';

export const REPORT_LANGUAGES = ['en', 'zh-cn'] as const;
export type ReportLanguage = (typeof REPORT_LANGUAGES)[number];

export function reportLocale(language: ReportLanguage): ViewLocale {
  return language === 'zh-cn' ? { t: translator(simplifiedChinese as Record<string, string>), locale: 'zh-cn' } : ENGLISH;
}
