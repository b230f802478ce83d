/**
 * Colour that reads in every theme: WCAG 2.1 contrast between a colour and the background it is
 * drawn on, and the nearest colour of the same hue that reaches a required contrast. The webviews
 * take their colours from the user's theme (webview/shared/theme.ts); a theme's chart and status
 * colours are not made for text on its own editor background (Light Modern's error red, #f85149 on
 * white, is 3.3:1; the test-passed green compare used, #73c991, is 2.0:1), so every colour a view
 * writes text or draws a mark with goes through `readableOn` first. The HTML export does the same
 * on its white page. Pure: unit tested (test/unit/contrast.test.ts) against the real themes.
 */

/** WCAG AA for text (1.4.3): 4.5:1. */
export const TEXT_CONTRAST = 4.5;
/** WCAG AA for graphical objects such as chart lines and marks (1.4.11): 3:1. */
export const MARK_CONTRAST = 3;

export interface Rgba {
  r: number;
  g: number;
  b: number;
  /** 0..1 */
  a: number;
}

/** A CSS colour as #rgb, #rgba, #rrggbb, #rrggbbaa, rgb() or rgba(); null for anything else (a name, a variable). */
export function parseColor(text: string): Rgba | null {
  const c = text.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3,8})$/.exec(c)?.[1];
  if (hex && [3, 4, 6, 8].includes(hex.length)) {
    const full = hex.length <= 4 ? [...hex].map((d) => d + d).join('') : hex;
    const byte = (i: number) => Number.parseInt(full.slice(i, i + 2), 16);
    return { r: byte(0), g: byte(2), b: byte(4), a: full.length === 8 ? byte(6) / 255 : 1 };
  }
  const rgb = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:[\s,/]+([\d.]+%?))?\s*\)$/.exec(c);
  if (rgb) {
    const alpha = rgb[4] === undefined ? 1 : rgb[4].endsWith('%') ? Number.parseFloat(rgb[4]) / 100 : Number(rgb[4]);
    return { r: Number(rgb[1]), g: Number(rgb[2]), b: Number(rgb[3]), a: Math.min(1, Math.max(0, alpha)) };
  }
  return null;
}

const hex2 = (n: number) => Math.round(Math.min(255, Math.max(0, n))).toString(16).padStart(2, '0');

/** "#rrggbb" (the alpha dropped). */
export function toHex({ r, g, b }: Rgba): string {
  return `#${hex2(r)}${hex2(g)}${hex2(b)}`;
}

/** The colour as it shows over an opaque background: its alpha blended in. */
export function over(color: Rgba, background: Rgba): Rgba {
  const mix = (f: number, b: number) => f * color.a + b * (1 - color.a);
  return { r: mix(color.r, background.r), g: mix(color.g, background.g), b: mix(color.b, background.b), a: 1 };
}

/** WCAG relative luminance of an opaque colour, 0 (black) to 1 (white). */
export function luminance({ r, g, b }: Rgba): number {
  const channel = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** The WCAG contrast ratio (1 to 21) of `foreground` over `background`; a translucent foreground is blended over it first. */
export function contrastRatio(foreground: Rgba, background: Rgba): number {
  const base = background.a < 1 ? over(background, { r: 255, g: 255, b: 255, a: 1 }) : background;
  const [l1, l2] = [luminance(over(foreground, base)), luminance(base)];
  return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
}

/** `contrastRatio` of two CSS colours; NaN when either cannot be read. */
export function contrastOf(foreground: string, background: string): number {
  const [f, b] = [parseColor(foreground), parseColor(background)];
  return f && b ? contrastRatio(f, b) : Number.NaN;
}

/**
 * `color` (blended over `background` when translucent) if it reaches `minimum` contrast there;
 * else the same hue moved toward black on a light background, or toward white on a dark one, just
 * far enough to reach it (at worst black or white, which reach 4.5:1 on any background). An
 * unreadable colour is returned as it is.
 */
export function readableOn(color: string, background: string, minimum: number): string {
  const [c, b] = [parseColor(color), parseColor(background)];
  if (!c || !b) return color;
  const base = b.a < 1 ? over(b, { r: 255, g: 255, b: 255, a: 1 }) : b;
  const solid = over(c, base);
  if (contrastRatio(solid, base) >= minimum) return toHex(solid);
  // Toward whichever end of the scale lies farther from the background's luminance.
  const target = luminance(base) > 0.18 ? 0 : 255;
  const toward = (t: number): Rgba => ({ r: solid.r + (target - solid.r) * t, g: solid.g + (target - solid.g) * t, b: solid.b + (target - solid.b) * t, a: 1 });
  // Contrast grows with t: bisect for the least change that reaches the minimum.
  let [low, high] = [0, 1];
  for (let i = 0; i < 20; i++) {
    const mid = (low + high) / 2;
    if (contrastRatio(toward(mid), base) >= minimum) high = mid;
    else low = mid;
  }
  // Written as #rrggbb, a channel may round to a shade a hair under the minimum: step on past it.
  let hex = toHex(toward(high));
  while (high < 1 && contrastRatio(parseColor(hex) as Rgba, base) < minimum) hex = toHex(toward((high = Math.min(1, high + 0.002))));
  return hex;
}
