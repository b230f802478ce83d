/**
 * Colours for charts and custom drawing, read from the `--vscode-*` CSS variables VS Code sets on
 * every webview, so views follow light, dark and high-contrast themes (and change with them).
 * CSS uses the variables directly, except for the colours of text that a theme may not make
 * readable on its own background (`applyReadableColors`); this module is for canvas, which cannot read CSS.
 */
import { fontStack } from '../../src/views/fonts';
import { MARK_CONTRAST, parseColor, readableOn, TEXT_CONTRAST, toHex } from '../../src/views/contrast';

export type ThemeKind = 'light' | 'dark' | 'high-contrast' | 'high-contrast-light';

export interface Theme {
  kind: ThemeKind;
  background: string;
  foreground: string;
  mutedForeground: string;
  gridLines: string;
  border: string;
  error: string;
  warning: string;
  success: string;
  fontFamily: string;
  fontSize: number;
  /** Categorical colours for series, distinguishable on this theme's background. */
  palette: string[];
}

/**
 * Used when a variable is missing (an older VS Code, a test page). Hues follow VS Code's own chart
 * colours; the light set is darker so that thin lines keep contrast on white.
 */
const FALLBACK: Record<'light' | 'dark', Omit<Theme, 'kind' | 'fontFamily' | 'fontSize'>> = {
  dark: {
    background: '#1e1e1e',
    foreground: '#cccccc',
    mutedForeground: '#9d9d9d',
    gridLines: 'rgba(204, 204, 204, 0.15)',
    border: '#454545',
    error: '#f14c4c',
    warning: '#cca700',
    success: '#89d185',
    palette: ['#3794ff', '#f28c28', '#89d185', '#b180d7', '#cca700', '#f14c4c', '#4ec9b0', '#e07ab8'],
  },
  light: {
    background: '#ffffff',
    foreground: '#3b3b3b',
    mutedForeground: '#6f6f6f',
    gridLines: 'rgba(59, 59, 59, 0.15)',
    border: '#d4d4d4',
    error: '#e51400',
    warning: '#bf8803',
    success: '#388a34',
    palette: ['#1a85ff', '#d18616', '#388a34', '#652d90', '#bf8803', '#e51400', '#0f7b6c', '#b5218a'],
  },
};

/** VS Code's chart colour variables, in the order series take them. */
const PALETTE_VARIABLES = ['blue', 'orange', 'green', 'purple', 'yellow', 'red'].map((c) => `--vscode-charts-${c}`);

export function themeKind(body: HTMLElement = document.body): ThemeKind {
  const classes = body.classList;
  if (classes.contains('vscode-high-contrast-light')) return 'high-contrast-light';
  if (classes.contains('vscode-high-contrast')) return 'high-contrast';
  if (classes.contains('vscode-light')) return 'light';
  return 'dark';
}

export function readTheme(root: HTMLElement = document.documentElement): Theme {
  const kind = themeKind(root.ownerDocument.body ?? undefined);
  const style = getComputedStyle(root);
  return themeFromVariables(kind, (name) => style.getPropertyValue(name).trim(), fontStack(style.getPropertyValue('--vscode-editor-font-family').trim(), style.getPropertyValue('--vscode-font-family').trim() || 'system-ui'), Number.parseFloat(style.getPropertyValue('--vscode-font-size')) || 13);
}

/**
 * The theme from VS Code's variables (`read` answers '' for one not set), every colour a view
 * writes or draws with made readable on the editor background (src/views/contrast.ts): text and
 * status colours 4.5:1, series colours 3:1. The themes' own chart and status colours often fall
 * short there (Light Modern's error red is 3.3:1 on its white). Pure: tested with the real themes' values.
 */
export function themeFromVariables(kind: ThemeKind, read: (name: string) => string, fontFamily = 'system-ui, sans-serif', fontSize = 13): Theme {
  const fallback = FALLBACK[kind === 'light' || kind === 'high-contrast-light' ? 'light' : 'dark'];
  const value = (name: string, otherwise: string) => read(name) || otherwise;
  const background = opaque(value('--vscode-editor-background', fallback.background));
  const text = (color: string) => readableOn(color, background, TEXT_CONTRAST);
  // Some themes give chart colours an alpha (pale on white); series lines need them solid.
  const fromVariables = PALETTE_VARIABLES.map((name, i) => opaque(value(name, fallback.palette[i] ?? '')));
  const foreground = text(value('--vscode-charts-foreground', value('--vscode-foreground', fallback.foreground)));
  return {
    kind,
    background,
    foreground,
    mutedForeground: text(value('--vscode-descriptionForeground', fallback.mutedForeground)),
    // High-contrast themes want solid lines; VS Code's chart line colour is faint by design.
    gridLines: kind.startsWith('high-contrast') ? value('--vscode-contrastBorder', foreground) : value('--vscode-charts-lines', fallback.gridLines),
    border: value('--vscode-panel-border', fallback.border),
    error: text(value('--vscode-errorForeground', fallback.error)),
    warning: text(value('--vscode-editorWarning-foreground', fallback.warning)),
    // The chart green, not testing.iconPassed: that one is #73c991 in every theme but high-contrast light (2.0:1 on white).
    success: text(value('--vscode-charts-green', fallback.success)),
    fontFamily,
    fontSize,
    palette: [...fromVariables, ...fallback.palette.slice(fromVariables.length)].map((color) => readableOn(color, background, MARK_CONTRAST)),
  };
}

/**
 * The colours the style sheet writes text in, by property name: media/webview.css reads
 * `--llmbench-*` before VS Code's own variable; these are the theme's, made readable.
 */
export function readableColorProperties(theme: Theme): Record<string, string> {
  return {
    '--llmbench-foreground': theme.foreground,
    '--llmbench-muted': theme.mutedForeground,
    '--llmbench-error': theme.error,
    '--llmbench-warning': theme.warning,
    '--llmbench-success': theme.success,
  };
}

/**
 * Sets `readableColorProperties` on <body>, through the CSSOM, which the webviews' Content Security
 * Policy allows (it blocks style attributes and <style> elements).
 */
export function applyReadableColors(theme: Theme, body: HTMLElement = document.body): void {
  for (const [name, color] of Object.entries(readableColorProperties(theme))) body.style.setProperty(name, color);
}

export function seriesColor(theme: Theme, index: number): string {
  return theme.palette[index % theme.palette.length] ?? theme.foreground;
}

/** The colour with an alpha, for bands and fills (any colour `parseColor` reads; others as they are). */
export function withAlpha(color: string, alpha: number): string {
  const c = parseColor(color);
  return c ? `rgba(${c.r}, ${c.g}, ${c.b}, ${alpha})` : color;
}

/** The colour without its alpha, as #rrggbb (any colour `parseColor` reads; others as they are). */
export function opaque(color: string): string {
  const c = parseColor(color);
  return c ? toHex(c) : color;
}

/**
 * Calls `onChange` with the new theme whenever VS Code switches themes, and keeps the page's text
 * colours readable in it (`applyReadableColors`, now and at each switch). Returns a stop function.
 */
export function onThemeChange(onChange: (theme: Theme) => void): () => void {
  applyReadableColors(readTheme());
  const observer = new MutationObserver(() => {
    const theme = readTheme();
    applyReadableColors(theme);
    onChange(theme);
  });
  observer.observe(document.body, { attributes: true, attributeFilter: ['class'] });
  return () => observer.disconnect();
}
