// Multi-turn sessions against a loopback server that answers each turn with a reply derived from
// it: the turn order, the history each turn carries (the replies actually received), what the
// concurrency counts, the session and turn of every record, and TTFT by turn in the result view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { forReading } from '../../src/results/read-result';
import { runBenchmark } from '../../src/load/runner';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { ResultDocumentSchema, type RequestRecord, type ResultDocument } from '../../src/format/result';
import { buildResultView } from '../../src/views/result';
import { ttftByTurn } from '../../src/views/turns';
import { startRunnerServer, type RunnerServer } from '../helpers/runner-server';

type Message = { role: string; content: string };

/** The server's reply to a turn: says which user message it answers, so a history can be checked against it. */
const replyTo = (user: string): string => `reply to [${user.slice(0, 24)}]`;

async function replyingServer(t: { after(fn: () => Promise<void>): void }, firstTokenMs = 0): Promise<RunnerServer> {
  const server = await startRunnerServer((_, body) => {
    const messages = (body.messages as Message[] | undefined) ?? [];
    return { pieces: [replyTo(messages.at(-1)?.content ?? '')], firstTokenMs };
  });
  t.after(() => server.close());
  return server;
}

async function run(server: RunnerServer, overrides: Partial<RunConfigInput>): Promise<ResultDocument> {
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 4 },
    limits: { requests: 12 },
    ...overrides,
  });
  return ResultDocumentSchema.parse(await runBenchmark(config, {}));
}

const records = (doc: ResultDocument): RequestRecord[] => doc.steps.flatMap((s) => s.requests);

