/**
 * The result file, written as the run goes so that a crash, a `kill -9` or a cancel loses no
 * completed request, and valid JSON after every write.
 *
 * The file is `head + "steps":[ + steps + tail`: the tail closes the open step's `requests` (its
 * summary still null), the steps, and the document with the run's status, which is therefore
 * written after the steps. A completed request is added with one positional write of `,record` +
 * tail over the old tail: O(1) per request, and a process killed between two writes leaves a
 * complete document. When a step starts or ends and when the run ends, only the tail changes: the
 * file is copied by the system to a temporary file, its tail replaced there, and the copy renamed
 * over the old one, so no reader sees half of it and the records never pass through this process.
 * The records are kept in memory only when asked (`keepRecords`): a step's summary comes from a
 * StepAccumulator, so a run's memory does not grow with its requests. A shard run's head ends with
 * its shards section, padded with spaces so that its members' states, which change as the run goes,
 * are rewritten in place with the tail's next replacement.
 */
import { closeSync, copyFileSync, ftruncateSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { SloConfigSchema, type ProfileConfig } from '../format/config';
import {
  parseResultDocument,
  type CacheReset,
  type ParseOutcome,
  type RequestRecord,
  type ClientLoad,
  type ResultDocument,
  type RunStatus,
  SHARD_STATES,
  type ShardsInfo,
  type Step,
  type StepProfile,
  type StepSummary,
  type FailoverEvent,
  type StepWarning,
} from '../format/result';
import type { MetricSeries } from '../format/server-metrics';
import { StepAccumulator, summarizeStep } from './stats';
import { messageOf } from '../format/errors';

/** What a document holds before any step: everything but status, steps and what is known only as the run goes. */
export type ResultHead = Omit<ResultDocument, 'status' | 'statusReason' | 'finishedAt' | 'steps' | 'importedFrom' | 'warnings' | 'sampledAfterSteps'>;

/**
 * What a step's end adds besides its summary: why it went beyond its limits, its span on the run's
 * clock (known exactly only once its requests are timed, so written at its end), and the samples
 * taken since the previous step ended.
 */
export interface StepEnding {
  note?: string | null;
  startMs?: number;
  endMs?: number;
  sampled?: MetricSeries[];
  /** What the client's threads went through during the step. */
  client?: ClientLoad;
  /** What failover did during the step (a run over several endpoints). */
  failovers?: FailoverEvent[];
  /** What the run saw about the step (a busy server at its start, a stop guard that ended it, a client that was the limit), added to what its records show (too short). */
  warnings?: StepWarning[];
}

/** Closes an open step whose summary is not known yet. */
const OPEN_STEP_CLOSE = '],"summary":null}';

/**
 * Closes the steps and the document with the run's status, its warnings and (at the end) the
 * samples taken after the last step. Warnings are few and short: the tail, rewritten with every
 * record, stays small.
 */
function runTail(doc: Pick<ResultDocument, 'status' | 'statusReason' | 'finishedAt' | 'warnings' | 'sampledAfterSteps' | 'tokenCrossCheck'>): string {
  const warnings = doc.warnings && doc.warnings.length > 0 ? `,"warnings":${JSON.stringify(doc.warnings)}` : '';
  const crossCheck = doc.tokenCrossCheck ? `,"tokenCrossCheck":${JSON.stringify(doc.tokenCrossCheck)}` : '';
  const after = doc.sampledAfterSteps && doc.sampledAfterSteps.length > 0 ? `,"sampledAfterSteps":${JSON.stringify(doc.sampledAfterSteps)}` : '';
  return `]${warnings}${crossCheck}${after},"status":${JSON.stringify(doc.status)},"statusReason":${JSON.stringify(doc.statusReason ?? null)},"finishedAt":${JSON.stringify(doc.finishedAt ?? null)}}`;
}

function writeFailure(path: string, error: unknown, what = 'result file'): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = messageOf(error);
  const advice =
    code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT'
      ? 'The disk is full or a file size limit was reached: free space or choose another folder. The file keeps every request written before.'
      : 'Check that its folder exists and is writable.';
  return new Error(`Cannot write the ${what} ${path}: ${reason}. ${advice}`);
}

/** Replaces the file at once (a temporary file renamed over it): a reader or a crash sees the old text or the new, never half. */
export function writeAtomically(path: string, text: string, what = 'result file'): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    // A full disk fails the write after the file was created: leave no temporary file behind.
    rmSync(temporary, { force: true });
    throw writeFailure(path, error, what);
  }
}

