// How a view looks at the sizes users have (1000x700, 1280x800) in dark, light and high-contrast
// themes: screenshots for review, and checks that nothing is cut off or hidden in a sideways
// scroll without a word, and that every text reads in the theme. Shared by the gallery scenarios.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { repoRoot } from '../../vscode/harness/tools';
import { contrastRatio, MARK_CONTRAST, over, parseColor, TEXT_CONTRAST, toHex, type Rgba } from '../../../src/views/contrast';
import { saveScreenshot } from './index';

export const THEMES = { dark: 'Default Dark Modern', light: 'Default Light Modern', 'high-contrast': 'Default High Contrast' } as const;
export const SIZES = [
  { width: 1000, height: 700 },
  { width: 1280, height: 800 },
];

/**
 * The class a view gives a box that scrolls sideways on purpose (webview/shared/dom.ts
 * `markOverflow`): with it the box shows a shadow at its cut edge and a visible `.scroll-hint`
 * line saying that more is to the side. A box that scrolls without both hides what it cuts.
 */
export const OVERFLOW_MARK = 'overflows';

/**
 * What a user would see cut off at this size; answers one phrase per problem:
 * - the page itself scrolls sideways;
 * - a table, chart or toolbar box ends past the view's right edge;
 * - a box scrolls inside itself (its content is wider than the box: `scrollWidth > clientWidth`),
 *   whatever its edge, unless the view marks that overflow visibly (OVERFLOW_MARK and a visible
 *   hint). The first two alone miss a table that scrolls inside a box that fits: the columns it
 *   hides were found by no check (issue 26).
 */
