/**
 * What every view says about a step's figures beyond the figures themselves: its warnings (stored
 * with its summary: too short, a busy server at its start, a stop guard that ended it, and any kind
 * a newer version writes), its note, and which definition its rates follow. One module, so that the
 * CLI, the live panel, the result editor, compare, the report and the exports say the same words.
 */
import type { Step, StepWarning } from '../format/result';
import { STEP_WARNING_KINDS } from '../format/result';
import { IMPORT_NOTE_TEXT, IMPORT_READ_TEXT, IMPORT_UNIT_TEXT } from '../format/import-note-text';
import { ABORT_CHECK_TEXT, BUSY_START_TEXT, CLIENT_BOUND_TEXT, CROSS_CHECK_TEXT, ERROR_RATE_TEXT, EXECUTOR_LOST_TEXT, FAILOVER_TEXT, GPU_METRICS_TEXT, HOPELESS_TEXT, MAX_ERRORS_TEXT, OVER_SATURATED_TEXT, REPLICA_WARNING_TEXT, RUNNER_THREAD_TEXT, SCRAPE_PROBLEM_TEXT, SERVER_METRICS_TEXT, SHARD_NOTE_TEXT, STATUS_REASON_TEXT, SWEEP_PLAN_TEXT, TOO_SHORT_TEXT, TRACE_LEFT_OUT_TEXT, TRACE_REPLAY_TEXT, TRIAL_REASON_TEXT, TUNE_END_TEXT, PORT_TEXT, WORKERS_REASON_TEXT } from '../format/warning-text';
import { RAN_FROM_FIRST_SEND, tooShortWarning } from '../results/window';
import type { Translate } from './l10n';

/** The mark a step with warnings carries in tables, beside its name. */
export const WARNING_MARK = '\u26a0';

type StepLike = Pick<Step, 'summary' | 'note'> & { name: string };

/**
 * A step's warnings, in the order said: those stored with its summary, then its note (a step run
 * past its duration, an open loop whose turns ran out before its schedule) as a warning of that kind. A summary written before steady windows (no
 * `rateWindow`) gets the too-short check on what it has: its first send to last completion against
 * its median latency, so that an old file's short steps are flagged too.
 */
export function stepWarnings(step: StepLike, imported = false): StepWarning[] {
  const stored = step.summary?.warnings ?? [];
  const note = step.note ? [{ kind: STEP_WARNING_KINDS.ranOtherThanPlanned, message: step.note, figures: {} }] : [];
  const summary = step.summary;
  const older =
    !imported && summary && summary.rateWindow === undefined && !stored.some((w) => w.kind === STEP_WARNING_KINDS.tooShort)
      ? tooShortWarning(summary.durationSec, summary.latencyMs?.p50, RAN_FROM_FIRST_SEND)
      : null;
  return [...stored, ...note, ...(older ? [older] : [])];
}

/** Each warning of each step as a line, `step: message`. */
export function stepWarningLines(steps: readonly (StepLike & { label?: string })[], imported = false): string[] {
  return steps.flatMap((step) => stepWarnings(step, imported).map((w) => `${step.label ?? step.name}: ${w.message}`));
}

/** Joins a mark to its name in a view's table cell, so that a narrow column does not wrap the mark onto a line of its own. */
export const NO_BREAK = '\u00a0';

/** A step's name with the warning mark when it has warnings: after a space in text, after NO_BREAK in a view's table. */
export function markedName(name: string, warnings: readonly unknown[], separator = ' '): string {
  return warnings.length > 0 ? `${name}${separator}${WARNING_MARK}` : name;
}

export const SPAN_RATES_NOTE =
  "This file was written before steady windows: its rates are over each step's first send to its last completion, and a step cut by its duration left out the requests it cancelled, so its rates are low when its requests are long for the step (docs/metrics.md).";

/**
 * The note of a run whose rates follow the definition before steady windows (first send to last
 * completion): a summary without `rateWindow`. Null for a run with steady windows (the metric's
 * definition says how), an imported run (its tool's definition, said by the importer's notes), or
 * one without steps.
 */
export function olderRatesNote(steps: readonly Pick<Step, 'summary'>[], imported: boolean): string | null {
  if (imported) return null;
  const summaries = steps.flatMap((s) => (s.summary ? [s.summary] : []));
  if (summaries.length === 0 || summaries.some((s) => s.rateWindow !== undefined)) return null;
  return SPAN_RATES_NOTE;
}

/** Whether one of two runs takes its rates by the definition before steady windows and the other does not. */
export function rateDefinitionsDiffer(a: readonly Pick<Step, 'summary'>[], b: readonly Pick<Step, 'summary'>[], importedA: boolean, importedB: boolean): boolean {
  const steady = (steps: readonly Pick<Step, 'summary'>[]) => steps.some((s) => s.summary?.rateWindow !== undefined);
  return !importedA && !importedB && steady(a) !== steady(b) && a.length > 0 && b.length > 0;
}