/** Writes all of `bytes` at `position`; a short write (full disk, file size limit) goes on until it fails with the reason. */
function writeFully(fd: number, bytes: Buffer, position: number): void {
  for (let done = 0; done < bytes.length; ) {
    const written = writeSync(fd, bytes, done, bytes.length - done, position + done);
    if (written === 0) throw Object.assign(new Error('no byte could be written'), { code: 'ENOSPC' });
    done += written;
  }
}

export interface ResultWriterOptions {
  /**
   * Keep every request record in `document` as well as in the file (tests and in-memory runs). Off,
   * a run's memory does not grow with its requests: each record goes to the file and into its
   * step's summary accumulator only.
   */
  keepRecords?: boolean;
}

/**
 * The bytes kept in the head for a shards section: what it takes with every member in the longest
 * state, so that a member's state can change in place (setShards) without moving the records.
 */
function shardsRoom(shards: ShardsInfo): number {
  const longest = SHARD_STATES.reduce((a, b) => (b.length > a.length ? b : a));
  return Buffer.byteLength(JSON.stringify({ ...shards, members: shards.members.map((m) => ({ ...m, state: longest })) }));
}

export class ResultWriter {
  private readonly doc: ResultDocument;
  /** Where the head's shards section starts in the file and the bytes kept for it (padded with spaces); null without one. */
  private shardsRegion: { at: number; room: number } | null = null;
  /** The shards section changed since it was last written. */
  private shardsChanged = false;
  private readonly keepRecords: boolean;
  /** Open on the file while a step runs; records are appended through it. */
  private fd: number | null = null;
  private fileBytes = 0;
  /** What ends the file now: closes the open step (if any), the steps and the document. */
  private tail = '';
  private openStep: { step: Step; records: number; accumulator: StepAccumulator; byEndpoint: Map<number, StepAccumulator> } | null = null;

  /** Without a path the document is kept in memory only, records included. */
  constructor(
    private readonly path: string | undefined,
    head: ResultHead,
    options: ResultWriterOptions = {},
  ) {
    this.keepRecords = path === undefined || options.keepRecords !== false;
    this.doc = { ...head, finishedAt: null, status: 'running', statusReason: null, steps: [] };
    if (path === undefined) return;
    let headText = JSON.stringify(head).slice(0, -1);
    if (head.shards !== undefined) {
      // The shards section goes last, with room for its members' states to change as the run goes.
      const { shards, ...rest } = head;
      const before = `${JSON.stringify(rest).slice(0, -1)},"shards":`;
      this.shardsRegion = { at: Buffer.byteLength(before), room: shardsRoom(shards) };
      headText = before + this.shardsText().toString();
    }
    this.tail = runTail(this.doc);
    const text = `${headText},"steps":[${this.tail}`;
    writeAtomically(path, text);
    this.fileBytes = Buffer.byteLength(text);
  }

  get document(): ResultDocument {
    return this.doc;
  }

  /**
   * `repeat`: which repeat of the profile the step belongs to, for a run that repeats it;
   * `startedOn`: the server's state when it began and the wait for it; `cacheReset`: how the
   * server's prefix cache was reset before it.
   */
  startStep(name: string, profile: StepProfile, repeat?: number, startedOn?: Step['startedOn'], cacheReset?: CacheReset): void {
    if (this.openStep) throw new Error('ResultWriter: a step is already open');
    const head = {
      name,
      profile,
      ...(repeat !== undefined ? { repeat } : {}),
      startedAt: new Date().toISOString(),
      ...(startedOn ? { startedOn } : {}),
      ...(cacheReset ? { cacheReset } : {}),
    };
    const step: Step = { ...head, summary: null, requests: [] };
    const opening = `${this.doc.steps.length > 0 ? ',' : ''}${JSON.stringify(head).slice(0, -1)},"requests":[`;
    this.replaceTail(opening, OPEN_STEP_CLOSE + runTail(this.doc));
    this.doc.steps.push(step);
    // Goodput is judged by the SLOs the document's echoed config asked for.
    this.openStep = { step, records: 0, accumulator: new StepAccumulator(profile, sloOf(this.doc)), byEndpoint: new Map() };
    if (this.path !== undefined) this.fd = openSync(this.path, 'r+');
  }

