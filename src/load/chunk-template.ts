/**
 * Reads the text of streamed chunks without parsing their JSON each time.
 *
 * A server sends one JSON shape for every content chunk of a response, with only the text
 * changing: `{"id":"x","choices":[{"index":0,"delta":{"content":"TEXT"},"finish_reason":null}]}`.
 * Parsing every chunk is most of a client's work per token. A template is that JSON cut around
 * the text's string body; a later chunk that is the same prefix and suffix around a body without
 * quotes, backslashes or control characters is the same event with that text: replacing the body
 * of a JSON string by another plain body changes nothing else. Any other chunk (the last one with
 * its finish reason, usage, an error, escaped text) does not match and is parsed as JSON.
 */

/** A body that reads as itself inside a JSON string: no quote, backslash or control character. */
const PLAIN_BODY = /^[^"\\\u0000-\u001f]*$/;
/** Put in place of the text to check that the cut really is the text (see learn). */
const PROBE = 'llmbench-probe';

export class ChunkTemplate {
  private constructor(
    private readonly prefix: string,
    private readonly suffix: string,
  ) {}

  /**
   * The template of `data`, an event whose only text `text` is the string member `member`, or
   * null when the text cannot be cut out with certainty. `readText` reads an event's JSON the
   * way the caller does (null for an event that is not a text-only chunk); the cut is checked
   * with it: the same JSON with another text in the cut must read as that text.
   */
  static learn(data: string, member: string, text: string, readText: (data: string) => string | null): ChunkTemplate | null {
    const literal = JSON.stringify(text);
    const needle = `"${member}":${literal}`;
    const at = data.indexOf(needle);
    if (at === -1 || data.indexOf(needle, at + 1) !== -1) return null;
    const bodyStart = at + needle.length - literal.length + 1;
    const template = new ChunkTemplate(data.slice(0, bodyStart), data.slice(bodyStart + literal.length - 2));
    return readText(template.prefix + PROBE + template.suffix) === PROBE ? template : null;
  }

  /** The text of an event with this template's shape, or null when it has another shape. */
  textOf(data: string): string | null {
    const { prefix, suffix } = this;
    const bodyEnd = data.length - suffix.length;
    if (bodyEnd < prefix.length) return null;
    // Compared as slices: several times faster than startsWith on V8 for prefixes this long.
    if (data.slice(0, prefix.length) !== prefix || data.slice(bodyEnd) !== suffix) return null;
    const body = data.slice(prefix.length, bodyEnd);
    return PLAIN_BODY.test(body) ? body : null;
  }
}
