/**
 * The one module that touches @vscode/webview-ui-toolkit. The toolkit is frozen (deprecated by
 * Microsoft in 2025): keeping it behind this file means swapping it (e.g. for
 * @vscode-elements/elements) changes one module. Only the components our views use are registered.
 */
import {
  provideVSCodeDesignSystem,
  vsCodeButton,
  vsCodeDivider,
  vsCodeDropdown,
  vsCodeOption,
  vsCodeProgressRing,
} from '@vscode/webview-ui-toolkit';
import { t } from './l10n';
import { statusWord } from '../../src/views/l10n';

let registered = false;

/** Defines the toolkit's custom elements (`vscode-button`, ...). Safe to call more than once. */
export function registerToolkit(): void {
  if (registered) return;
  registered = true;
  provideVSCodeDesignSystem().register(vsCodeButton(), vsCodeDivider(), vsCodeDropdown(), vsCodeOption(), vsCodeProgressRing());
}

export type ButtonAppearance = 'primary' | 'secondary' | 'icon';

/** A toolkit button; `label` is set as text. */
export function button(label: string, onClick: () => void, appearance: ButtonAppearance = 'primary', id?: string): HTMLElement {
  registerToolkit();
  const node = document.createElement('vscode-button');
  node.setAttribute('appearance', appearance);
  if (id) node.id = id;
  node.textContent = label;
  node.addEventListener('click', onClick);
  return node;
}

/** A toolkit dropdown of text options; calls `onChange` with the chosen value. */
export function dropdown(
  options: Array<{ value: string; label: string }>,
  selected: string,
  onChange: (value: string) => void,
  ariaLabel: string,
): HTMLElement {
  registerToolkit();
  const node = document.createElement('vscode-dropdown');
  node.setAttribute('aria-label', ariaLabel);
  // The initial value: without it the dropdown starts at '' and shows an option whose value is ''
  // (e.g. "none") instead of the one marked selected.
  node.setAttribute('value', selected);
  for (const option of options) {
    const item = document.createElement('vscode-option');
    item.setAttribute('value', option.value);
    if (option.value === selected) item.setAttribute('selected', '');
    item.textContent = option.label;
    node.appendChild(item);
  }
  node.addEventListener('change', () => onChange((node as HTMLElement & { value: string }).value));
  return node;
}

/**
 * A badge in the toolkit's look. Not the toolkit's vscode-badge: its template binds a `style`
 * attribute, which our CSP (no 'unsafe-inline') blocks. Styled by `.badge` in media/webview.css.
 */
export function badge(text: string, tone?: 'error' | 'warning' | 'ok'): HTMLElement {
  const node = document.createElement('span');
  node.className = tone ? `badge badge-${tone}` : 'badge';
  node.textContent = text;
  return node;
}

/** A run's status as a badge that reads as what it is: a failure in the theme's error colour with a cross, a partial run as a warning. */
export function statusBadge(status: string): HTMLElement {
  if (status === 'failed') return badge(`\u2717 ${t('failed')}`, 'error');
  if (status === 'partial') return badge(t('partial'), 'warning');
  return badge(statusWord(status, t));
}

export function divider(): HTMLElement {
  registerToolkit();
  return document.createElement('vscode-divider');
}

export function progressRing(label: string): HTMLElement {
  registerToolkit();
  const node = document.createElement('vscode-progress-ring');
  node.setAttribute('aria-label', label);
  return node;
}

/** Enables or disables a toolkit control (they read the `disabled` attribute). */
export function setDisabled(node: HTMLElement, disabled: boolean): void {
  node.toggleAttribute('disabled', disabled);
}