/** A wording of a warning: its template, and for a placeholder whose value is itself worded, the templates that value may take. */
interface Wording {
  text: string;
  parts?: Record<number, readonly Wording[]>;
  /** Takes any value as it is written: the last of a placeholder's wordings whose value may be someone else's words. */
  asWritten?: true;
}

/** A placeholder's value none of its wordings fill (an error's own message): kept as it came, the rest still said again. */
const AS_WRITTEN: Wording = { text: '{0}', asWritten: true };

const words = (texts: Record<string, string> | string): Wording[] => (typeof texts === 'string' ? [{ text: texts }] : Object.values(texts).map((text) => ({ text })));
const WHO: readonly Wording[] = words(CLIENT_BOUND_TEXT.who);
/** Why endpoints failed from the start: `at {url}: why`, joined by `; ` when several did. */
const HOPELESS_WHY: readonly Wording[] = words(HOPELESS_TEXT.why);
const VERDICT: Wording = { text: HOPELESS_TEXT.verdict, parts: { 1: HOPELESS_WHY } };
const VERDICTS: Wording[] = [VERDICT];
VERDICTS.unshift({ text: HOPELESS_TEXT.joined, parts: { 0: [VERDICT], 1: VERDICTS } });
const HOPELESS_REQUESTS: readonly Wording[] = words(HOPELESS_TEXT.requests);
/** What a trace replay left out: a sentence on its bad rows (their reasons joined by `; `), one on its failed rows, or both. */
const LEFT_OUT_WHY: readonly Wording[] = words(TRACE_LEFT_OUT_TEXT.why);
const LEFT_OUT_REASON: readonly Wording[] = [TRACE_LEFT_OUT_TEXT.reasonOne, TRACE_LEFT_OUT_TEXT.reason].map((text) => ({ text, parts: { 1: LEFT_OUT_WHY } }));
const LEFT_OUT_REASONS: Wording[] = [...LEFT_OUT_REASON];
LEFT_OUT_REASONS.unshift({ text: TRACE_LEFT_OUT_TEXT.reasons, parts: { 0: LEFT_OUT_REASON, 1: LEFT_OUT_REASONS } });
const LEFT_OUT_SKIPPED: readonly Wording[] = [TRACE_LEFT_OUT_TEXT.skippedOne, TRACE_LEFT_OUT_TEXT.skipped].map((text) => ({ text, parts: { 1: LEFT_OUT_REASONS } }));
const LEFT_OUT_FAILED: readonly Wording[] = words({ one: TRACE_LEFT_OUT_TEXT.failedOne, many: TRACE_LEFT_OUT_TEXT.failed });
const LEFT_OUT_SENTENCES: readonly Wording[] = [{ text: TRACE_LEFT_OUT_TEXT.sentences, parts: { 0: LEFT_OUT_SKIPPED, 1: LEFT_OUT_FAILED } }, ...LEFT_OUT_SKIPPED, ...LEFT_OUT_FAILED];
/** Why a tune ended: its search's sentence, then re-measurement's when it ran. */
const TUNE_SEARCHED: readonly Wording[] = words(TUNE_END_TEXT.searched);
const TUNE_ENDED: readonly Wording[] = [
  ...Object.values(TUNE_END_TEXT.remeasured).map((text) => ({ text, parts: { 0: TUNE_SEARCHED } })),
  ...TUNE_SEARCHED,
  ...words({ cancelled: TUNE_END_TEXT.cancelled, declined: TUNE_END_TEXT.declined, refusedInARow: TUNE_END_TEXT.refusedInARow, stopped: TUNE_END_TEXT.stopped, refused: TUNE_END_TEXT.refused }),
];
/** Who a lost executor was: a worker, a shard, a shard with its host and pid. */
const LOST_WHO: readonly Wording[] = [{ text: EXECUTOR_LOST_TEXT.shardAt, parts: { 0: WHO } }, ...WHO];
const LOST_WHY: readonly Wording[] = [...words(EXECUTOR_LOST_TEXT.why), AS_WRITTEN];
const PORT_HOLDER: readonly Wording[] = words(PORT_TEXT.holder);
const SHARD_WHO: readonly Wording[] = words(SHARD_NOTE_TEXT.who);
/** What a table of figures was read as: its headings, each read as a figure or not imported, joined by `; `. */
const READ_HEADING: readonly Wording[] = [{ text: IMPORT_READ_TEXT.readAs }, { text: IMPORT_READ_TEXT.notImported, parts: { 1: words(IMPORT_READ_TEXT.why) } }];
const READ_HEADINGS: Wording[] = [...READ_HEADING];
READ_HEADINGS.unshift({ text: IMPORT_READ_TEXT.joined, parts: { 0: READ_HEADING, 1: READ_HEADINGS } });
const WORDINGS: readonly Wording[] = [
  ...words(TOO_SHORT_TEXT),
  ...words(BUSY_START_TEXT),
  ...words(OVER_SATURATED_TEXT),
  ...words(ERROR_RATE_TEXT),
  ...words(MAX_ERRORS_TEXT),
  // Listed among a run's warnings by the report and the exports.
  ...words(SPAN_RATES_NOTE),
  // Not a step's warning, but stored English of the same kind: why the run used its workers.
  ...words(WORKERS_REASON_TEXT),
  // The run's warnings of a trace replay, `step: message`.
  ...words(TRACE_REPLAY_TEXT),
  // Why a run ended as it did, and the run's warning that /metrics could not be read.
  ...Object.entries(STATUS_REASON_TEXT).flatMap(([key, text]) => (key === 'engineStoppedAfter' ? [] : [{ text }])),
  ...Object.values(RUNNER_THREAD_TEXT).map((text) => ({ text, parts: { 0: LOST_WHY } })),
  ...words(SERVER_METRICS_TEXT),
  // The run's token cross-check: `{0}; ...`, its head holding what the client received.
  ...Object.values(CROSS_CHECK_TEXT.ending).map((text) => ({ text, parts: { 0: [{ text: CROSS_CHECK_TEXT.head, parts: { 1: words(CROSS_CHECK_TEXT.received) } }] } })),
  // The scraper's other warnings, the GPU reader's, and the sweep's when it places its rates.
  ...words(SCRAPE_PROBLEM_TEXT),
  ...words(GPU_METRICS_TEXT),
  ...words(SWEEP_PLAN_TEXT),
  // A run stopped because its endpoints failed from the start (its status reason), and one of several that did (a warning).
  { text: HOPELESS_TEXT.stopped.afterWarmUp, parts: { 0: HOPELESS_REQUESTS, 1: HOPELESS_REQUESTS, 2: VERDICTS } },
  { text: HOPELESS_TEXT.stopped.warmUpOnly, parts: { 0: HOPELESS_REQUESTS, 1: VERDICTS } },
  { text: HOPELESS_TEXT.stopped.measured, parts: { 0: HOPELESS_REQUESTS, 1: VERDICTS } },
  ...Object.values(HOPELESS_TEXT.goesOn).map((text) => ({ text, parts: { 1: HOPELESS_WHY } })),
  // What a trace replay left out of its file.
  { text: TRACE_LEFT_OUT_TEXT.file, parts: { 1: LEFT_OUT_SENTENCES } },
  // The run's abort cross-check: `{0}; ...`, its head holding the counts (the unnamed counter's first: the named one's {0} would take it in).
  ...Object.values(ABORT_CHECK_TEXT.ending).map((text) => ({ text, parts: { 0: [{ text: ABORT_CHECK_TEXT.headUnnamed }, { text: ABORT_CHECK_TEXT.head }] } })),
  // A worker or shard lost during the run (its status reason and warning), and the coordinator's notes on shards.
  { text: EXECUTOR_LOST_TEXT.inFlight, parts: { 0: LOST_WHO, 2: LOST_WHY, 4: words(EXECUTOR_LOST_TEXT.requests) } },
  { text: EXECUTOR_LOST_TEXT.during, parts: { 0: LOST_WHO, 2: LOST_WHY } },
  { text: EXECUTOR_LOST_TEXT.stopped, parts: { 0: LOST_WHO, 1: LOST_WHY } },
  ...Object.entries(SHARD_NOTE_TEXT).flatMap(([key, text]): Wording[] => {
    if (key === 'who') return [];
    if (!text.startsWith('{0}')) return [{ text }];
    // A shard that never joined: why, in the words a lost one's are said in (its own error's kept).
    return [{ text, parts: key === 'closedBefore' || key === 'couldNotRegister' ? { 0: SHARD_WHO, 1: LOST_WHY } : { 0: SHARD_WHO } }];
  }),
  // A tune file's reasons: why the tune ended, why a trial was refused or did not score (`failed`
  // holds the benchmark's own reason: below, once every wording is known).
  ...TUNE_ENDED,
  ...Object.entries(TRIAL_REASON_TEXT).flatMap(([key, text]) => (key === 'failed' ? [] : [{ text }])),
  // A tune's port held by another process: after a trial's server stopped, or before it answered.
  { text: PORT_TEXT.stillTaken, parts: { 3: PORT_HOLDER } },
  { text: PORT_TEXT.stillTakenRemeasure, parts: { 4: PORT_HOLDER } },
  { text: PORT_TEXT.foreign, parts: { 1: PORT_HOLDER } },
  // Why failover took an endpoint out or back (a step's failover events).
  ...words(FAILOVER_TEXT),
  // An imported run's notes (the headings they quote kept as written).
  ...Object.values(IMPORT_NOTE_TEXT).flatMap((notes) => words(notes)),
  ...[IMPORT_READ_TEXT.byColumns, IMPORT_READ_TEXT.byRows].map((text) => ({ text, parts: { 1: READ_HEADINGS } })),
  ...Object.values(IMPORT_UNIT_TEXT.noUnit).map((text) => ({ text, parts: { 1: words(IMPORT_UNIT_TEXT.why) } })),
  {
    text: CLIENT_BOUND_TEXT.joined,
    parts: { 0: Object.values(CLIENT_BOUND_TEXT.what).map((text) => ({ text, parts: { 0: WHO } })), 1: words(CLIENT_BOUND_TEXT.advice) },
  },
];

