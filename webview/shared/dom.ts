/**
 * Element helpers for every view. Text from files, servers and messages is untrusted, so these
 * helpers only ever set `textContent` and attributes: nothing here parses a string as HTML.
 */
import type { TableColumn } from '../../src/views/chart-spec';
import { t } from './l10n';

export type Child = Node | string | null | undefined | false;

export interface ElementProps {
  className?: string;
  text?: string;
  title?: string;
  /** Attributes set with setAttribute (never `on*` handlers or `style`: use events and CSS classes). */
  attrs?: Record<string, string>;
}

/** Creates an element; string children become text nodes. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElementProps = {},
  children: Child[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.title !== undefined) node.title = props.title;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (/^on/i.test(name) || name.toLowerCase() === 'style') throw new Error(`el(): attribute "${name}" is not allowed`);
    node.setAttribute(name, value);
  }
  if (props.text !== undefined) node.textContent = props.text;
  append(node, children);
  return node;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

export function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** Finds a required element by id: a missing one is a bug in the view's own skeleton. */
export function byId<T extends HTMLElement = HTMLElement>(id: string, root: Document = document): T {
  const node = root.getElementById(id);
  if (!node) throw new Error(`element #${id} is missing`);
  return node as T;
}


/** A cell's text: lines separated by "\n" stack in the cell (a step over its load), each a block of its own. */
export function cellLines(text: string): Child[] {
  if (!text.includes('\n')) return [text];
  return text.split('\n').map((line, i) => el('span', { className: i === 0 ? 'line' : 'line sub', text: line }));
}

/** A table whose cells are plain text (a cell's "\n" stacks its lines). */
export function textTable(columns: TableColumn[], rows: string[][], className = 'data-table'): HTMLTableElement {
  const head = el('tr', {}, columns.map((c) =>
    el('th', { className: c.numeric ? 'num' : '', attrs: { scope: 'col' }, ...(c.description ? { title: t(c.description) } : {}) }, [
      t(c.label),
      c.unit ? el('span', { className: 'unit', text: t(c.unit) }) : null,
    ]),
  ));
  const body = rows.map((row) =>
    el('tr', {}, row.map((cell, i) => el('td', { className: columns[i]?.numeric ? 'num' : '' }, cellLines(cell)))),
  );
  return el('table', { className }, [el('thead', {}, [head]), el('tbody', {}, body)]);
}

/** What a box that scrolls sideways says under itself while it hides part of its content. */
export const SCROLL_HINT = 'More columns to the right: scroll the table sideways.';

/**
 * A box for a table that may be wider than the view: it scrolls sideways and, while it hides a
 * part, says so: the box gets the class `overflows` (a shadow at its cut edge, media/webview.css)
 * and a line under it (SCROLL_HINT). The tables are laid out to fit a 1000 px window; this is
 * for a narrower one, or a long name. The e2e layout check accepts a sideways scroll only so marked.
 */
export function scrollBox(content: HTMLElement, id?: string): HTMLElement {
  const box = el('div', { className: 'table-scroll', ...(id ? { attrs: { id } } : {}) }, [content]);
  const hint = el('p', { className: 'scroll-hint muted hidden', text: t(SCROLL_HINT) });
  const update = () => {
    const overflows = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle('overflows', overflows);
    hint.classList.toggle('hidden', !overflows);
  };
  // Measured once laid out, and again whenever the box or its table changes size (a resize, new rows).
  if (typeof ResizeObserver !== 'undefined') {
    const observer = new ResizeObserver(update);
    observer.observe(box);
    observer.observe(content);
  }
  requestAnimationFrame(update);
  return el('div', { className: 'scroll-frame' }, [box, hint]);
}

/** Shows an error as text in a banner with role=alert, so screen readers announce it. */
export function errorBanner(message: string, detail?: string): HTMLElement {
  return el('div', { className: 'error-banner', attrs: { role: 'alert' } }, [
    el('strong', { text: message }),
    detail ? el('div', { className: 'error-detail', text: detail }) : null,
  ]);
}