export async function clippedParts(view: Frame): Promise<string[]> {
  return view.evaluate((mark) => {
    const width = document.documentElement.clientWidth;
    const problems: string[] = [];
    const name = (node: Element) => `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}${typeof node.className === 'string' && node.className ? `.${node.className.trim().split(/\s+/).join('.')}` : ''}`;
    if (document.documentElement.scrollWidth > width + 1) problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${width} px)`);
    // A box inside one that scrolls sideways is judged by that box (below), not by its own edge.
    const insideScroller = (node: Element) => {
      for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
        const overflowX = getComputedStyle(up).overflowX;
        if (overflowX === 'auto' || overflowX === 'scroll') return true;
      }
      return false;
    };
    for (const node of document.querySelectorAll('.chart-card, .chart-box, .chart-grid, .table-scroll, table, .toolbar, h1, h2')) {
      if (insideScroller(node)) continue;
      const right = node.getBoundingClientRect().right;
      if (right > width + 1) problems.push(`${name(node)} ends at ${Math.round(right)} px of ${width}`);
    }
    const shown = (node: Element) => {
      const box = (node as HTMLElement).getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(node).visibility !== 'hidden' && (node.textContent ?? '').trim().length > 0;
    };
    // Every box that can scroll sideways (overflow-x other than visible), and every table and chart container.
    const candidates = new Set<Element>([...document.querySelectorAll('.table-scroll, table, .chart-card, .chart-box, .chart-grid')]);
    for (const node of document.body.querySelectorAll('*')) {
      const overflowX = getComputedStyle(node).overflowX;
      if (overflowX === 'auto' || overflowX === 'scroll') candidates.add(node);
    }
    for (const node of candidates) {
      const box = node as HTMLElement;
      if (box.getClientRects().length === 0) continue;
      if (box.scrollWidth <= box.clientWidth + 1) continue;
      const hint = box.parentElement?.querySelector(':scope > .scroll-hint');
      if (box.classList.contains(mark) && hint && shown(hint)) continue;
      problems.push(`${name(box)} scrolls sideways inside itself (${box.scrollWidth} px of content in ${box.clientWidth} px), hiding part of it without saying so`);
    }
    return problems;
  }, OVERFLOW_MARK);
}

const THEME_COLORS_FILE = join(repoRoot, 'test', 'fixtures', 'vscode-theme-colors.json');

/**
 * The theme variables test/unit/contrast.test.ts computes contrast with are the ones this VS Code
 * sets on a webview: a difference fails, naming each variable (a newer VS Code changed a default
 * theme), and LLMBENCH_UPDATE_THEME_COLORS=1 writes the values seen into the file instead.
 */
export async function checkThemeColors(view: Frame, themeName: string): Promise<void> {
  const file = JSON.parse(readFileSync(THEME_COLORS_FILE, 'utf8')) as { source: string; themes: Record<string, { bodyClass: string; variables: Record<string, string> }> };
  const recorded = file.themes[themeName];
  if (!recorded) throw new Error(`${THEME_COLORS_FILE} has no theme "${themeName}"`);
  const seen = await view.evaluate((names) => {
    const style = getComputedStyle(document.documentElement);
    return { bodyClass: document.body.className.split(/\s+/).find((c) => c.startsWith('vscode-')) ?? '', variables: Object.fromEntries(names.map((name) => [name, style.getPropertyValue(name).trim()])) };
  }, Object.keys(recorded.variables));
  const differences = Object.entries(recorded.variables).filter(([name, value]) => seen.variables[name] !== value).map(([name, value]) => `${name}: ${value} in the file, ${seen.variables[name] || 'unset'} here`);
  if (seen.bodyClass !== recorded.bodyClass) differences.push(`body class ${recorded.bodyClass} in the file, ${seen.bodyClass} here`);
  if (differences.length === 0) return;
  if (process.env['LLMBENCH_UPDATE_THEME_COLORS'] === '1') {
    file.themes[themeName] = seen;
    writeFileSync(THEME_COLORS_FILE, `${JSON.stringify(file, null, 2)}\n`);
    return;
  }
  throw new Error(`the ${themeName} theme's colours differ from ${THEME_COLORS_FILE} (run with LLMBENCH_UPDATE_THEME_COLORS=1 to take them): ${differences.join('; ')}`);
}

/** A run of text as the page draws it: its colour, the backgrounds under it (innermost first, to the first opaque one), its size. */
interface DrawnText {
  where: string;
  text: string;
  color: string;
  backgrounds: string[];
  fontSize: number;
  bold: boolean;
}

/**
 * Text the view writes below WCAG AA contrast on what is behind it (4.5:1; 3:1 for large text,
 * 24 px or 18.66 px bold): every element with text of its own, as the browser computed its colour
 * and the backgrounds under it in this theme. The toolkit's own controls (custom elements, VS
 * Code's button colours) are VS Code's, not ours, and left out. One phrase per colour pair.
 * `within`: only the text inside the element it selects (the quick input on the workbench page).
 */
export async function lowContrastText(view: Frame, within = 'body'): Promise<string[]> {
  const drawn = await view.evaluate((rootSelector: string): DrawnText[] => {
    const found = new Map<string, DrawnText>();
    for (const node of document.querySelector(rootSelector)?.querySelectorAll('*') ?? []) {
      const element = node as HTMLElement;
      const own = [...element.childNodes].filter((child) => child.nodeType === Node.TEXT_NODE).map((child) => child.textContent ?? '').join('').trim();
      if (!own || element.closest('svg')) continue;
      if ([...ancestors(element)].some((up) => up.tagName.includes('-'))) continue;
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      if (box.width === 0 || box.height === 0 || style.visibility === 'hidden') continue;
      const backgrounds: string[] = [];
      for (const up of ancestors(element)) {
        const background = getComputedStyle(up).backgroundColor;
        if (background === 'transparent' || /rgba\(.*,\s*0\)$/.test(background)) continue;
        backgrounds.push(background);
        if (!background.startsWith('rgba')) break;
      }
      const key = `${style.color}|${backgrounds.join('|')}|${style.fontSize}|${style.fontWeight}`;
      if (!found.has(key)) {
        const where = `${element.tagName.toLowerCase()}${element.className && typeof element.className === 'string' ? `.${element.className.trim().split(/\s+/).join('.')}` : ''}`;
        found.set(key, { where, text: own.slice(0, 40), color: style.color, backgrounds, fontSize: Number.parseFloat(style.fontSize), bold: Number(style.fontWeight) >= 700 });
      }
    }
    return [...found.values()];

    function* ancestors(from: Element): Generator<Element> {
      for (let up: Element | null = from; up; up = up.parentElement) yield up;
    }
  }, within);
  return drawn.flatMap((text) => {
    const white: Rgba = { r: 255, g: 255, b: 255, a: 1 };
    const layers = text.backgrounds.map((b) => parseColor(b)).filter((c): c is Rgba => c !== null);
    const behind = layers.reduceRight<Rgba>((base, layer) => over(layer, base), white);
    const foreground = parseColor(text.color);
    if (!foreground) return [`${text.where} ("${text.text}"): colour ${text.color} unreadable`];
    const large = text.fontSize >= 24 || (text.fontSize >= 18.66 && text.bold);
    const ratio = contrastRatio(foreground, behind);
    const minimum = large ? MARK_CONTRAST : TEXT_CONTRAST;
    return ratio >= minimum ? [] : [`${text.where} ("${text.text}") ${text.color} on ${toHex(behind)}: ${ratio.toFixed(2)}:1, under ${minimum}:1`];
  });
}

/**
 * The box `selector` finds (a table's scroll box, or the box around a table) shows all its content
 * at this size: it does not scroll sideways, marked or not. `parent`: check the table's parent box.
 */
export async function boxFits(view: Frame, selector: string, what: string, parent = false): Promise<void> {
  const seen = await view.locator(selector).first().evaluate((node: HTMLElement, up) => {
    const box = up ? (node.parentElement as HTMLElement) : node;
    return { scroll: box.scrollWidth, client: box.clientWidth };
  }, parent);
  if (seen.scroll > seen.client + 1) throw new Error(`${what} does not fit: ${seen.scroll} px of content in ${seen.client} px`);
}

/** Every canvas of the view has been drawn on (chart.js paints nothing on a canvas it could not lay out). */
async function assertCanvasesDrawn(view: Frame, name: string): Promise<void> {
  const blank = await view.locator('canvas').evaluateAll((canvases: HTMLCanvasElement[]) =>
    canvases.filter((canvas) => {
      const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
      return !data || data.every((v, i) => i % 4 !== 3 || v === 0);
    }).length,
  );
  if (blank > 0) throw new Error(`${blank} blank chart canvas(es) in the ${name}`);
}

/** A gallery picture is what the scenario is for: one that could not be taken fails it. */
async function shoot(page: Page, name: string): Promise<void> {
  if (!(await saveScreenshot(page, name))) throw new Error(`the screenshot ${name} could not be taken`);
}

/**
 * Screenshots `view` at each size (and again with its charts in view, or the part `scrollTo`
 * selects), checking its canvases are drawn, nothing is cut off and its text reads in the theme.
 */
export async function shootAtEachSize(page: Page, view: () => Promise<Frame>, name: string, check?: (frame: Frame) => Promise<void>, scrollTo = '.chart-card'): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    const frame = await view();
    // A resize re-lays the charts out on the next frames.
    await frame.waitForTimeout(500);
    await shoot(page, `gallery-${name}-${size.width}`);
    await assertCanvasesDrawn(frame, name);
    // The charts sit below the fold: a second picture with them in view.
    await frame.locator(scrollTo).first().evaluate((part) => part.scrollIntoView({ block: 'start' }));
    await shoot(page, `gallery-${name}-charts-${size.width}`);
    await frame.evaluate(() => window.scrollTo(0, 0));
    const clipped = await clippedParts(frame);
    if (clipped.length > 0) throw new Error(`${name} at ${size.width}x${size.height}: ${clipped.join('; ')}`);
    const faint = await lowContrastText(frame);
    if (faint.length > 0) throw new Error(`${name} at ${size.width}x${size.height}, text below WCAG AA contrast: ${faint.join('; ')}`);
    await check?.(frame);
  }
}