  addRecord(record: RequestRecord): void {
    const open = this.openStep;
    if (!open) throw new Error('ResultWriter: no step is open');
    if (this.fd !== null) {
      const bytes = Buffer.from((open.records > 0 ? ',' : '') + JSON.stringify(record) + this.tail);
      const tailAt = this.fileBytes - Buffer.byteLength(this.tail);
      try {
        writeFully(this.fd, bytes, tailAt);
      } catch (error) {
        // Part of the record may have overwritten the tail: put the last complete document back.
        // Rewriting bytes within the file's old size needs no new space.
        try {
          writeFully(this.fd, Buffer.from(this.tail), tailAt);
          ftruncateSync(this.fd, this.fileBytes);
        } catch {
          // Nothing more can be done for the file; the write error below says why.
        }
        throw writeFailure(this.path ?? '', error);
      }
      this.fileBytes = tailAt + bytes.length;
    }
    open.records++;
    open.accumulator.add(record);
    if (record.endpoint !== undefined) {
      let accumulator = open.byEndpoint.get(record.endpoint);
      if (accumulator === undefined) open.byEndpoint.set(record.endpoint, (accumulator = new StepAccumulator(open.step.profile, sloOf(this.doc))));
      accumulator.add(record);
    }
    if (this.keepRecords) open.step.requests.push(record);
  }

  /**
   * Ends the open step with its summary and what StepEnding adds.
   */
  endStep({ note = null, startMs, endMs, sampled, client, warnings = [], failovers }: StepEnding = {}): StepSummary {
    const open = this.openStep;
    if (!open) throw new Error('ResultWriter: no step is open');
    const measured = open.accumulator.summary();
    const tooShort = open.accumulator.tooShort(measured);
    const allWarnings = [...warnings, ...(tooShort ? [tooShort] : [])];
    const summary: StepSummary = { ...measured, ...(allWarnings.length > 0 ? { warnings: allWarnings } : {}) };
    const endpoints = [...open.byEndpoint].sort(([a], [b]) => a - b).map(([endpoint, accumulator]) => ({ endpoint, summary: accumulator.summary() }));
    const extra = {
      ...(note !== null ? { note } : {}),
      ...(endpoints.length > 0 ? { endpoints } : {}),
      ...(failovers && failovers.length > 0 ? { failovers } : {}),
      ...(startMs !== undefined ? { startMs } : {}),
      ...(endMs !== undefined ? { endMs } : {}),
      ...(sampled && sampled.length > 0 ? { sampled } : {}),
      ...(client !== undefined ? { client } : {}),
    };
    const extraText = Object.keys(extra).length > 0 ? `,${JSON.stringify(extra).slice(1, -1)}` : '';
    this.replaceTail(`],"summary":${JSON.stringify(summary)}${extraText}}`, runTail(this.doc));
    open.step.summary = summary;
    Object.assign(open.step, extra);
    this.openStep = null;
    return summary;
  }

  /**
   * A warning of the run (a failing /metrics, a disagreeing token count), said once: written with
   * the next step boundary or the run's end.
   */
  addWarning(message: string): void {
    (this.doc.warnings ??= []).push(message);
  }

  /** The token cross-check's counts, written with the run's end. */
  setTokenCrossCheck(check: NonNullable<ResultDocument['tokenCrossCheck']>): void {
    this.doc.tokenCrossCheck = check;
  }

  /**
   * A shard run's shards section with its members' states as they are now (their host and clock
   * stay as the head gave them). `now`: the file changes at once, atomically, as at a step boundary
   * (a copy renamed over it); `with-next-write`: with the next step boundary or the run's end, for
   * a change made just before one.
   */
  setShards(shards: ShardsInfo, when: 'now' | 'with-next-write' = 'now'): void {
    this.doc.shards = shards;
    if (this.shardsRegion === null || this.path === undefined) return;
    this.shardsChanged = true;
    if (when === 'with-next-write') return;
    const stepOpen = this.fd !== null;
    this.replaceTail('', this.tail);
    if (stepOpen) this.fd = openSync(this.path, 'r+');
  }

  /** The shards section as it is written, padded with spaces to the room kept for it. */
  private shardsText(): Buffer {
    const text = JSON.stringify(this.doc.shards);
    const room = this.shardsRegion?.room ?? 0;
    const bytes = Buffer.byteLength(text);
    if (bytes > room) throw new Error(`ResultWriter: the shards section (${bytes} bytes) outgrew the room kept for it (${room}): only members' states may change`);
    return Buffer.from(text + ' '.repeat(room - bytes));
  }

