/**
 * The fonts charts and reports draw their text with. Chinese labels (issue 27) need a CJK face that
 * the first font may lack: the stack ends with the system fonts that hold Simplified Chinese on
 * Windows (Microsoft YaHei), macOS (PingFang SC) and Linux (Noto Sans CJK SC, Debian's
 * fonts-noto-cjk), so a browser or canvas falls back per glyph and never draws tofu boxes.
 */
export const CJK_FONTS = ['Microsoft YaHei', 'PingFang SC', 'Noto Sans CJK SC'] as const;

const GENERIC = new Set(['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'ui-sans-serif', 'ui-serif', 'ui-monospace']);

const quoted = (family: string): string => (/^[\w-]+$/.test(family) ? family : `"${family.replace(/"/g, '')}"`);

/**
 * The stack with the given fonts first (in the extension, the editor's font, then the workbench's),
 * the CJK faces after them and a generic family last. `first` may hold CSS lists such as VS Code's
 * `--vscode-font-family`; empty entries and repeats drop out, and their generic families
 * (monospace, sans-serif) move to the end: a generic one resolves to a concrete font before the
 * CJK faces are tried, and on some systems that font's own fallback is not Chinese.
 */
export function fontStack(...first: string[]): string {
  const given = first.flatMap((list) => list.split(',')).map((family) => family.trim()).filter((family) => family !== '');
  const generic = (family: string): boolean => GENERIC.has(family.replace(/['"]/g, '').toLowerCase());
  const families = [...given.filter((f) => !generic(f)), ...CJK_FONTS.map(quoted), ...given.filter(generic), 'sans-serif'];
  const seen = new Set<string>();
  return families.filter((family) => {
    const key = family.replace(/['"]/g, '').toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }).join(', ');
}
