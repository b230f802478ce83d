/**
 * The one protocol between the host and the webviews (src/format/messages/protocol.ts): two
 * channels wired back to back, each message crossing as a JSON copy one task later, as VS Code
 * carries them. Replies find their requests by id in any order; what does not fit is said, never
 * thrown; a request nobody answers times out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { MessageChannel, type Envelope } from '../../src/format/messages/protocol';

const AskSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('double'), n: z.number() }),
  z.object({ type: z.literal('fail'), why: z.string() }),
  z.object({ type: z.literal('hold'), key: z.string() }),
]);
type Ask = z.infer<typeof AskSchema>;
const NoteSchema = z.object({ type: z.literal('note'), text: z.string() });
type Note = z.infer<typeof NoteSchema>;
const NumberResult = z.object({ n: z.number() });

interface End {
  channel: MessageChannel<Note, Ask, Note, Ask>;
  /** What this end posted. */
  sent: Envelope[];
  notes: Note[];
  problems: string[];
  /** Requests of type `hold`, answered when the test says. */
  held: Map<string, (n: number) => void>;
}

/** Two ends; `connected` false drops what either posts (a hidden page). */
function pair(): { a: End; b: End; link: { connected: boolean } } {
  const link = { connected: true };
  const ends: End[] = [];
  const end = (other: () => End): End => {
    const self: End = {
      sent: [],
      notes: [],
      problems: [],
      held: new Map(),
      channel: new MessageChannel<Note, Ask, Note, Ask>({
        post: (envelope) => {
          self.sent.push(envelope);
          const copy: unknown = JSON.parse(JSON.stringify(envelope));
          if (link.connected) setImmediate(() => other().channel.receive(copy));
        },
        events: NoteSchema,
        requests: AskSchema,
        onEvent: (note) => self.notes.push(note),
        onRequest: (ask) => {
          if (ask.type === 'double') return { n: ask.n * 2 };
          if (ask.type === 'fail') throw new Error(ask.why);
          return new Promise((resolve) => self.held.set(ask.key, (n) => resolve({ n })));
        },
        onProblem: (problem) => self.problems.push(problem),
      }),
    };
    return self;
  };
  const a = end(() => ends[1] as End);
  const b = end(() => ends[0] as End);
  ends.push(a, b);
  return { a, b, link };
}

const nextTask = () => new Promise((resolve) => setImmediate(resolve));
async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await nextTask();
  assert.ok(check(), what);
}

test('each reply settles the request whose id it names, answered in any order; every message has its own id', async () => {
  const { a, b } = pair();
  const first = a.channel.request({ type: 'hold', key: 'first' }, NumberResult);
  const second = a.channel.request({ type: 'hold', key: 'second' }, NumberResult);
  const third = a.channel.request({ type: 'double', n: 21 }, NumberResult);
  await until('both held requests arrive', () => b.held.size === 2);
  b.held.get('second')?.(2);
  b.held.get('first')?.(1);
  assert.deepEqual(await Promise.all([first, second, third]), [{ n: 1 }, { n: 2 }, { n: 42 }]);
  const requests = a.sent.filter((e) => e.kind === 'request').map((e) => e.id);
  assert.equal(new Set(requests).size, 3, 'three requests, three ids');
  const replies = b.sent.filter((e): e is Extract<Envelope, { kind: 'reply' }> => e.kind === 'reply');
  assert.deepEqual(replies.map((r) => r.replyTo).sort(), [...requests].sort(), 'each reply names its request');
  assert.equal(new Set(b.sent.map((e) => e.id)).size, b.sent.length, 'and has its own id');
  assert.deepEqual([...a.problems, ...b.problems], []);
});

test('a request the other side fails is rejected with its reason; an event arrives as an event', async () => {
  const { a, b } = pair();
  await assert.rejects(a.channel.request({ type: 'fail', why: 'the file is gone' }, NumberResult), /^Error: the file is gone$/);
  a.channel.event({ type: 'note', text: 'hello' });
  await until('the event arrives', () => b.notes.length === 1);
  assert.deepEqual(b.notes, [{ type: 'note', text: 'hello' }]);
  assert.deepEqual(a.sent.at(-1), { kind: 'event', id: a.sent.length, body: { type: 'note', text: 'hello' } });
});