/** Most sessions open at the same time, a session open from its first turn's send to its last turn's end. */
function mostOpenSessions(all: RequestRecord[]): number {
  const spans = new Map<number, [number, number]>();
  for (const r of all) {
    const span = spans.get(r.session ?? -1) ?? [Infinity, -Infinity];
    spans.set(r.session ?? -1, [Math.min(span[0], r.sentMs), Math.max(span[1], r.endMs ?? r.sentMs)]);
  }
  const edges = [...spans.values()].flatMap(([start, end]) => [[start, 1], [end, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, delta] of edges) most = Math.max(most, (open += delta));
  return most;
}

/**
 * Every body is a conversation: user and assistant alternate after any system messages, and each
 * assistant message is the reply the server gave to the user message before it.
 */
function assertHistories(bodies: Record<string, unknown>[], system: Message[] = []): void {
  for (const body of bodies) {
    const messages = body.messages as Message[];
    assert.deepEqual(messages.slice(0, system.length), system);
    const turns = messages.slice(system.length);
    assert.equal(turns.length % 2, 1, 'ends with the new user message');
    turns.forEach((m, i) => {
      assert.equal(m.role, i % 2 === 0 ? 'user' : 'assistant');
      if (i % 2 === 1) assert.equal(m.content, replyTo(turns[i - 1]?.content ?? ''), 'the assistant message is the reply received');
    });
  }
}

test('synthetic sessions: turns in order, each carrying the history with the replies received; records carry session and turn', async (t) => {
  const server = await replyingServer(t);
  const doc = await run(server, { sessions: { turns: 3, thinkTimeMs: 20 }, profile: { kind: 'concurrency', levels: [2] } });
  assert.equal(doc.status, 'complete');
  assertHistories(server.bodies);
  // 12 turns: each session's turns start at 0 and go in order (the last sessions may be cut short by
  // the limit), each sent after the one before ended and the think time passed.
  const all = records(doc);
  assert.equal(all.length, 12);
  const sessions = [...new Set(all.map((r) => r.session))].sort();
  assert.ok(sessions.length >= 4, `${sessions.length} sessions`);
  for (const session of sessions) {
    const turns = all.filter((r) => r.session === session).sort((a, b) => a.sentMs - b.sentMs);
    assert.deepEqual(turns.map((r) => r.turn), turns.map((_, i) => i));
    turns.slice(1).forEach((r, i) => assert.ok(r.sentMs >= (turns[i]?.endMs ?? Infinity) + 19, `session ${session} turn ${r.turn} waits for the reply and the think time`));
  }
  assert.equal(all.filter((r) => r.turn === 2).length >= 3, true, 'sessions reach their third turn');
  // Each later turn repeats the session's earlier user messages word for word.
  for (const body of server.bodies.filter((b) => (b.messages as Message[]).length === 5)) {
    const [first, , second] = body.messages as Message[];
    assert.ok(server.bodies.some((b) => (b.messages as Message[]).length === 1 && (b.messages as Message[])[0]?.content === first?.content));
    assert.ok(server.bodies.some((b) => (b.messages as Message[]).length === 3 && (b.messages as Message[])[2]?.content === second?.content));
  }
});

test('concurrency counts sessions, or requests in flight: a thinking session holds its slot only in the first case', async (t) => {
  const bySessions = await run(await replyingServer(t), { sessions: { turns: 3, thinkTimeMs: 150, concurrencyUnit: 'sessions' }, profile: { kind: 'concurrency', levels: [2] } });
  // Concurrency 2 counting sessions: never more than two open (first send to last end) at once.
  assert.equal(mostOpenSessions(records(bySessions)), 2);
  // Turns of 30 ms: sessions come back from their think time while the run still goes.
  const serverByRequests = await replyingServer(t, 30);
  const byRequests = await run(serverByRequests, { sessions: { turns: 3, thinkTimeMs: 100, concurrencyUnit: 'requests' }, profile: { kind: 'concurrency', levels: [2] }, limits: { requests: 24 } });
  // Counting requests: while sessions think, the two slots start others, so more are open at once;
  // still never more than 2 requests in flight.
  assert.ok(mostOpenSessions(records(byRequests)) > 2, `${mostOpenSessions(records(byRequests))} sessions open at once`);
  assert.ok(serverByRequests.maxInFlight <= 2);
  assert.ok(records(byRequests).some((r) => (r.turn ?? 0) > 0), 'thinking sessions come back for their next turn');
  assertHistories(serverByRequests.bodies);
});

test('sessions from a ShareGPT file and from JSONL messages: every user turn in order, system first, recorded replies replaced by the received ones', async (t) => {
  const sharegpt = join(process.env.LLMBENCH_ROOT ?? resolve(__dirname, '../../..'), 'test', 'fixtures', 'sharegpt-vllm.json');
  const conversation = (JSON.parse(readFileSync(sharegpt, 'utf8')) as { id: string; conversations: { from: string; value: string }[] }[]).find((c) => c.id === 'kept-multi-turn');
  const users = conversation?.conversations.filter((turn) => turn.from === 'human').map((turn) => turn.value) ?? [];
  const file = join(mkdtempSync(join(tmpdir(), 'llmbench-sessions-')), 'multi.json');
  writeFileSync(file, JSON.stringify([conversation]));
  const server = await replyingServer(t);
  // The run's salt (given here, drawn per run otherwise) opens each conversation and stays in its history.
  const salt = 'feed01';
  const first = `${salt} ${users[0]}`;
  const doc = await run(server, { workload: { kind: 'dataset', path: file, format: 'sharegpt' }, sessions: {}, limits: { requests: 3 }, cache: { salt } });
  assert.equal(doc.status, 'complete');
  assert.deepEqual(
    server.bodies.map((b) => b.messages),
    [
      [{ role: 'user', content: first }],
      [{ role: 'user', content: first }, { role: 'assistant', content: replyTo(first) }, { role: 'user', content: users[1] }],
      [
        { role: 'user', content: first },
        { role: 'assistant', content: replyTo(first) },
        { role: 'user', content: users[1] },
        { role: 'assistant', content: replyTo(users[1] ?? '') },
        { role: 'user', content: users[2] },
      ],
    ],
  );

  const jsonl = join(mkdtempSync(join(tmpdir(), 'llmbench-sessions-')), 'chat.jsonl');
  const system = { role: 'system', content: 'Answer in one line.' };
  const saltedSystem = { role: 'system', content: `${salt} Answer in one line.` };
  writeFileSync(jsonl, `${JSON.stringify({ messages: [system, { role: 'user', content: 'First question?' }, { role: 'assistant', content: 'recorded, never sent' }, { role: 'user', content: 'Second question?' }] })}\n`);
  const jsonlServer = await replyingServer(t);
  await run(jsonlServer, { workload: { kind: 'dataset', path: jsonl }, sessions: { thinkTimeMs: 10 }, limits: { requests: 2 }, cache: { salt } });
  assert.deepEqual(jsonlServer.bodies.map((b) => b.messages), [
    [saltedSystem, { role: 'user', content: 'First question?' }],
    [saltedSystem, { role: 'user', content: 'First question?' }, { role: 'assistant', content: replyTo('First question?') }, { role: 'user', content: 'Second question?' }],
  ]);
  // Without a salt (--reuse-prompts) the file's own words go out.
  const reused = await replyingServer(t);
  await run(reused, { workload: { kind: 'dataset', path: jsonl }, sessions: {}, limits: { requests: 1 }, cache: { reusePrompts: true } });
  assert.deepEqual(reused.bodies.map((b) => b.messages), [[system, { role: 'user', content: 'First question?' }]]);
});

test('sessions under a rate profile start at the scheduled times; single requests carry null session and turn', async (t) => {
  const server = await replyingServer(t);
  const doc = await run(server, { sessions: { turns: 2 }, profile: { kind: 'rate', rates: [20], arrival: 'constant' }, limits: { requests: 8 } });
  assert.equal(doc.status, 'complete');
  assertHistories(server.bodies);
  const firstTurns = records(doc).filter((r) => r.turn === 0).sort((a, b) => (a.session ?? 0) - (b.session ?? 0));
  // Session i starts at i / 20 s, until the 8 turns are claimed (second turns follow their replies at once).
  assert.ok(firstTurns.length >= 4);
  assert.deepEqual(firstTurns.map((r) => Math.round(r.sentMs / 50)), firstTurns.map((_, i) => i), 'session i starts at i / 20 s');
  assert.equal(records(doc).length, 8);
  const single = await run(await replyingServer(t), { limits: { requests: 2 } });
  assert.ok(records(single).every((r) => r.session === null && r.turn === null));
});

test('TTFT by turn: the result view draws each step\'s p50 TTFT against the turn index', async (t) => {
  const server = await replyingServer(t, 5);
  const doc = await run(server, { sessions: { turns: 3 }, profile: { kind: 'concurrency', levels: [1] }, limits: { requests: 6 } });
  const step = doc.steps[0];
  const byTurn = ttftByTurn(step?.requests ?? []);
  assert.deepEqual(byTurn.map((b) => [b.turn, b.stats.count]), [[0, 2], [1, 2], [2, 2]]);
  const chart = buildResultView(forReading(doc), 'r').charts.find((c) => c.id === 'ttft-by-turn');
  assert.equal(chart?.xLabel, 'Turn of the conversation');
  assert.deepEqual(chart?.series[0]?.points.map(([x]) => x), [1, 2, 3]);
  assert.deepEqual(chart?.series[0]?.points.map(([, y]) => y), byTurn.map((b) => b.stats.p50));
  // Single requests have no turns: no such chart.
  const single = await run(await replyingServer(t), { limits: { requests: 2 } });
  assert.equal(buildResultView(forReading(single), 's').charts.some((c) => c.id === 'ttft-by-turn'), false);
});
