/** The charts' and reports' font stack (issue 27): the given fonts first, a CJK face before any generic family. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CJK_FONTS, fontStack } from '../../src/views/fonts';
import { renderHtmlReport } from '../../src/report/html';
import { htmlPage } from '../../src/report/page';
import { buildReportModel } from '../../src/views/report';
import { concurrencySweep } from '../helpers/result-documents';

const families = (stack: string): string[] => stack.split(',').map((f) => f.trim().replace(/"/g, ''));

test("VS Code's editor font comes first, then the workbench font, the CJK faces before any generic family", () => {
  // Default editor and workbench fonts of VS Code on Linux.
  const stack = families(fontStack("'Droid Sans Mono', 'monospace', monospace", '-apple-system, BlinkMacSystemFont, "Segoe WPC", "Segoe UI", "Ubuntu", "Droid Sans", sans-serif'));
  assert.equal(stack[0], "'Droid Sans Mono'");
  for (const cjk of CJK_FONTS) assert.ok(stack.includes(cjk), `${cjk} missing from ${stack.join(', ')}`);
  const firstGeneric = stack.findIndex((f) => ['monospace', 'sans-serif'].includes(f.replace(/'/g, '')));
  assert.ok(firstGeneric > stack.indexOf('Noto Sans CJK SC'), `a generic family before the CJK faces: ${stack.join(', ')}`);
  assert.equal(stack.filter((f) => f.replace(/'/g, '') === 'monospace').length, 1, 'repeats drop out');
});

test('an empty editor font leaves the workbench font first', () => {
  assert.deepEqual(families(fontStack('', 'system-ui')), ['system-ui', ...CJK_FONTS, 'sans-serif']);
});

test("the HTML report's text and chart SVG (which inherits the body font) name the CJK faces", () => {
  const runs = [{ name: 'a', doc: concurrencySweep(4), source: '/results/a.llmbench.json' }];
  const html = renderHtmlReport(buildReportModel(runs, {}), runs, '报告');
  const body = /body\{font:14px\/1\.45 ([^;]+);/.exec(html)?.[1];
  assert.ok(body, 'no body font in the report');
  assert.deepEqual(families(body).slice(0, 3), ['system-ui', '-apple-system', 'Segoe UI']);
  for (const cjk of CJK_FONTS) assert.ok(families(body).includes(cjk), `${cjk} missing from the report's font: ${body}`);
  assert.doesNotMatch(html, /svg text\{[^}]*font-family/, 'the SVG sets its own font and loses the stack');
});

test("a page's lang is the display language (Simplified Chinese glyph forms), anything not a language tag falls back to en", () => {
  const page = (lang: string | undefined) => /<html lang="([^"]*)">/.exec(htmlPage({ contentSecurityPolicy: "default-src 'none'", title: 't', head: '', body: '', ...(lang === undefined ? {} : { lang }) }))?.[1];
  assert.equal(page('zh-cn'), 'zh-cn');
  assert.equal(page(undefined), 'en');
  assert.equal(page('"><script>'), 'en');
});
