// Colour that reads in every theme (issue 26): the WCAG contrast of every colour the webviews write
// text or draw marks with, computed on the real default themes' values, which VS Code set on a
// webview in code-server (test/fixtures/vscode-theme-colors.json; the e2e gallery checks that file
// against the running VS Code). Text must reach 4.5:1 on the editor background, marks 3:1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contrastOf, MARK_CONTRAST, readableOn, TEXT_CONTRAST } from '../../src/views/contrast';
import { PAGE_BACKGROUND, PALETTE } from '../../src/report/svg';
import { readableColorProperties, themeFromVariables, type ThemeKind } from '../../webview/shared/theme';

const root = process.env['LLMBENCH_ROOT'] ?? join(__dirname, '..', '..', '..');

interface CapturedTheme {
  bodyClass: string;
  variables: Record<string, string>;
}
const captured = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'vscode-theme-colors.json'), 'utf8')) as { themes: Record<string, CapturedTheme> };
const THEMES = Object.entries(captured.themes);
const kindOf = (bodyClass: string): ThemeKind => (bodyClass.includes('high-contrast-light') ? 'high-contrast-light' : bodyClass.includes('high-contrast') ? 'high-contrast' : bodyClass.includes('light') ? 'light' : 'dark');

test('the contrast ratio is WCAG\'s: black on white 21, #777 on white 4.48, the issue\'s green on white 2.0', () => {
  assert.equal(contrastOf('#000000', '#ffffff'), 21);
  assert.equal(contrastOf('#fff', '#fff'), 1);
  assert.ok(Math.abs(contrastOf('#777777', '#ffffff') - 4.48) < 0.01);
  assert.ok(Math.abs(contrastOf('#73c991', '#ffffff') - 2.0) < 0.05, 'compare\'s "better" green in the light theme');
  // A translucent colour counts as it shows: blended over the background.
  const blended = contrastOf('rgba(255, 255, 255, 0.7)', '#000000');
  assert.ok(blended > contrastOf('#b2b2b2', '#000000') && blended < contrastOf('#b3b3b3', '#000000'), `${blended}`);
  assert.ok(Number.isNaN(contrastOf('var(--x)', '#fff')), 'what cannot be read is not a colour');
});

test('readableOn keeps a colour that reads and moves one that does not just far enough, toward the far end', () => {
  assert.equal(readableOn('#005fb8', '#ffffff', TEXT_CONTRAST), '#005fb8', 'already 6.4:1');
  for (const [color, background] of [['#73c991', '#ffffff'], ['#f85149', '#ffffff'], ['#0000aa', '#1f1f1f'], ['#bf8803', '#f3f3f3']] as const) {
    const made = readableOn(color, background, TEXT_CONTRAST);
    const ratio = contrastOf(made, background);
    assert.ok(ratio >= TEXT_CONTRAST, `${color} on ${background} became ${made}, ${ratio.toFixed(2)}:1`);
    assert.ok(ratio < TEXT_CONTRAST + 0.2, `no further than needed: ${ratio.toFixed(2)}:1`);
  }
  assert.ok(contrastOf(readableOn('#0000aa', '#1f1f1f', MARK_CONTRAST), '#1f1f1f') >= MARK_CONTRAST, 'a dark blue on a dark background is lightened');
});

for (const [name, theme] of THEMES) {
  test(`${name}: every colour the webviews write text or draw with reads on its editor background`, () => {
    const read = (variable: string) => theme.variables[variable] ?? '';
    const resolved = themeFromVariables(kindOf(theme.bodyClass), read);
    const background = resolved.background;
    assert.equal(background, read('--vscode-editor-background'));
    for (const [role, color] of Object.entries({ foreground: resolved.foreground, muted: resolved.mutedForeground, error: resolved.error, warning: resolved.warning, success: resolved.success })) {
      assert.ok(contrastOf(color, background) >= TEXT_CONTRAST, `${role} ${color}: ${contrastOf(color, background).toFixed(2)}:1`);
    }
    resolved.palette.forEach((color, i) => assert.ok(contrastOf(color, background) >= MARK_CONTRAST, `series colour ${i} ${color}: ${contrastOf(color, background).toFixed(2)}:1`));
  });

  test(`${name}: every text colour in media/webview.css reads on the editor background, as the page resolves it`, () => {
    // The style sheet's colours resolve as in the page: --llmbench-* (set from the theme by
    // applyReadableColors) first, then VS Code's variable. Before this issue compare's "better"
    // cells read testing.iconPassed, #73c991 on white: 2.0:1.
    const properties: Record<string, string> = { ...theme.variables, ...readableColorProperties(themeFromVariables(kindOf(theme.bodyClass), (v) => theme.variables[v] ?? '')) };
    const resolve = (value: string): string | null => {
      const variable = /^var\(\s*(--[\w-]+)\s*(?:,\s*(.+))?\)$/.exec(value.trim());
      if (!variable) return value.trim();
      const set = properties[variable[1]!];
      if (set !== undefined && set !== 'None') return set;
      return variable[2] === undefined ? null : resolve(variable[2]);
    };
    const css = readFileSync(join(root, 'media', 'webview.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    const background = theme.variables['--vscode-editor-background']!;
    const checked: string[] = [];
    for (const rule of css.matchAll(/([^{}]+)\{([^}]*)\}/g)) {
      const selector = rule[1]!.trim();
      // Text on a background of its own is checked against that background: the badge.
      const own = /(?:^|;)\s*background\s*:\s*([^;]+)/.exec(rule[2]!)?.[1];
      for (const declaration of rule[2]!.matchAll(/(?:^|;)\s*color\s*:\s*([^;]+)/g)) {
        const color = resolve(declaration[1]!);
        const behind = own ? resolve(own) : background;
        assert.ok(color, `${selector}: color ${declaration[1]} resolves to nothing in ${name}`);
        if (behind === null || behind === 'transparent') continue;
        const ratio = contrastOf(color, behind);
        assert.ok(ratio >= TEXT_CONTRAST, `${selector} { color: ${declaration[1]!.trim()} } is ${color} on ${behind}: ${ratio.toFixed(2)}:1 in ${name}`);
        checked.push(selector);
      }
    }
    for (const selector of ['.muted', '.delta-table .delta-better', '.delta-table .delta-worse', '.tone-warning', '.tone-error', '.badge']) {
      assert.ok(checked.some((s) => s.includes(selector)), `${selector} was checked`);
    }
  });
}

test('the HTML export\'s curve colours reach 4.5:1 on its white page (its knee labels are written in them)', () => {
  // Okabe-Ito's sky blue and orange were 2.1:1 and 2.0:1 there.
  assert.equal(PAGE_BACKGROUND, '#ffffff');
  PALETTE.forEach((color, i) => assert.ok(contrastOf(color, PAGE_BACKGROUND) >= TEXT_CONTRAST, `colour ${i} ${color}: ${contrastOf(color, PAGE_BACKGROUND).toFixed(2)}:1`));
  assert.equal(new Set(PALETTE).size, PALETTE.length, 'still eight colours');
});
