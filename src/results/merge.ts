/**
 * Merging the files of one shard run (docs/scale-out.md) into one result file: each shard's records
 * from the file that holds most of them (its own file, or the coordinator's, which streamed them),
 * every step summarized again from the raw records, so that percentiles stay exact. Files of
 * another run (run id), plan or seed are refused, naming both files.
 */
import { BadInputError } from '../format/errors';
import { STEP_WARNING_KINDS, type RequestRecord, type ResultDocument, type ShardMember, type ShardsInfo, type Step } from '../format/result';
import { ResultWriter, type ResultHead } from './writer';

/** A shard file read: where it came from and what it holds. */
export interface ShardFile {
  path: string;
  doc: ResultDocument;
}

const seedOf = (doc: ResultDocument): unknown => (doc.config as { seed?: unknown }).seed;

/** The shards section of every file, each checked against the first: same run, plan and seed. */
function checkTogether(files: readonly ShardFile[]): ShardsInfo[] {
  const infos = files.map(({ path, doc }) => {
    if (!doc.shards) throw new BadInputError(`${path} is not a shard run's file (it has no shards section): llmbench merge takes the files written by the shards of one \`llmbench run --shards N\`.`);
    return doc.shards;
  });
  const first = files[0]!;
  const base = infos[0]!;
  files.forEach(({ path, doc }, i) => {
    const info = infos[i]!;
    const other = `${path} and ${first.path}`;
    if (info.runId !== base.runId) throw new BadInputError(`${other} belong to different runs (run id ${info.runId} and ${base.runId}): merge only the files of one shard run.`);
    if (JSON.stringify(seedOf(doc)) !== JSON.stringify(seedOf(first.doc))) throw new BadInputError(`${other} were run with different seeds (${JSON.stringify(seedOf(doc))} and ${JSON.stringify(seedOf(first.doc))}): their requests are not parts of one plan.`);
    if (info.configHash !== base.configHash || info.count !== base.count) throw new BadInputError(`${other} were run with different plans (other run flags or shard counts): their requests are not parts of one plan.`);
  });
  const own = new Map<number, string>();
  files.forEach(({ path }, i) => {
    const shard = infos[i]!.shard;
    if (shard === undefined) return;
    const seen = own.get(shard);
    if (seen !== undefined) throw new BadInputError(`${seen} and ${path} are both shard ${shard}'s own file: give each shard's file once.`);
    own.set(shard, path);
  });
  return infos;
}

/** The records of shard `shard` in step `index` of a file: all of a shard's own file, the shard's of the coordinator's. */
function recordsOf(file: ShardFile, info: ShardsInfo, index: number, shard: number): RequestRecord[] {
  const step = file.doc.steps[index];
  if (!step) return [];
  if (info.shard !== undefined) return info.shard === shard ? step.requests.map((r) => ({ ...r, worker: shard })) : [];
  return step.requests.filter((r) => r.worker === shard);
}

/**
 * Merges the files into `outPath` and returns the document. Complete only when every shard's
 * records were found and every file was complete; otherwise partial, saying what is missing.
 */
export function mergeShardFiles(files: readonly ShardFile[], outPath: string): ResultDocument {
  if (files.length === 0) throw new BadInputError('llmbench merge needs at least one shard file.');
  const infos = checkTogether(files);
  const count = infos[0]!.count;
  const coordinatorAt = infos.findIndex((info) => info.shard === undefined);
  const lead = files[coordinatorAt === -1 ? 0 : coordinatorAt]!;
  const stepCount = Math.max(...files.map((f) => f.doc.steps.length));
  for (let j = 0; j < stepCount; j++) {
    const names = new Set(files.flatMap((f) => (f.doc.steps[j] ? [f.doc.steps[j]!.name] : [])));
    if (names.size > 1) throw new BadInputError(`Step ${j + 1} is ${[...names].join(' in one file and ')} in another: these files did not run the same steps.`);
  }

  // Where each shard's members entry comes from: the coordinator's list, else each shard's own file.
  // Its state is the furthest any file knew: lost (the coordinator saw it go), else done, else as written.
  const byCoordinatorFirst = [...infos].sort((a, b) => Number(a.shard !== undefined) - Number(b.shard !== undefined));
  const members: ShardMember[] = Array.from({ length: count }, (_, shard) => {
    const found = byCoordinatorFirst.flatMap((info) => info.members.filter((m) => m.shard === shard && m.state !== 'missing'));
    const first = found[0];
    if (first === undefined) return { shard, state: 'missing', host: null, pid: null, offsetMs: null, uncertaintyMs: null, rttMs: null };
    const state = found.some((m) => m.state === 'lost') ? 'lost' : found.some((m) => m.state === 'done') ? 'done' : first.state;
    return { ...first, state };
  });
  const { status: _s, statusReason: _r, finishedAt: _f, steps: _steps, warnings, sampledAfterSteps: _a, importedFrom: _i, shards: _shards, ...rest } = lead.doc;
  const head: ResultHead = { ...rest, createdAt: lead.doc.createdAt, shards: { runId: infos[0]!.runId, count, configHash: infos[0]!.configHash, coordinator: infos[0]!.coordinator, members } };
  const writer = new ResultWriter(outPath, head);
  const shardsWithRecords = new Set<number>();
  for (let j = 0; j < stepCount; j++) {
    const template = (lead.doc.steps[j] ?? files.find((f) => f.doc.steps[j])!.doc.steps[j]) as Step;
    writer.startStep(template.name, template.profile, template.repeat, template.startedOn, template.cacheReset);
    const records: RequestRecord[] = [];
    for (let shard = 0; shard < count; shard++) {
      // The source holding most of the shard's records of the step: its own file when the coordinator was lost, else either.
      let best: RequestRecord[] = [];
      files.forEach((file, i) => {
        const candidate = recordsOf(file, infos[i]!, j, shard);
        if (candidate.length > best.length) best = candidate;
      });
      if (best.length > 0) shardsWithRecords.add(shard);
      records.push(...best);
    }
    records.sort((a, b) => a.index - b.index || (a.turn ?? 0) - (b.turn ?? 0));
    for (const r of records) writer.addRecord(r);
    // What the run saw about the step goes over as written; whether it was too short is judged again from the merged records.
    const warnings = (template.summary?.warnings ?? []).filter((w) => w.kind !== STEP_WARNING_KINDS.tooShort);
    writer.endStep({
      ...(template.note !== undefined ? { note: template.note } : {}),
      ...(template.startMs !== undefined ? { startMs: template.startMs } : {}),
      ...(template.endMs !== undefined ? { endMs: template.endMs } : {}),
      ...(template.client ? { client: template.client } : {}),
      ...(template.failovers ? { failovers: template.failovers } : {}),
      warnings,
    });
  }
  for (const w of warnings ?? []) writer.addWarning(w);
  const problems: string[] = [];
  const noRecords = Array.from({ length: count }, (_, s) => s).filter((s) => !shardsWithRecords.has(s));
  if (stepCount > 0 && noRecords.length > 0) problems.push(`no records of shard${noRecords.length === 1 ? '' : 's'} ${noRecords.join(', ')} in the files given`);
  for (const f of files) if (f.doc.status !== 'complete') problems.push(`${f.path} is ${f.doc.status}${f.doc.statusReason ? ` (${f.doc.statusReason})` : ''}`);
  const reason = problems.length === 0 ? null : `Merged from ${files.length} shard files: ${problems.join('; ')}.`;
  return writer.finish(problems.length === 0 ? 'complete' : 'partial', reason);
}
