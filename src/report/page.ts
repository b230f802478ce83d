/**
 * The frame of every HTML page LLM Bench writes (the exported report and each webview): the
 * Content Security Policy comes first in <head>, before anything it must govern.
 */
import { escapeXml } from './svg';

export interface HtmlPage {
  contentSecurityPolicy: string;
  title: string;
  /** Markup after the title in <head>: style sheets, a nonce announcement. */
  head: string;
  /** Attributes of <body>, already escaped, with a leading space. */
  bodyAttributes?: string;
  body: string;
  /**
   * The page's language (BCP 47, default en): VS Code's display language in a webview. With zh-cn
   * the browser draws Han characters with the Simplified Chinese forms of a CJK font, not the
   * Japanese ones that an `en` page may get.
   */
  lang?: string;
}

export function htmlPage(page: HtmlPage): string {
  return `<!DOCTYPE html>
<html lang="${/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(page.lang ?? '') ? page.lang : 'en'}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${page.contentSecurityPolicy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(page.title)}</title>
${page.head}
</head>
<body${page.bodyAttributes ?? ''}>
${page.body}
</body>
</html>
`;
}
