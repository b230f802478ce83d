/**
 * The one way a result file is read for showing it: the result editor, compare, the report (in
 * the extension and `llmbench report`) and the tests all read through here, so an unfinished file
 * says the same everywhere. Every step gets a summary: a step that had not finished is summarised
 * from the requests it recorded, and is listed as unfinished, never dropped. A `running` file is
 * still running only while the process that writes it is alive; otherwise its run was
 * interrupted (a crash, `kill -9`) and it reads as partial.
 */
import { parseResultDocument, type ParseOutcome, type ResultDocument, type ResultWriter } from '../format/result';
import { isAlive as processIsAlive } from '../processes/alive';
import { canonicalLabels } from '../format/config';
import { asFinished, INTERRUPTED_REASON, summarizeStepOf } from './writer';

export interface ReadResult {
  /** Every step with a summary; status `running` only while its writer is alive. */
  document: ResultDocument;
  /** Indices of the steps that had not finished: their summaries cover the requests recorded so far. */
  unfinishedSteps: number[];
}

/** A parsed document as every view shows it (see the module comment). */
export function forReading(raw: ResultDocument, isAlive: (writer: ResultWriter | undefined) => boolean = processIsAlive): ReadResult {
  // One key per label meaning: an older file's `hardware` reads as `gpu`, so that it groups with runs that say gpu.
  const doc = { ...raw, labels: canonicalLabels(raw.labels) };
  const unfinishedSteps = doc.steps.flatMap((step, index) => (step.summary === null ? [index] : []));
  if (doc.status === 'running' && isAlive(doc.writer)) {
    return { document: { ...doc, steps: doc.steps.map((step) => ({ ...step, summary: step.summary ?? summarizeStepOf(doc, step) })) }, unfinishedSteps };
  }
  return { document: asFinished(doc, INTERRUPTED_REASON), unfinishedSteps };
}

/** Parses a result file's text and prepares it for showing. */
export function readResultText(text: string, isAlive?: (writer: ResultWriter | undefined) => boolean): ParseOutcome<ReadResult> {
  if (text.trim() === '') return { ok: false, error: 'The file is empty: it holds no result. A run writes its result file from its start; this one may have been created by hand or cut to nothing.' };
  const parsed = parseResultDocument(text);
  return parsed.ok ? { ok: true, value: forReading(parsed.value, isAlive) } : parsed;
}