  /** Writes the final status (an open step gets its summary from its records so far) and closes the file. */
  finish(status: Exclude<RunStatus, 'running'>, reason: string | null, sampledAfterSteps: MetricSeries[] = []): ResultDocument {
    if (this.openStep) this.endStep();
    if (sampledAfterSteps.length > 0) this.doc.sampledAfterSteps = sampledAfterSteps;
    const ending = { status, statusReason: reason, finishedAt: new Date().toISOString() };
    this.replaceTail('', runTail({ ...this.doc, ...ending }));
    Object.assign(this.doc, ending);
    return this.doc;
  }

  /** Closes the file without finishing it: what is on disk stays a valid `running` document. */
  abandon(): void {
    this.closeFile();
  }

  /**
   * Puts `content` where the tail was and `tail` after it, as a new file renamed over the old one
   * so that no reader sees it half written: the old file is copied by the system (its records never
   * pass through this process), then changed at its end.
   */
  private replaceTail(content: string, tail: string): void {
    if (this.path === undefined) return;
    const path = this.path;
    const wasOpen = this.fd !== null;
    this.closeFile();
    const temporary = `${path}.${process.pid}.tmp`;
    const bytes = Buffer.from(content + tail);
    const at = this.fileBytes - Buffer.byteLength(this.tail);
    try {
      copyFileSync(path, temporary);
      const fd = openSync(temporary, 'r+');
      try {
        writeFully(fd, bytes, at);
        ftruncateSync(fd, at + bytes.length);
        if (this.shardsChanged && this.shardsRegion !== null) writeFully(fd, this.shardsText(), this.shardsRegion.at);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, path);
    } catch (error) {
      // A full disk fails the copy or the write: the old file stands, and no temporary file is left.
      rmSync(temporary, { force: true });
      if (wasOpen) this.fd = openSync(path, 'r+');
      throw writeFailure(path, error);
    }
    this.fileBytes = at + bytes.length;
    this.tail = tail;
    this.shardsChanged = false;
  }

  private closeFile(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** The SLOs a document's echoed config asked for, if readable. */
function sloOf(doc: ResultDocument) {
  const parsed = SloConfigSchema.safeParse(doc.config['slo']);
  return parsed.success ? parsed.data : undefined;
}

/** Fills a step's missing summary from its records (a step cut short by a crash or cancel). */
export function summarizeStepOf(doc: ResultDocument, step: Step): StepSummary {
  return step.summary ?? summarizeStep(step.requests, step.profile, sloOf(doc));
}

export const INTERRUPTED_REASON =
  'The run had not finished when this file was last written: it is still running, or its process stopped (crash, kill). Completed requests are kept.';

/**
 * A document as a viewer should show it: a `running` document (a crashed, killed or still
 * running run) becomes `partial` with a reason, and steps without a summary get one computed
 * from their records.
 */
export function asFinished(doc: ResultDocument, reason = INTERRUPTED_REASON): ResultDocument {
  if (doc.status !== 'running' && doc.steps.every((s) => s.summary !== null)) return doc;
  return {
    ...doc,
    status: doc.status === 'running' ? 'partial' : doc.status,
    statusReason: doc.status === 'running' ? reason : (doc.statusReason ?? null),
    steps: doc.steps.map((step) => ({ ...step, summary: summarizeStepOf(doc, step) })),
  };
}

/** Parses a result file's text and shows an unfinished run as partial (see asFinished). */
export function readResultDocument(text: string): ParseOutcome<ResultDocument> {
  const parsed = parseResultDocument(text);
  return parsed.ok ? { ok: true, value: asFinished(parsed.value) } : parsed;
}

/**
 * Marks the result file of a run whose process or worker died as partial, in place and
 * atomically. Returns the finished document, or null when the file cannot be read as a result.
 */
export function finalizeInterruptedFile(path: string, reason: string): ResultDocument | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const parsed = parseResultDocument(text);
  if (!parsed.ok) return null;
  if (parsed.value.status !== 'running') return parsed.value;
  const doc = { ...asFinished(parsed.value, reason), finishedAt: new Date().toISOString() };
  writeAtomically(path, JSON.stringify(doc));
  return doc;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * `YYYYMMDD-HHMMSS-<model>-<profile>.llmbench.json` in local time. The model name keeps letters,
 * digits, dots, underscores and dashes; anything else (a `/` in `org/model`, spaces) becomes `-`.
 */
export function resultFileName(date: Date, model: string, profileKind: ProfileConfig['kind']): string {
  const stamp =
    `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}-` +
    `${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
  const safeModel =
    model
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[.-]+|-+$/g, '')
      .slice(0, 80) || 'model';
  return `${stamp}-${safeModel}-${profileKind}.llmbench.json`;
}
