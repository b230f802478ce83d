/**
 * The shard runtime (docs/scale-out.md): one run split over N processes on any machines. Shard 0
 * coordinates: it listens for the others, registers them (run token, same config), estimates each
 * one's clock offset (shard-protocol.ts), and then drives them as executors of its own run over the
 * same exchange as worker threads (executors.ts, executor-service.ts), its own part in a worker
 * thread beside them. Its gather writes the one result file as records stream in. Every other
 * shard serves its part over its connection and also writes its own file, so that a lost
 * coordinator loses nothing `llmbench merge` cannot put back together.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP, createServer, connect, type Server, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { RunConfig } from '../format/config';
import { BadInputError, messageOf } from '../format/errors';
import { describeZodError, type FailoverEvent, type ResultDocument, type RunStatus, type ShardMember, type ShardsInfo, type ShardState } from '../format/result';
import { CLIENT_BOUND_TEXT, EXECUTOR_LOST_TEXT, fillPlaceholders, SHARD_NOTE_TEXT } from '../format/warning-text';
import type { ExecutorCommand } from './executor-protocol';
import { buildExecutorBase, serveExecutor } from './executor-service';
import type { OpenExecutorChannel } from './executors';
import { shardDocumentHead } from './document-head';
import { ResultWriter } from '../results/writer';
import {
  CLOCK_ROUNDS,
  clockShiftMs,
  commandFromWire,
  commandToWire,
  CoordinatorMessageSchema,
  estimateOffset,
  ExecutorReplySchema,
  shardClockMs,
  ShardHelloSchema,
  ShardMessageSchema,
  type ClockOffset,
  type ClockSample,
  type CoordinatorMessage,
  type ShardMessage,
  type ShardRole,
} from './shard-protocol';

/** A shard that has connected must say hello within this long. */
const HELLO_DEADLINE_MS = 10_000;
/** One clock round trip that takes longer than this is taken for a lost shard. */
const PONG_DEADLINE_MS = 5_000;
/** A message longer than this (an open loop's schedule of millions of requests is about 20 bytes each) ends the connection. */
const MAX_LINE_BYTES = 512 * 1024 * 1024;
/** Between a shard's failed connection attempt and the next, while it waits for the coordinator. */
const CONNECT_RETRY_MS = 200;

/**
 * The fingerprint of a run's config: shards that hash it differently would not run the same plan.
 * Without the prompts' salt, which the coordinator draws for the run (runner.ts) and every shard
 * takes from its `init`.
 */
export function configHash(config: RunConfig): string {
  const { salt: _salt, ...cache } = config.cache;
  return createHash('sha256').update(JSON.stringify({ ...config, cache })).digest('hex');
}

/** Whether two tokens are equal, in time that does not depend on where they differ. */
function sameToken(a: string, b: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Tests only: LLMBENCH_TEST_HOSTS=`name=address,...` resolves those names as /etc/hosts would
 * (a Kubernetes Service's DNS name, mapped to 127.0.0.1 on a machine without the cluster's DNS).
 */
async function resolveHost(host: string): Promise<string> {
  for (const entry of (process.env['LLMBENCH_TEST_HOSTS'] ?? '').split(',')) {
    const [name, address] = entry.split('=');
    if (name === host && address !== undefined && isIP(address) !== 0) return address;
  }
  if (isIP(host) !== 0) return host;
  try {
    return (await lookup(host)).address;
  } catch (error) {
    throw new BadInputError(`The coordinator's host '${host}' cannot be resolved (${messageOf(error)}): give --coordinator HOST:PORT with a name or address every shard can reach.`);
  }
}

/** One JSON message per line over a socket; every line parsed by whoever takes it. */
class LineLink {
  private buffer = '';
  private closedWith: string | null = null;
  onMessage: (raw: unknown) => void = () => {};
  onClose: (reason: string) => void = () => {};

  constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => this.receive(text));
    socket.on('error', (error) => this.closed(`its connection failed (${error.message})`));
    socket.on('close', () => this.closed(EXECUTOR_LOST_TEXT.why.closed));
  }

  get closed_(): boolean {
    return this.closedWith !== null;
  }

  send(message: CoordinatorMessage | ShardMessage): void {
    if (this.closedWith === null) this.socket.write(`${JSON.stringify(message)}\n`);
  }

  /** Ends the connection once what was sent is out. */
  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private receive(text: string): void {
    this.buffer += text;
    if (this.buffer.length > MAX_LINE_BYTES) {
      this.closed(EXECUTOR_LOST_TEXT.why.tooLong);
      this.socket.destroy();
      return;
    }
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        this.closed(EXECUTOR_LOST_TEXT.why.notJson);
        this.socket.destroy();
        return;
      }
      this.onMessage(raw);
    }
  }

  private closed(reason: string): void {
    if (this.closedWith !== null) return;
    this.closedWith = reason;
    this.onClose(reason);
  }
}