test('a reply to an id never sent is said and changes nothing; a request still waiting gets its own reply', async () => {
  const { a, b } = pair();
  const waiting = a.channel.request({ type: 'hold', key: 'k' }, NumberResult);
  await until('the request arrives', () => b.held.size === 1);
  a.channel.receive({ kind: 'reply', id: 1, replyTo: 999, result: { n: 7 } });
  assert.equal(a.problems.length, 1);
  assert.match(a.problems[0] ?? '', /a reply to message 999, which was never sent/);
  b.held.get('k')?.(5);
  assert.deepEqual(await waiting, { n: 5 });
});

test('malformed messages are said, never thrown: a foreign message, an event or a request that does not fit (answered with why), a reply that does not fit', async () => {
  const { a, b } = pair();
  for (const raw of [null, 'ready', { type: 'ready' }, { kind: 'event', id: -1, body: {} }, { kind: 'reply', id: 1 }]) {
    assert.doesNotThrow(() => b.channel.receive(raw));
  }
  assert.equal(b.problems.length, 5);
  assert.ok(b.problems.every((p) => p.startsWith('a message that is not of the protocol (')), b.problems.join('\n'));
  assert.match(b.problems[2] ?? '', /kind/, 'the reason names what is wrong');

  b.channel.receive({ kind: 'event', id: 3, body: { type: 'note', text: 42 } });
  assert.match(b.problems.at(-1) ?? '', /^an event that does not fit \(text: /);
  assert.deepEqual(b.notes, [], 'a bad event is not handed on');

  // A request that does not fit is answered at once with the reason: the asker does not wait for a timeout.
  await assert.rejects(a.channel.request({ type: 'double', n: 'two' } as unknown as Ask, NumberResult), /a request that does not fit \(n: /);
  assert.match(b.problems.at(-1) ?? '', /^a request that does not fit/);

  // A reply whose result does not fit what was asked rejects the request and is said.
  const asked = a.channel.request({ type: 'double', n: 1 }, z.object({ text: z.string() }));
  await assert.rejects(asked, /the reply to "double" does not fit \(text: /);
  assert.match(a.problems.at(-1) ?? '', /the reply to "double" does not fit/);
});

test('a request with no reply times out, saying what was asked; a late reply is then ignored quietly', async () => {
  const { a, b } = pair();
  const started = Date.now();
  await assert.rejects(a.channel.request({ type: 'hold', key: 'slow' }, NumberResult, 50), /^Error: no reply to "hold" came within 0\.05 s$/);
  assert.ok(Date.now() - started >= 45);
  b.held.get('slow')?.(1);
  await nextTask();
  await nextTask();
  assert.deepEqual(a.problems, [], 'a reply after the timeout is no fault of the message');
});

test('requests dropped while the other side could not hear are posted again under their ids; answered twice, the first answer counts', async () => {
  const { a, b, link } = pair();
  link.connected = false;
  const asked = a.channel.request({ type: 'double', n: 4 }, NumberResult);
  await nextTask();
  link.connected = true;
  a.channel.resendWaiting();
  a.channel.resendWaiting();
  assert.deepEqual(await asked, { n: 8 });
  const ids = a.sent.filter((e) => e.kind === 'request').map((e) => e.id);
  assert.deepEqual(ids, [ids[0], ids[0], ids[0]], 'the same id each time');
  await until('both answers arrive', () => b.sent.filter((e) => e.kind === 'reply').length === 2);
  await nextTask();
  assert.deepEqual(a.problems, []);
});

test('closing a channel fails the requests still waiting with the reason', async () => {
  const { a } = pair();
  const waiting = a.channel.request({ type: 'hold', key: 'never' }, NumberResult);
  a.channel.dispose('The view was closed.');
  await assert.rejects(waiting, /^Error: The view was closed\.$/);
});
