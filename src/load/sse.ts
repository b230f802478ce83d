/**
 * Incremental Server-Sent Events parser over raw bytes (the WHATWG event-stream rules).
 *
 * It sits on the hot path of every streamed chunk, so it works on bytes: line ends (LF, CR,
 * CRLF) are ASCII and never occur inside a multi-byte UTF-8 sequence, which lets it split lines
 * without a streaming text decoder and decode only the values of `data:` and `event:` lines,
 * once each line is complete. Comment lines and unknown fields are skipped undecoded.
 */

/** Called once per complete event; `type` is the `event:` field, 'message' when absent. */
export type SseEventHandler = (data: string, type: string) => void;

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

/** `data` and `event` as bytes, to recognise a field without decoding its line. */
const DATA = [0x64, 0x61, 0x74, 0x61];
const EVENT = [0x65, 0x76, 0x65, 0x6e, 0x74];

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export class SseParser {
  /** Bytes of a line whose end has not arrived yet. */
  private partial: Buffer | null = null;
  /** The previous read ended with CR: a LF opening the next one belongs to that CRLF. */
  private skipLeadingLf = false;
  /** Data lines of the event being read, joined with LF; undefined until its first data line. */
  private data: string | undefined = undefined;
  private type = 'message';
  private atStreamStart = true;
  /** Events dispatched so far. */
  eventCount = 0;

  constructor(private readonly onEvent: SseEventHandler) {}

  push(bytes: Uint8Array): void {
    const buffer = asBuffer(bytes);
    let start = 0;
    const end = buffer.length;
    if (end === 0) return;
    if (this.skipLeadingLf) {
      this.skipLeadingLf = false;
      if (buffer[0] === LF) start = 1;
    }
    if (this.partial !== null) {
      // Only the first line of this read continues the partial one: join just that much.
      const firstEnd = nextLineEnd(buffer, start, buffer.indexOf(CR, start));
      if (firstEnd === -1) {
        this.partial = Buffer.concat([this.partial, buffer.subarray(start, end)]);
        return;
      }
      const joined = Buffer.concat([this.partial, buffer.subarray(start, firstEnd)]);
      this.partial = null;
      this.line(joined, 0, joined.length);
      start = this.afterLineEnd(buffer, firstEnd, end);
    }
    let nextCr = buffer.indexOf(CR, start);
    while (start < end) {
      if (nextCr !== -1 && nextCr < start) nextCr = buffer.indexOf(CR, start);
      const lineEnd = nextLineEnd(buffer, start, nextCr);
      if (lineEnd === -1) {
        // Copy: the caller may reuse its buffer after this returns.
        this.partial = Buffer.from(buffer.subarray(start, end));
        return;
      }
      this.line(buffer, start, lineEnd);
      start = this.afterLineEnd(buffer, lineEnd, end);
    }
  }

  /**
   * The stream ended. A last event without its closing blank line is still dispatched: some
   * servers end the body right after the final `data:` line.
   * Returns true when a line was left unterminated (the stream may have been cut short).
   */
  end(): boolean {
    const cut = this.partial !== null;
    if (this.partial !== null) {
      const last = this.partial;
      this.partial = null;
      this.line(last, 0, last.length);
    }
    this.dispatch();
    return cut;
  }

  /** Position after the line end at `lineEnd`, noting a CR whose LF may open the next read. */
  private afterLineEnd(buffer: Buffer, lineEnd: number, end: number): number {
    if (buffer[lineEnd] === CR) {
      if (lineEnd + 1 === end) {
        this.skipLeadingLf = true;
        return end;
      }
      if (buffer[lineEnd + 1] === LF) return lineEnd + 2;
    }
    return lineEnd + 1;
  }

  private line(buffer: Buffer, start: number, end: number): void {
    if (this.atStreamStart) {
      this.atStreamStart = false;
      // A byte order mark may open the stream.
      if (end - start >= 3 && buffer[start] === 0xef && buffer[start + 1] === 0xbb && buffer[start + 2] === 0xbf) start += 3;
    }
    if (start === end) {
      this.dispatch();
      return;
    }
    const first = buffer[start];
    if (first === COLON) return; // comment
    if (first === 0x64 /* d */ && matchesField(buffer, start, end, DATA)) {
      const value = buffer.toString('utf8', valueStart(buffer, start + 4, end), end);
      this.data = this.data === undefined ? value : this.data + '\n' + value;
    } else if (first === 0x65 /* e */ && matchesField(buffer, start, end, EVENT)) {
      this.type = buffer.toString('utf8', valueStart(buffer, start + 5, end), end);
    }
    // id, retry and unknown fields do not matter to a completion stream.
  }

  private dispatch(): void {
    const data = this.data;
    const type = this.type;
    this.data = undefined;
    this.type = 'message';
    if (data === undefined) return;
    this.eventCount++;
    this.onEvent(data, type);
  }
}

/** Index of the CR or LF ending the line that begins at `start`, or -1. `nextCr` is the next CR at or after `start`. */
function nextLineEnd(buffer: Buffer, start: number, nextCr: number): number {
  const lf = buffer.indexOf(LF, start);
  return nextCr === -1 ? lf : lf === -1 ? nextCr : Math.min(lf, nextCr);
}

/** The line is the field `name`: the name followed by a colon or by the line end. */
function matchesField(buffer: Buffer, start: number, end: number, name: number[]): boolean {
  const after = start + name.length;
  if (after > end) return false;
  for (let i = 1; i < name.length; i++) if (buffer[start + i] !== name[i]) return false;
  return after === end || buffer[after] === COLON;
}

/** Where the value begins after the field name: past the colon and one optional space. */
function valueStart(buffer: Buffer, afterName: number, end: number): number {
  if (afterName >= end) return end;
  const afterColon = afterName + 1;
  return afterColon < end && buffer[afterColon] === SPACE ? afterColon + 1 : afterColon;
}
