/**
 * Element helpers for every view. Text from files, servers and messages is untrusted, so these
 * helpers only ever set `textContent` and attributes: nothing here parses a string as HTML.
 */
import type { TableColumn } from '../../src/views/chart-spec';

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


/** A table whose cells are plain text. */
export function textTable(columns: TableColumn[], rows: string[][], className = 'data-table'): HTMLTableElement {
  const head = el('tr', {}, columns.map((c) =>
    el('th', { className: c.numeric ? 'num' : '', attrs: { scope: 'col' }, ...(c.description ? { title: c.description } : {}) }, [
      c.label,
      c.unit ? el('span', { className: 'unit', text: c.unit }) : null,
    ]),
  ));
  const body = rows.map((row) =>
    el('tr', {}, row.map((cell, i) => el('td', { className: columns[i]?.numeric ? 'num' : '', text: cell }))),
  );
  return el('table', { className }, [el('thead', {}, [head]), el('tbody', {}, body)]);
}

/** Shows an error as text in a banner with role=alert, so screen readers announce it. */
export function errorBanner(message: string, detail?: string): HTMLElement {
  return el('div', { className: 'error-banner', attrs: { role: 'alert' } }, [
    el('strong', { text: message }),
    detail ? el('div', { className: 'error-detail', text: detail }) : null,
  ]);
}
