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
}

export function htmlPage(page: HtmlPage): string {
  return `<!DOCTYPE html>
<html lang="en">
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
