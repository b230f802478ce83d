/**
 * A concurrency step whose requests in flight stayed well below its level measured a lighter load
 * than its name says; its point sits where it was. Why, in the run's own terms, so that the note
 * points at what to change: the duration that cut it, the think time of sessions that hold their
 * slot between turns, or too few requests to fill the level for long.
 */
import * as z from 'zod';
import type { ResultDocument, Step } from '../format/result';
import { formatMetric } from './number-format';
import { stepLabel } from '../format/step-name';

/** Below this share of its level, a concurrency step is said not to have reached it. */
export const REACHED_CONCURRENCY = 0.75;

/** What the notes read of a result's config; other tools' configs have none of it, and get the plain note. */
const ConfigSeenSchema = z
  .object({
    limits: z.object({ requests: z.number().optional(), durationSec: z.number().optional() }).loose().optional(),
    sessions: z.object({ thinkTimeMs: z.number().optional(), concurrencyUnit: z.string().optional() }).loose().optional(),
  })
  .loose();

/** Why the step's mean in flight fell short of its level: each cause found, worded with what to change. */
function causesOf(step: Omit<Step, 'requests'>, config: z.infer<typeof ConfigSeenSchema>, level: number): string[] {
  const summary = step.summary;
  if (!summary) return [];
  const causes: string[] = [];
  const cancelled = summary.errors.cancelled ?? 0;
  const { durationSec, requests } = config.limits ?? {};
  const cutShort = requests === undefined || summary.requests.total < requests || cancelled > 0;
  if (durationSec !== undefined && cutShort) {
    const inFlight = cancelled > 0 ? `, cancelling the ${cancelled} requests then in flight (left out of its figures)` : '';
    causes.push(`its duration of ${durationSec} s ended it${inFlight}: too short for requests of this length to keep ${level} in flight for long. Lengthen the duration (--duration) to measure this level`);
  }
  const sessions = config.sessions;
  const thinkMs = sessions?.thinkTimeMs ?? 0;
  if (sessions !== undefined && (sessions.concurrencyUnit ?? 'sessions') === 'sessions' && thinkMs > 0) {
    causes.push(
      `its ${level} sessions kept their slots through the think time of ${thinkMs} ms between turns, with no request in flight meanwhile: the level counts open sessions (--concurrency-unit sessions). --concurrency-unit requests keeps ${level} requests in flight instead`,
    );
  }
  if (causes.length === 0) {
    causes.push(`with ${summary.requests.total} requests it spent much of its time filling up and draining. Raise the requests per step to measure this level`);
  }
  return causes;
}

/** One note per concurrency step that did not reach its level, naming why. */
export function unreachedConcurrencyNotes(doc: Pick<ResultDocument, 'config'> & { steps: Omit<Step, 'requests'>[] }): string[] {
  const parsed = ConfigSeenSchema.safeParse(doc.config);
  const config = parsed.success ? parsed.data : {};
  return doc.steps.flatMap((step) => {
    const level = step.profile.kind === 'concurrency' ? step.profile.concurrency : undefined;
    const mean = step.summary?.achievedConcurrency;
    if (level === undefined || mean === null || mean === undefined || mean >= REACHED_CONCURRENCY * level) return [];
    // A step where nothing completed is left to the failure's own words: more requests would not help it.
    if ((step.summary?.requests.completed ?? 0) === 0) return [];
    const shown = formatMetric('achievedConcurrency', mean);
    return [`Step "${stepLabel(step)}" averaged ${shown} requests in flight, not ${level}: ${causesOf(step, config, level).join('; and ')}. Its points are drawn at ${shown}.`];
  });
}
