/**
 * The HTML page of every LLM Bench webview: one script bundle (dist/webview/<view>.js) and one
 * style sheet (media/webview.css) under a strict Content Security Policy. Scripts run only with
 * this page's nonce; there is no 'unsafe-inline' or 'unsafe-eval'. chart.js sizes its canvas
 * through the CSSOM and the toolkit styles itself with constructable style sheets, neither of
 * which the policy blocks; zod runs without its eval-compiled parsers (webview/shared/zod-csp.ts).
 * `hostWebview` puts that page in a panel or custom editor and opens its session (webview-session.ts).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { htmlPage } from '../report/page';
import { escapeXml } from '../report/svg';
import { savePng } from './save-file';
import { WebviewSession, type SessionOptions } from './webview-session';
import { webviewLanguage } from './webview-strings';
import type { LanguageEvent } from '../format/messages/protocol';

export interface WebviewPage {
  /** The bundle name: webview/<view>/main.ts builds to dist/webview/<view>.js. */
  view: string;
  title: string;
  /** Extra style sheets from media/, after the shared media/webview.css. */
  styles?: string[];
  /**
   * What the page says until its script draws it ("Reading 3.6 MB..."): part of the HTML, so it
   * shows as soon as the webview opens, before the bundle has loaded.
   */
  loading?: string;
}

/** Options for a panel or custom editor webview: scripts on, files only from our bundles and media. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    // The nonce lets the toolkit's one probe <style> element in (FAST tests for :focus-visible
    // support with it); style attributes and other inline styles stay blocked.
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}

function loadingSkeleton(page: WebviewPage): string {
  if (page.loading === undefined) return '';
  return `<section class="loading-skeleton"><h1>${escapeXml(page.title)}</h1><p class="muted">${escapeXml(page.loading)}</p><div class="loading-bar" role="progressbar" aria-label="${escapeXml(page.loading)}"></div></section>`;
}

/** A file's size for a loading line (the one formatter of sizes, src/views/number-format.ts). */
export { formatFileSize } from '../views/number-format';

/**
 * The display language as data in the page (not a script: it never runs), so that what a page builds
 * as it loads, and a state it restores, read in that language before the host's first message.
 */
function languageBlock(language: LanguageEvent): string {
  return `<script type="application/json" id="llmbench-language">${JSON.stringify(language).replace(/</g, '\\u003c')}</script>`;
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${page.view}.js`));
  const styles = ['webview.css', ...(page.styles ?? [])].map((name) =>
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', name)).toString(),
  );
  return htmlPage({
    contentSecurityPolicy: contentSecurityPolicy(webview.cspSource, nonce),
    title: page.title,
    lang: vscode.env.language,
    head: [`<meta property="csp-nonce" content="${nonce}">`, ...styles.map((href) => `<link rel="stylesheet" href="${href}">`)].join('\n'),
    bodyAttributes: ` data-view="${escapeXml(page.view)}"`,
    body: `<main id="app" aria-busy="true">${loadingSkeleton(page)}</main>
${languageBlock(webviewLanguage())}
<script nonce="${nonce}" src="${script.toString()}"></script>`,
  });
}

/**
 * Loads `page` into `panel` and opens its session: a failed request is said in a notification, and
 * where `pngUri` is given the page's Save PNG saves through the save dialog, starting there.
 */
export function hostWebview<Show, Ask extends { type: string }>(
  panel: vscode.WebviewPanel,
  extensionUri: vscode.Uri,
  page: WebviewPage,
  options: Omit<SessionOptions<Ask>, 'onFailure' | 'savePng' | 'language'> & { pngUri?(chartId: string): vscode.Uri },
): WebviewSession<Show, Ask, vscode.WebviewPanel> {
  panel.webview.options = webviewOptions(extensionUri);
  panel.webview.html = webviewHtml(panel.webview, extensionUri, page);
  const { pngUri } = options;
  return new WebviewSession(panel, {
    ...options,
    language: webviewLanguage(),
    onFailure: (message) => void vscode.window.showErrorMessage(vscode.l10n.t('LLM Bench: {0}', message)),
    ...(pngUri ? { savePng: (chartId: string, dataUrl: string) => savePng(dataUrl, pngUri(chartId)) } : {}),
  });
}
