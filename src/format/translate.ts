/**
 * The shape every translated string goes through (issue 27), here so that any room may take one:
 * the English text is the key, `{0}`, `{1}` its arguments, as in VS Code's l10n bundles. The
 * translator over a bundle is src/views/l10n.ts's; the host's is `vscode.l10n.t`.
 */
import { fillPlaceholders } from './warning-text';

/** A string in the display language: `key` is the English text, `{n}` in it is `args[n]`. */
export type Translate = (key: string, ...args: (string | number)[]) => string;

/** English: the key is the text. The command line, the tests and a page before its host's language arrives use it. */
export const english: Translate = (key, ...args) => fillPlaceholders(key, args);
