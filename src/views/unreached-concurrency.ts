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
import { english, type Translate } from './l10n';

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
function causesOf(step: Omit<Step, 'requests'>, config: z.infer<typeof ConfigSeenSchema>, level: number, t: Translate): string[] {
  const summary = step.summary;
  if (!summary) return [];
  const causes: string[] = [];
  const cancelled = summary.errors.cancelled ?? 0;
  const { durationSec, requests } = config.limits ?? {};
  const cutShort = requests === undefined || summary.requests.total < requests || cancelled > 0;
  if (durationSec !== undefined && cutShort) {
    causes.push(
      cancelled > 0
        ? t('its duration of {0} s ended it, cancelling the {1} requests then in flight (left out of its figures): too short for requests of this length to keep {2} in flight for long. Lengthen the duration (--duration) to measure this level', durationSec, cancelled, level)
        : t('its duration of {0} s ended it: too short for requests of this length to keep {1} in flight for long. Lengthen the duration (--duration) to measure this level', durationSec, level),
    );
  }
  const sessions = config.sessions;
  const thinkMs = sessions?.thinkTimeMs ?? 0;
  if (sessions !== undefined && (sessions.concurrencyUnit ?? 'sessions') === 'sessions' && thinkMs > 0) {
    causes.push(
      t('its {0} sessions kept their slots through the think time of {1} ms between turns, with no request in flight meanwhile: the level counts open sessions (--concurrency-unit sessions). --concurrency-unit requests keeps {0} requests in flight instead', level, thinkMs),
    );
  }
  if (causes.length === 0) {
    causes.push(t('with {0} requests it spent much of its time filling up and draining. Raise the requests per step to measure this level', summary.requests.total));
  }
  return causes;
}

/** One note per concurrency step that did not reach its level, naming why. */
export function unreachedConcurrencyNotes(doc: Pick<ResultDocument, 'config'> & { steps: Omit<Step, 'requests'>[] }, t: Translate = english): string[] {
  const parsed = ConfigSeenSchema.safeParse(doc.config);
  const config = parsed.success ? parsed.data : {};
  return doc.steps.flatMap((step) => {
    const level = step.profile.kind === 'concurrency' ? step.profile.concurrency : undefined;
    const mean = step.summary?.achievedConcurrency;
    if (level === undefined || mean === null || mean === undefined || mean >= REACHED_CONCURRENCY * level) return [];
    // A step where nothing completed is left to the failure's own words: more requests would not help it.
    if ((step.summary?.requests.completed ?? 0) === 0) return [];
    const shown = formatMetric('achievedConcurrency', mean);
    return [t('Step "{0}" averaged {1} requests in flight, not {2}: {3}. Its points are drawn at {1}.', stepLabel(step), shown, level, causesOf(step, config, level, t).join(t('; and ')))];
  });
}
