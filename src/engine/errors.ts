/**
 * Errors the engine raises before it sends anything, kept apart from its own failures so that a
 * front end can tell the user "fix your input" (the command line's exit 2) from "the run broke".
 */

/** The configuration, a dataset or a tokenizer cannot be used as given; the message says what to change. */
export class BadInputError extends Error {
  override readonly name = 'BadInputError';
}

/**
 * Text from outside (a dataset line, a server's body) made safe to print on a terminal: control
 * characters, which could move the cursor or change colours, are shown as escapes. Line breaks stay.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