// One endpoint's scraper warning, when a run scrapes several: any of the warnings above after the endpoint's index.
(WORDINGS as Wording[]).push({ text: REPLICA_WARNING_TEXT, parts: { 1: WORDINGS } });
// The engine's own failure after the reason the run had failed for (which may be anyone's words).
(WORDINGS as Wording[]).push({ text: STATUS_REASON_TEXT.engineStoppedAfter, parts: { 0: [...WORDINGS, AS_WRITTEN] } });
// A trial whose benchmark failed: the run's status reason after the trial's words.
(WORDINGS as Wording[]).push({ text: TRIAL_REASON_TEXT.failed, parts: { 0: WORDINGS } });

/** Every template sayWarning words again, the parts' included: each is a key the l10n bundles must hold (test/unit/l10n.test.ts). */
export function warningTemplates(): Set<string> {
  const found = new Set<string>();
  const walk = (wordings: readonly Wording[]): void => {
    for (const wording of wordings) {
      if (wording.asWritten || found.has(wording.text)) continue;
      found.add(wording.text);
      for (const parts of Object.values(wording.parts ?? {})) walk(parts);
    }
  };
  walk(WORDINGS);
  return found;
}

const patterns = new Map<string, RegExp>();
/**
 * The template as a pattern that takes its figures back out of a message it filled: each `{n}` a
 * lazy group, in order. A figure that opens the template (without worded parts) holds no ": ", so
 * that it does not take a line's `step: ` prefix for part of itself.
 */