/** VS Code's quick input: the palette's questions and the import review's lists. */
const QUICK_INPUT = '.quick-input-widget';

/**
 * What is cut off in the quick input at this size: the widget past the window's edge; a title,
 * message or item line (label and description) ended with an ellipsis, its text wider than its box;
 * a placeholder wider than its field (the labels question's placeholder was cut, issue 26). An
 * item's detail line may end in VS Code's ellipsis (its hover shows it whole), except one that
 * matches `whole` (the plan on Start: its last words were the time it takes).
 */
export async function clippedQuickInput(page: Page, whole?: RegExp): Promise<string[]> {
  return page.evaluate(([selector, wholeSource]) => {
    const widget = document.querySelector(selector!) as HTMLElement | null;
    if (!widget || widget.getClientRects().length === 0) return ['no quick input is showing'];
    const mustBeWhole = wholeSource ? new RegExp(wholeSource) : null;
    const problems: string[] = [];
    const box = widget.getBoundingClientRect();
    if (box.left < -1 || box.right > document.documentElement.clientWidth + 1) problems.push(`the quick input spans ${Math.round(box.left)} to ${Math.round(box.right)} px of ${document.documentElement.clientWidth}`);
    const input = widget.querySelector('input');
    if (input && input.placeholder && !input.value) {
      const style = getComputedStyle(input);
      const context = document.createElement('canvas').getContext('2d');
      if (context) {
        context.font = style.font;
        const room = input.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
        const width = context.measureText(input.placeholder).width;
        if (width > room + 1) problems.push(`the placeholder "${input.placeholder}" is cut (${Math.round(width)} px in ${Math.round(room)} px)`);
      }
    }
    const seen = new Set<string>();
    for (const node of widget.querySelectorAll('*')) {
      const element = node as HTMLElement;
      const text = (element.textContent ?? '').trim();
      if (!text || seen.has(text) || element.getClientRects().length === 0) continue;
      if (getComputedStyle(element).overflowX === 'visible' || element.scrollWidth <= element.clientWidth + 1) continue;
      // The list and its scroll boxes hold rows, not a line of text.
      if (element.querySelector('.monaco-list-row') || element.classList.contains('monaco-list-row')) continue;
      const detail = element.closest('.quick-input-list-label-meta') !== null;
      if (detail && !(mustBeWhole && mustBeWhole.test(text))) continue;
      seen.add(text);
      problems.push(`${detail ? 'the detail' : 'the line'} "${text.slice(0, 100)}" is cut (${element.scrollWidth} px of text in ${element.clientWidth} px)`);
    }
    return problems;
  }, [QUICK_INPUT, whole?.source ?? ''] as const);
}

/**
 * Screenshots the quick input now showing at each size (.test-artifacts/gallery-<name>-<width>.png),
 * checking that nothing in it is cut off (`whole`: detail lines that must show whole) and that its
 * text reads in the theme; `check` runs at each size too. Ends at the last size.
 */
export async function shootQuickInputAtEachSize(page: Page, name: string, { check, whole }: { check?: () => Promise<void>; whole?: RegExp } = {}): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    // No hover over an item (its tooltip would cover the next ones): the pointer rests on the empty editor area.
    await page.mouse.move(size.width - 200, size.height - 150);
    // The workbench lays the quick input out again on the next frames.
    await page.waitForTimeout(400);
    await shoot(page, `gallery-${name}-${size.width}`);
    const cut = await clippedQuickInput(page, whole);
    if (cut.length > 0) throw new Error(`${name} at ${size.width}x${size.height}: ${cut.join('; ')}`);
    const faint = await lowContrastText(page.mainFrame(), QUICK_INPUT);
    if (faint.length > 0) throw new Error(`${name} at ${size.width}x${size.height}, text below WCAG AA contrast: ${faint.join('; ')}`);
    await check?.();
  }
}
