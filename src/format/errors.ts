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

/** How much of a body an error message quotes. */
export const QUOTE_LENGTH = 200;

/** The first characters of a body, on one line, for an error message. */
export function quote(text: string): string {
  const flat = printable(text.replace(/\s+/g, ' ').trim());
  return flat.length > QUOTE_LENGTH ? `${flat.slice(0, QUOTE_LENGTH)}...` : flat;
}

/** The system or undici code of an error, looking through its causes (fetch and undici wrap them). */
export function errorCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    const { code, errors, cause } = e as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    e = (Array.isArray(errors) ? errors[0] : undefined) ?? cause;
  }
  return undefined;
}

/** What went wrong, in words: an Error's message, anything else thrown as it prints. */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
