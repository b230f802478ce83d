/**
 * Colours for charts and custom drawing, read from the `--vscode-*` CSS variables VS Code sets on
 * every webview, so views follow light, dark and high-contrast themes (and change with them).
 * CSS uses the variables directly; this module is for canvas, which cannot read CSS.
 */

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
  const fallback = FALLBACK[kind === 'light' || kind === 'high-contrast-light' ? 'light' : 'dark'];
  const style = getComputedStyle(root);
  const read = (name: string, otherwise: string) => style.getPropertyValue(name).trim() || otherwise;
  // Some themes give chart colours an alpha (pale on white); series lines need them solid.
  const fromVariables = PALETTE_VARIABLES.map((name, i) => opaque(read(name, fallback.palette[i] ?? '')));
  const foreground = read('--vscode-charts-foreground', read('--vscode-foreground', fallback.foreground));
  return {
    kind,
    background: read('--vscode-editor-background', fallback.background),
    foreground,
    mutedForeground: read('--vscode-descriptionForeground', fallback.mutedForeground),
    // High-contrast themes want solid lines; VS Code's chart line colour is faint by design.
    gridLines: kind.startsWith('high-contrast') ? read('--vscode-contrastBorder', foreground) : read('--vscode-charts-lines', fallback.gridLines),
    border: read('--vscode-panel-border', fallback.border),
    error: opaque(read('--vscode-errorForeground', fallback.error)),
    warning: read('--vscode-editorWarning-foreground', fallback.warning),
    success: read('--vscode-testing-iconPassed', fallback.success),
    fontFamily: read('--vscode-font-family', 'system-ui, sans-serif'),
    fontSize: Number.parseFloat(read('--vscode-font-size', '13')) || 13,
    palette: [...fromVariables, ...fallback.palette.slice(fromVariables.length)],
  };
}

export function seriesColor(theme: Theme, index: number): string {
  return theme.palette[index % theme.palette.length] ?? theme.foreground;
}

/** The colour with an alpha, for bands and fills. Accepts #rgb, #rrggbb(aa) and rgb()/rgba(). */
export function withAlpha(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{3,8})$/i.exec(color.trim())?.[1];
  if (hex) {
    const full = hex.length <= 4 ? [...hex].map((c) => c + c).join('') : hex;
    const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16));
    return `rgba(${r}, ${g}, ${b}, ${alpha})`;
  }
  const rgb = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/i.exec(color.trim());
  if (rgb) return `rgba(${rgb[1]}, ${rgb[2]}, ${rgb[3]}, ${alpha})`;
  return color;
}

/** The colour without its alpha: #rgba and #rrggbbaa lose the last digits, rgba() becomes rgb(). */
export function opaque(color: string): string {
  const c = color.trim();
  const hex = /^#([0-9a-f]{4}|[0-9a-f]{8})$/i.exec(c)?.[1];
  if (hex) return `#${hex.slice(0, hex.length === 4 ? 3 : 6)}`;
  const rgba = /^rgba\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/i.exec(c);
  return rgba ? `rgb(${rgba[1]}, ${rgba[2]}, ${rgba[3]})` : c;
}

/** Calls `onChange` with the new theme whenever VS Code switches themes. Returns a stop function. */
export function onThemeChange(onChange: (theme: Theme) => void): () => void {
  const observer = new MutationObserver(() => onChange(readTheme()));
  observer.observe(document.body, { attributes: true, attributeFilter: ['class'] });
  return () => observer.disconnect();
}