function patternOf(template: string, worded: readonly number[] = []): RegExp {
  const key = `${template}|${worded.join(',')}`;
  let pattern = patterns.get(key);
  if (pattern === undefined) {
    const pieces = template.split(/\{\d+\}/).map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const source = pieces.reduce((joined, piece, i) => `${joined}${i === 1 && pieces[0] === '' && !worded.includes(0) ? '((?:(?!: ).)+?)' : '(.+?)'}${piece}`);
    pattern = new RegExp(`^${source}$`, 's');
    patterns.set(key, pattern);
  }
  return pattern;
}

/** `text` said again through `t` by the first of `wordings` that filled it, or null when none did. */
function reword(text: string, wordings: readonly Wording[], t: Translate): string | null {
  for (const wording of wordings) {
    if (wording.asWritten) return text;
    const found = patternOf(wording.text, Object.keys(wording.parts ?? {}).map(Number)).exec(text);
    if (found === null) continue;
    // A placeholder may come more than once (`{0} series ... the first {0}`): each group fills the one it stands for.
    const order = [...wording.text.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1]));
    const args: string[] = [];
    let whole = true;
    for (const [i, value] of found.slice(1).entries()) {
      const parts = wording.parts?.[order[i]!];
      const said = parts === undefined ? value : reword(value!, parts, t);
      if (said === null) {
        whole = false;
        break;
      }
      args[order[i]!] = said;
    }
    if (whole) return t(wording.text, ...args);
  }
  return null;
}

/**
 * A step warning (or a warning line, `step: message`) in the display language: a message LLM Bench
 * wrote from one of its templates (src/format/warning-text.ts) is said again through `t` with the
 * figures it holds; anything else (a kind this version does not know, an older wording, a note)
 * reads as stored. In English the text comes back unchanged, since the template filled with its own
 * figures is the message.
 */
export function sayWarning(text: string, t: Translate): string {
  const whole = reword(text, WORDINGS, t);
  if (whole !== null) return whole;
  for (let at = text.indexOf(': '); at > 0; at = text.indexOf(': ', at + 1)) {
    const rest = reword(text.slice(at + 2), WORDINGS, t);
    if (rest !== null) return `${text.slice(0, at)}: ${rest}`;
  }
  return text;
}