/** A shard that registered: its link, where it runs and its clock. */
interface Registered {
  shard: number;
  host: string;
  pid: number;
  clock: ClockOffset;
  link: LineLink;
}

/** Shard 0's side: the listener, the registered shards, and the channel to each. */
export class ShardCoordinator {
  readonly runId = randomUUID();
  private readonly registered = new Map<number, Registered>();
  private readonly registering = new Set<number>();
  private gathered = false;
  private allRegistered: () => void = () => {};
  /** What the coordinator saw that the run's log should say (refused connections). */
  readonly notes: string[] = [];
  private readonly shift = clockShiftMs();
  /** Each shard's state once the run has started (running, done, lost); before it, a shard is registered or missing. */
  private readonly states = new Map<number, ShardState>();
  /** Told each time a shard's state changes during the run (the result file says it as it changes). */
  onChange: (info: ShardsInfo) => void = () => {};

  private constructor(
    private readonly role: ShardRole,
    private readonly hash: string,
    private readonly server: Server,
    readonly address: string,
  ) {
    server.on('connection', (socket) => this.accept(socket));
  }

  /**
   * Listens where `--coordinator` says: on the address its host resolves to, which is loopback
   * (127.0.0.1) unless a host reachable from other machines was named.
   */
  static async listen(role: ShardRole, hash: string): Promise<ShardCoordinator> {
    const address = await resolveHost(role.coordinator.host);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new BadInputError(
            error.code === 'EADDRINUSE'
              ? `The coordinator cannot listen on ${address}:${role.coordinator.port}: the port is in use (another run's coordinator?). Give another with --coordinator HOST:PORT.`
              : `The coordinator cannot listen on ${address}:${role.coordinator.port} (${error.message}).`,
          ),
        ),
      );
      server.listen(role.coordinator.port, address, () => resolve());
    });
    return new ShardCoordinator(role, hash, server, `${address}:${role.coordinator.port}`);
  }

  /** Waits until every other shard has registered, or the registration timeout: the shards that never did. */
  async gather(): Promise<number[]> {
    const expected = this.role.shards - 1;
    if (this.registered.size < expected) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.allRegistered = resolve;
        timer = setTimeout(resolve, this.role.registerTimeoutMs);
      });
      clearTimeout(timer);
    }
    this.gathered = true;
    return Array.from({ length: this.role.shards }, (_, i) => i).filter((i) => i > 0 && !this.registered.has(i));
  }

  /** The channels of the registered shards, in shard order, each shard's clock applied to the start instant it is sent. */
  channels(): OpenExecutorChannel[] {
    return [...this.registered.values()].sort((a, b) => a.shard - b.shard).map((shard) => this.channelTo(shard));
  }

  /** How executors are named in messages: the shard, its host and pid. */
  label = (index: number, of: number): string => {
    const shard = this.registered.get(index);
    const who = fillPlaceholders(CLIENT_BOUND_TEXT.who.shard, [index, of]);
    return shard ? fillPlaceholders(EXECUTOR_LOST_TEXT.shardAt, [who, shard.host, shard.pid]) : who;
  };

  /** Round-trip time of the slowest registered shard (ms), for the lead of each step's start instant. */
  get slowestRttMs(): number {
    return Math.max(0, ...[...this.registered.values()].map((s) => s.clock.rttMs));
  }

  /** The shards as the result file records them. */
  info(): ShardsInfo {
    const members: ShardMember[] = Array.from({ length: this.role.shards }, (_, shard) => {
      const state = this.states.get(shard) ?? 'registered';
      if (shard === 0) return { shard, state, host: hostname(), pid: process.pid, offsetMs: 0, uncertaintyMs: 0, rttMs: 0 };
      const r = this.registered.get(shard);
      if (!r) return { shard, state: 'missing', host: null, pid: null, offsetMs: null, uncertaintyMs: null, rttMs: null };
      return { shard, state, host: r.host, pid: r.pid, ...r.clock };
    });
    return { runId: this.runId, count: this.role.shards, configHash: this.hash, coordinator: this.address, members };
  }

  /** The run starts: the coordinator and every registered shard are running. */
  started(): void {
    for (const shard of [0, ...this.registered.keys()]) this.states.set(shard, 'running');
    this.onChange(this.info());
  }

  /** The run ends: every shard still running served until its end (a lost one stays lost). Not told to onChange: the run's end writes it. */
  finished(): ShardsInfo {
    for (const [shard, state] of this.states) if (state === 'running') this.states.set(shard, 'done');
    return this.info();
  }

  /** A shard whose process or connection ended during the run. */
  private lost(shard: number): void {
    if (this.states.get(shard) === 'lost') return;
    this.states.set(shard, 'lost');
    this.onChange(this.info());
  }

  /** Tells every shard how the run ended (each finishes its own file with it) and stops listening. */
  end(status: Exclude<RunStatus, 'running'>, reason: string | null): void {
    for (const shard of this.registered.values()) shard.link.send({ type: 'end', status, reason });
    this.server.close();
  }

  /** Ends every connection at once (the run failed before its shards ran). */
  destroy(): void {
    for (const shard of this.registered.values()) shard.link.destroy();
    this.server.close();
  }

  private refuse(link: LineLink, message: string, note: string): void {
    this.notes.push(note);
    link.send({ type: 'refused', message });
    link.end();
    setTimeout(() => link.destroy(), 1000).unref();
  }

  private accept(socket: Socket): void {
    const link = new LineLink(socket);
    const peer = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    const deadline = setTimeout(() => link.destroy(), HELLO_DEADLINE_MS);
    link.onClose = () => clearTimeout(deadline);
    link.onMessage = (raw) => {
      clearTimeout(deadline);
      link.onMessage = () => {};
      const hello = ShardHelloSchema.safeParse(raw);
      if (!hello.success) return this.refuse(link, 'the first message must be a hello', fillPlaceholders(SHARD_NOTE_TEXT.notShardProtocol, [peer, describeZodError(hello.error)]));
      const h = hello.data;
      // Nothing about the run is told to a connection without its token.
      if (!sameToken(h.token, this.role.token)) return this.refuse(link, 'wrong run token', fillPlaceholders(SHARD_NOTE_TEXT.wrongToken, [peer]));
      const who = fillPlaceholders(SHARD_NOTE_TEXT.who, [h.shard, h.host, h.pid]);
      if (h.shards !== this.role.shards) return this.refuse(link, `this run has ${this.role.shards} shards, not ${h.shards}`, fillPlaceholders(SHARD_NOTE_TEXT.otherCount, [who, h.shards, this.role.shards]));
      if (h.shard === 0 || h.shard >= this.role.shards) return this.refuse(link, `shard indexes of this run go from 1 to ${this.role.shards - 1} (0 is the coordinator)`, fillPlaceholders(SHARD_NOTE_TEXT.noSuchShard, [who]));
      if (this.registered.has(h.shard) || this.registering.has(h.shard)) return this.refuse(link, `shard ${h.shard} has registered already`, fillPlaceholders(SHARD_NOTE_TEXT.registeredAlready, [who, h.shard]));
      if (this.gathered) return this.refuse(link, 'the run has started without it', fillPlaceholders(SHARD_NOTE_TEXT.lateRegistered, [who]));
      if (h.configHash !== this.hash) {
        return this.refuse(
          link,
          'its run flags differ from the coordinator\'s (another plan, seed or endpoint): start every shard with the same flags',
          fillPlaceholders(SHARD_NOTE_TEXT.flagsDiffer, [who]),
        );
      }
      this.registering.add(h.shard);
      link.send({ type: 'welcome', runId: this.runId });
      void this.timeClock(link).then(
        (clock) => {
          this.registering.delete(h.shard);
          if (this.gathered) return this.refuse(link, 'the run has started without it', fillPlaceholders(SHARD_NOTE_TEXT.lateFinished, [who]));
          link.send({ type: 'clock', ...clock });
          this.registered.set(h.shard, { shard: h.shard, host: h.host, pid: h.pid, clock, link });
          link.onClose = (reason) => this.notes.push(fillPlaceholders(SHARD_NOTE_TEXT.closedBefore, [who, reason]));
          if (this.registered.size === this.role.shards - 1) this.allRegistered();
        },
        (error: unknown) => {
          this.registering.delete(h.shard);
          this.notes.push(fillPlaceholders(SHARD_NOTE_TEXT.couldNotRegister, [who, messageOf(error)]));
          link.destroy();
        },
      );
    };
  }

  /** CLOCK_ROUNDS round trips, one after the other; the shortest gives the offset. */
  private async timeClock(link: LineLink): Promise<ClockOffset> {
    const samples: ClockSample[] = [];
    for (let id = 0; id < CLOCK_ROUNDS; id++) {
      const sentMs = shardClockMs(this.shift);
      const peerMs = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to a clock round trip within ${PONG_DEADLINE_MS / 1000} s`)), PONG_DEADLINE_MS);
        link.onClose = (reason) => (clearTimeout(timer), reject(new Error(reason)));
        link.onMessage = (raw) => {
          const pong = ShardMessageSchema.safeParse(raw);
          if (!pong.success || pong.data.type !== 'pong' || pong.data.id !== id) return;
          clearTimeout(timer);
          resolve(pong.data.clockMs);
        };
        link.send({ type: 'ping', id });
      });
      samples.push({ sentMs, peerMs, answeredMs: shardClockMs(this.shift) });
    }
    return estimateOffset(samples);
  }

  /**
   * A registered shard as an executor's channel: commands go out with the start instant moved onto
   * its clock, replies come back parsed, and its connection's end is the executor's loss.
   */
  private channelTo(shard: Registered): OpenExecutorChannel {
    return (onReply, onCrash) => {
      const { link } = shard;
      let exited = link.closed_;
      let closing = false;
      let crashed = false;
      const crash = (reason: string): void => {
        if (crashed || closing) return;
        crashed = true;
        this.lost(shard.shard);
        onCrash(reason);
        link.destroy();
      };
      let closedAt: () => void = () => {};
      const closedNow = new Promise<void>((resolve) => (closedAt = resolve));
      link.onClose = (reason) => {
        exited = true;
        crash(reason);
        closedAt();
      };
      if (exited) queueMicrotask(() => crash(EXECUTOR_LOST_TEXT.why.closedBeforeStart));
      link.onMessage = (raw) => {
        const message = ShardMessageSchema.safeParse(raw);
        const reply = message.success && message.data.type === 'reply' ? ExecutorReplySchema.safeParse(message.data.reply) : null;
        if (reply === null || !reply.success) {
          crash(reply && !reply.success ? fillPlaceholders(EXECUTOR_LOST_TEXT.why.offProtocolWhy, [describeZodError(reply.error)]) : EXECUTOR_LOST_TEXT.why.offProtocol);
          return;
        }
        onReply(reply.data);
      };
      const send = (command: ExecutorCommand): void => {
        let wire: ExecutorCommand = command;
        // Keys never cross the network: a shard uses its own (its environment's).
        if (command.type === 'init') wire = { type: 'init', config: command.config };
        // The instant on the coordinator's clock (with its own test shift), moved onto the shard's.
        if (command.type === 'start') wire = { type: 'start', atMs: command.atMs + this.shift + shard.clock.offsetMs };
        link.send({ type: 'command', command: commandToWire(wire) });
      };
      return {
        send,
        get exited() {
          return exited;
        },
        async close(ask) {
          if (closing) return;
          closing = true;
          if (!exited && ask) {
            send(ask.command);
            const late = new Promise<void>((resolve) => setTimeout(resolve, ask.deadlineMs).unref());
            await Promise.race([closedNow, late]);
          }
          link.destroy();
        },
      };
    };
  }
}

/** Where the shard's file goes beside the coordinator's: `run.llmbench.json` -> `run.shard-2.llmbench.json`. */
export function shardFilePath(resultPath: string, shard: number): string {
  const match = /^(.*?)((?:\.llmbench)?\.json)$/.exec(resultPath);
  return match ? `${match[1]}.shard-${shard}${match[2]}` : `${resultPath}.shard-${shard}`;
}

/** What a shard other than 0 needs beyond its config: where to write, its key, its log. */
export interface ShardRunOptions {
  role: ShardRole;
  apiKey: string | undefined;
  /** With `endpoints` in the config: each endpoint's key, in their order (from this shard's environment, as `apiKey`). */
  apiKeys?: readonly (string | undefined)[];
  /** Its own file (shardFilePath of the run's --out). */
  resultPath: string;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
}

/** Connects to the coordinator, trying again until the registration timeout. */
async function connectToCoordinator(role: ShardRole): Promise<Socket> {
  const address = await resolveHost(role.coordinator.host);
  const deadline = performance.now() + role.registerTimeoutMs;
  let lastError = '';
  while (performance.now() < deadline) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = connect({ host: address, port: role.coordinator.port });
        socket.once('connect', () => (socket.removeAllListeners('error'), resolve(socket)));
        socket.once('error', reject);
      });
    } catch (error) {
      lastError = messageOf(error);
      await new Promise((resolve) => setTimeout(resolve, CONNECT_RETRY_MS));
    }
  }
  throw new Error(`Shard ${role.shard} of ${role.shards} could not reach the coordinator at ${address}:${role.coordinator.port} within ${role.registerTimeoutMs / 1000} s (${lastError}).`);
}

/**
 * Runs shard `role.shard` (not 0) of a run: registers with the coordinator, answers its clock
 * round trips, serves its parts, and writes its own file. Resolves with that file's document when
 * the coordinator ends the run, or, partial, when the connection to it is lost.
 */
export async function runShard(config: RunConfig, options: ShardRunOptions): Promise<ResultDocument> {
  const { role } = options;
  const shift = clockShiftMs();
  // A dataset or tokenizer this shard cannot read fails here, before it registers.
  const base = await buildExecutorBase(config, options.apiKey, options.apiKeys);
  const hash = configHash(config);
  const link = new LineLink(await connectToCoordinator(role));
  return new Promise<ResultDocument>((resolve, reject) => {
    let file: ResultWriter | null = null;
    let shardsInfo: ShardsInfo | null = null;
    /** This shard's own state in its own file: running from its first part, done when the coordinator ends the run. */
    const setState = (state: ShardState): void => {
      if (file === null || shardsInfo === null) return;
      shardsInfo = { ...shardsInfo, members: shardsInfo.members.map((m) => ({ ...m, state })) };
      // Said with the step boundary or the file's end that follows at once.
      file.setShards(shardsInfo, 'with-next-write');
    };
    let runId: string | null = null;
    let ended: { status: Exclude<RunStatus, 'running'>; reason: string | null } | null = null;
    let stepOpen = false;
    let failovers: FailoverEvent[] = [];
    const endStep = (): void => {
      if (stepOpen) file?.endStep({ failovers });
      stepOpen = false;
      failovers = [];
    };
    const welcomeDeadline = setTimeout(() => {
      link.destroy();
      reject(new Error(`The coordinator at ${role.coordinator.host}:${role.coordinator.port} accepted the connection but did not register shard ${role.shard} within ${role.registerTimeoutMs / 1000} s.`));
    }, role.registerTimeoutMs);
    const serve = serveExecutor({
      reply: (reply) => link.send({ type: 'reply', reply }),
      base: async (sent) => {
        if (configHash(sent) !== hash) throw new BadInputError(`Shard ${role.shard}'s run flags differ from the coordinator's.`);
        // The prompts open with the run's salt, which the coordinator drew: this shard's are then the run's, as its own part's are.
        return sent.cache.salt === config.cache.salt ? base : buildExecutorBase(sent, options.apiKey, options.apiKeys);
      },
      clockShiftMs: shift,
      close: () => link.end(),
      observe: {
        part: (part) => {
          if (shardsInfo?.members[0]?.state === 'registered') setState('running');
          endStep();
          file?.startStep(part.step.name, part.step.profile);
          stepOpen = true;
        },
        records: (records, events) => {
          for (const r of records) {
            r.worker = role.shard;
            file?.addRecord(r);
          }
          failovers.push(...events);
        },
        done: endStep,
      },
    });
    link.onMessage = (raw) => {
      const parsed = CoordinatorMessageSchema.safeParse(raw);
      if (!parsed.success) {
        options.log('error', `The coordinator sent a message that does not fit the protocol (${describeZodError(parsed.error)}); the connection is closed.`);
        link.destroy();
        return;
      }
      const message = parsed.data;
      switch (message.type) {
        case 'welcome':
          runId = message.runId;
          return;
        case 'refused':
          clearTimeout(welcomeDeadline);
          link.destroy();
          reject(new BadInputError(`The coordinator refused shard ${role.shard}: ${message.message}.`));
          return;
        case 'ping':
          link.send({ type: 'pong', id: message.id, clockMs: shardClockMs(shift) });
          return;
        case 'clock': {
          clearTimeout(welcomeDeadline);
          const self: ShardMember = { shard: role.shard, state: 'registered', host: hostname(), pid: process.pid, offsetMs: message.offsetMs, uncertaintyMs: message.uncertaintyMs, rttMs: message.rttMs };
          const coordinator = `${role.coordinator.host}:${role.coordinator.port}`;
          shardsInfo = { runId: runId ?? 'unknown', count: role.shards, configHash: hash, coordinator, shard: role.shard, members: [self] };
          file = new ResultWriter(options.resultPath, shardDocumentHead(config, shardsInfo));
          options.log('info', `Shard ${role.shard} of ${role.shards} registered with the coordinator at ${coordinator}; clock offset ${message.offsetMs.toFixed(3)} ms ± ${message.uncertaintyMs.toFixed(3)} ms.`);
          return;
        }
        case 'command':
          serve(commandFromWire(message.command));
          return;
        case 'end':
          ended = { status: message.status, reason: message.reason };
          return;
      }
    };
    link.onClose = (reason) => {
      clearTimeout(welcomeDeadline);
      // Whatever this shard still runs stops: nobody gathers it any more.
      serve({ type: 'stop' });
      if (file === null) {
        reject(new Error(`The coordinator closed the connection before shard ${role.shard} registered (${reason}).`));
        return;
      }
      const outcome = ended ?? {
        status: 'partial' as const,
        reason: `The connection to the coordinator was lost during the run (${reason}). This shard's records until then are kept in this file; \`llmbench merge\` puts the shards' files together.`,
      };
      if (ended === null) options.log('error', outcome.reason ?? '');
      else setState('done');
      resolve(file.finish(outcome.status, outcome.reason));
    };
    link.send({ type: 'hello', token: role.token, shard: role.shard, shards: role.shards, configHash: hash, host: hostname(), pid: process.pid });
  });
}
