/**
 * A shard run (docs/scale-out.md) shard by shard, for the result view, compare and the report: where
 * each shard ran, its clock against the coordinator's, its state, and how late it sent its requests.
 * While the run goes (its file still `running`), the lateness is the step running now's, so that the
 * result editor following the coordinator's file shows which shard falls behind; in a finished file
 * it is the whole run's. Pure.
 */
import type { TableSection } from '../format/messages/result';
import type { ResultDocument, ShardMember, Step } from '../format/result';
import { stepLabel } from '../format/step-name';
import { quantileOfSorted } from '../results/stats';
import { fixed, roundedUnsignedZero } from './number-format';
import { english, type Translate } from './l10n';

const COLUMNS: TableSection['table']['columns'] = [
  { label: 'Shard' },
  { label: 'Host' },
  { label: 'Clock offset', unit: 'ms', numeric: true, description: "The shard's clock minus the coordinator's, ± half the shortest round trip measured: the true offset lies within." },
  { label: 'State', description: 'registered, running, done (served until the run ended), lost (its process or connection ended during the run) or missing (never registered).' },
  { label: 'Requests', numeric: true, description: 'Requests the shard sent, warm-up included, in the steps the lateness is taken over.' },
  { label: 'Send lateness p50', unit: 'ms', numeric: true, description: "Sent minus scheduled time of the shard's requests: for an open loop, how late it kept the schedule; for a closed loop, its wait for a free slot." },
  { label: 'Send lateness max', unit: 'ms', numeric: true },
];

/** What a member's state means in this file: a finished file's `running` member was cut short with it. */
function stateText(member: ShardMember, doc: Pick<ResultDocument, 'status' | 'steps'>, t: Translate): string {
  const live = doc.status === 'running';
  switch (member.state) {
    case 'missing':
      return t('missing (never registered)');
    case 'registered':
      // Files written before the states were kept say `registered` for every shard that took part.
      return live || doc.steps.length === 0 ? t('registered') : t('took part (its end not recorded)');
    case 'running':
      return live ? t('running') : t('running when its file was last written');
    default:
      // done, lost
      return t(member.state);
  }
}

interface Lateness {
  n: number;
  p50: number | null;
  max: number | null;
}

/** Per shard (a record's `worker` in a shard run): p50 and max of sentMs - scheduledMs, and how many requests. One pass over the records. */
function latenessByShard(steps: readonly Step[]): Map<number, Lateness> {
  const values = new Map<number, number[]>();
  for (const step of steps) {
    for (const r of step.requests) {
      if (r.worker === undefined) continue;
      let own = values.get(r.worker);
      if (own === undefined) values.set(r.worker, (own = []));
      own.push(r.sentMs - r.scheduledMs);
    }
  }
  const byShard = new Map<number, Lateness>();
  for (const [shard, own] of values) {
    own.sort((a, b) => a - b);
    byShard.set(shard, { n: own.length, p50: quantileOfSorted(own, 0.5), max: own[own.length - 1]! });
  }
  return byShard;
}

const NONE: Lateness = { n: 0, p50: null, max: null };

/** A shard run's table of shards and what to know about it; null for a run in one process. */
export function shardsSection(doc: ResultDocument, t: Translate = english): TableSection | null {
  const shards = doc.shards;
  if (shards === undefined) return null;
  const live = doc.status === 'running';
  // The step running now while the run goes; the whole run once it has ended.
  const current = live ? doc.steps.at(-1) : undefined;
  const steps = current ? [current] : doc.steps;
  const unsigned = (value: number, digits: number): string => fixed(roundedUnsignedZero(value, digits), digits);
  const ms = (value: number | null): string => (value === null ? '–' : unsigned(value, 1));
  const latenesses = latenessByShard(steps);
  const rows = shards.members.map((m) => {
    const late = latenesses.get(m.shard) ?? NONE;
    const offset = m.offsetMs === null ? '–' : `${unsigned(m.offsetMs, 2)} ± ${fixed(m.uncertaintyMs ?? 0, 2)}`;
    return [m.shard === 0 && shards.shard === undefined ? t('0 (coordinator)') : String(m.shard), m.host ?? '–', offset, stateText(m, doc, t), m.state === 'missing' ? '–' : String(late.n), ms(late.p50), ms(late.max)];
  });
  const notes = [
    shards.shard === undefined
      ? t('{0} shards, coordinated by shard 0 at {1}; run id {2}.', shards.count, shards.coordinator, shards.runId)
      : t("Shard {0}'s own file of a run of {1} shards (run id {2}): it holds this shard's requests only. The coordinator's file holds the whole run; `llmbench merge` puts the shards' files together.", shards.shard, shards.count, shards.runId),
    t("Clock offsets: each shard's clock minus the coordinator's, from the shortest of its round trips to the coordinator at registration; each step started at one instant on every shard's clock, corrected by it."),
    current ? t('Send lateness: in the step running now, {0}.', stepLabel(current)) : live ? t('Send lateness: no step has started yet.') : t('Send lateness: over the whole run.'),
  ];
  const lost = shards.members.filter((m) => m.state === 'lost').map((m) => m.shard);
  if (lost.length > 0) notes.push(t(lost.length === 1 ? 'Lost during the run: shard {0}. The run is partial; what it measured until then is kept.' : 'Lost during the run: shard {0}. The run is partial; what they measured until then is kept.', lost.join(', ')));
  const missing = shards.members.filter((m) => m.state === 'missing').map((m) => m.shard);
  if (missing.length > 0) notes.push(t('Never registered: shard {0}. The run did not send the load planned.', missing.join(', ')));
  return { table: { columns: COLUMNS, rows }, notes };
}
