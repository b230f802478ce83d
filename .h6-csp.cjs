const http = require('http'); const fs = require('fs'); const path = require('path');
const { launchChromium } = require('./out/test/vscode/harness/browser.js');
const nonce = 'abc123';
const html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data:; font-src 'self'"><meta property="csp-nonce" content="${nonce}"><link rel="stylesheet" href="/media/webview.css"></head><body class="${process.argv[2] ?? 'vscode-dark'}"><main id="app"></main>
<script nonce="${nonce}" src="/fake.js"></script><script nonce="${nonce}" src="/dist/webview/live.js"></script></body></html>`;
const fake = `document.addEventListener('securitypolicyviolation', (e) => console.log('VIOLATION', e.violatedDirective, e.sourceFile, e.lineNumber, e.columnNumber, e.target && e.target.outerHTML && e.target.outerHTML.slice(0, 200)));
window.acquireVsCodeApi = () => ({ postMessage: (m) => console.log('POST', JSON.stringify(m)), getState: () => undefined, setState: () => {} });`;
const server = http.createServer((req, res) => {
  if (req.url === '/') { res.setHeader('content-type', 'text/html'); return res.end(html); }
  if (req.url === '/fake.js') { res.setHeader('content-type', 'text/javascript'); return res.end(fake); }
  const file = path.join(process.cwd(), req.url.split('?')[0]);
  if (!fs.existsSync(file)) { res.statusCode = 404; return res.end(); }
  res.setHeader('content-type', file.endsWith('.css') ? 'text/css' : file.endsWith('.js') ? 'text/javascript' : 'application/octet-stream');
  res.end(fs.readFileSync(file));
});
server.listen(0, '127.0.0.1', async () => {
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
  page.on('console', (m) => console.log('console:', m.text().slice(0, 400)));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForTimeout(500);
  const state = JSON.parse(fs.readFileSync('/tmp/h6/state.json', 'utf8'));
  await page.evaluate((s) => window.dispatchEvent(new MessageEvent('message', { data: { type: 'state', state: s } })), state);
  await page.waitForTimeout(800);
  console.log(await page.evaluate(() => [...document.querySelectorAll('progress')].map((p) => p.id + ' ' + p.className + ' ' + p.value + '/' + p.max + ' ' + JSON.stringify(p.getBoundingClientRect()))));
  await page.screenshot({ path: `/tmp/h6/page-${process.argv[2] ?? 'vscode-dark'}.png`, fullPage: true });
  await browser.close(); server.close();
});
