/**
 * The result file, written as the run goes so that a crash, a `kill -9` or a cancel loses no
 * completed request, and valid JSON after every write.
 *
 * The document is serialized with `steps` as its last key and each step's `requests` as the
 * step's last key, so while a step runs the file is `head + records + tail` with the constant
 * tail `]}]}`. A completed request is added with one positional write of `,record` + tail over
 * the old tail: O(1) per request, and a process killed between two writes leaves a complete
 * document. When a step starts or ends and when the run ends, the whole file is rewritten to a
 * temporary file and renamed over the old one, so no reader ever sees half of it.
 */
import { closeSync, ftruncateSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { SloConfigSchema, type ProfileConfig } from '../format/config';
import {
  parseResultDocument,
  type ParseOutcome,
  type RequestRecord,
  type ResultDocument,
  type RunStatus,
  type Step,
  type StepProfile,
  type StepSummary,
} from '../format/result';
import { summarizeStep } from './stats';

/** What a document holds before any step: everything but status and steps. */
export type ResultHead = Omit<ResultDocument, 'status' | 'statusReason' | 'finishedAt' | 'steps' | 'importedFrom'>;

const OPEN_STEP_TAIL = ']}]}';

/** Same content, keys in the order the append scheme needs (`steps` last, `requests` last). */
function orderedForAppend(doc: ResultDocument): unknown {
  const { steps, ...rest } = doc;
  return {
    ...rest,
    steps: steps.map(({ requests, ...step }) => ({ ...step, requests })),
  };
}

function writeFailure(path: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = error instanceof Error ? error.message : String(error);
  const advice =
    code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT'
      ? 'The disk is full or a file size limit was reached: free space or choose another folder. The file keeps every request written before.'
      : 'Check that its folder exists and is writable.';
  return new Error(`Cannot write the result file ${path}: ${reason}. ${advice}`);
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    // A full disk fails the write after the file was created: leave no temporary file behind.
    rmSync(temporary, { force: true });
    throw writeFailure(path, error);
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

export class ResultWriter {
  private readonly doc: ResultDocument;
  /** Open on the file while a step runs; records are appended through it. */
  private fd: number | null = null;
  private fileBytes = 0;
  private openStep: Step | null = null;

  /** Without a path the document is kept in memory only. */
  constructor(
    private readonly path: string | undefined,
    head: ResultHead,
  ) {
    this.doc = { ...head, finishedAt: null, status: 'running', statusReason: null, steps: [] };
    this.rewrite();
  }

  get document(): ResultDocument {
    return this.doc;
  }

  startStep(name: string, profile: StepProfile): void {
    if (this.openStep) throw new Error('ResultWriter: a step is already open');
    this.openStep = { name, profile, startedAt: new Date().toISOString(), summary: null, requests: [] };
    this.doc.steps.push(this.openStep);
    this.rewrite();
  }

  addRecord(record: RequestRecord): void {
    const step = this.openStep;
    if (!step) throw new Error('ResultWriter: no step is open');
    step.requests.push(record);
    if (this.fd === null) return;
    const text = (step.requests.length > 1 ? ',' : '') + JSON.stringify(record) + OPEN_STEP_TAIL;
    const bytes = Buffer.from(text);
    const tailAt = this.fileBytes - OPEN_STEP_TAIL.length;
    try {
      writeFully(this.fd, bytes, tailAt);
    } catch (error) {
      // Part of the record may have overwritten the tail: put the last complete document back.
      // Rewriting bytes within the file's old size needs no new space.
      step.requests.pop();
      try {
        writeFully(this.fd, Buffer.from(OPEN_STEP_TAIL), tailAt);
        ftruncateSync(this.fd, this.fileBytes);
      } catch {
        // Nothing more can be done for the file; the write error below says why.
      }
      throw writeFailure(this.path ?? '', error);
    }
    this.fileBytes += bytes.length - OPEN_STEP_TAIL.length;
  }

  /** `note` says why the step went beyond its limits, when it did. */
  endStep(summary: StepSummary, note: string | null = null): void {
    if (!this.openStep) throw new Error('ResultWriter: no step is open');
    this.openStep.summary = summary;
    if (note !== null) this.openStep.note = note;
    this.openStep = null;
    this.rewrite();
  }

  /** Writes the final document (an open step gets its summary from its records) and closes the file. */
  finish(status: Exclude<RunStatus, 'running'>, reason: string | null): ResultDocument {
    if (this.openStep) {
      this.openStep.summary = summarizeStepOf(this.doc, this.openStep);
      this.openStep = null;
    }
    this.doc.status = status;
    this.doc.statusReason = reason;
    this.doc.finishedAt = new Date().toISOString();
    this.rewrite();
    return this.doc;
  }

  /** Closes the file without finishing it: what is on disk stays a valid `running` document. */
  abandon(): void {
    this.closeFile();
  }

  /** Replaces the whole file; while a step is open (its requests still empty) reopens it for appending. */
  private rewrite(): void {
    if (this.path === undefined) return;
    this.closeFile();
    const text = JSON.stringify(orderedForAppend(this.doc));
    writeAtomically(this.path, text);
    this.fileBytes = Buffer.byteLength(text);
    if (this.openStep) this.fd = openSync(this.path, 'r+');
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
  writeAtomically(path, JSON.stringify(orderedForAppend(doc)));
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
