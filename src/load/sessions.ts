/**
 * Multi-turn conversations (`sessions` in the config): a session sends its turns in order, each
 * carrying the conversation so far, the assistant's part being the text actually received. How
 * sessions share a step's load: under a closed loop the concurrency counts open sessions (a lane
 * keeps its session through its think times) or requests in flight (a session that thinks gives
 * its lane to another, a new one if none is ready); under an open loop each scheduled time starts a
 * session. The step's request limit counts turns.
 */
import { performance } from 'node:perf_hooks';
import type { ConcurrencyUnit, SessionsConfig } from '../format/config';
import { waitUntil } from './schedule';
import type { ChatMessage, PreparedRequest, SessionPlan, TokenCounter } from '../workload/types';

/** Sends one turn; resolves true when it failed. */
export type SendTurn = (prepared: PreparedRequest, turn: { session: number; turn: number }) => Promise<boolean>;

/** A session in progress: the messages so far and the turn it sends next. */
export class Conversation {
  private readonly messages: ChatMessage[];
  private nextTurn = 0;
  private ended = false;

  constructor(
    readonly id: number,
    private readonly plan: SessionPlan,
  ) {
    this.messages = [...plan.system];
  }

  get done(): boolean {
    return this.ended || this.nextTurn >= this.plan.turns.length;
  }

  /** Whether it has sent a turn (the next one then waits for the user's think time). */
  get started(): boolean {
    return this.nextTurn > 0;
  }

  /**
   * Sends the next turn: the history plus the user's message. Its reply joins the history; a
   * failed turn ends the session, whose history would no longer be a conversation.
   */
  async sendNext(send: SendTurn, chat: boolean, counter: TokenCounter): Promise<boolean> {
    const turn = this.nextTurn++;
    const planned = this.plan.turns[turn];
    if (planned === undefined) return false;
    const messages: ChatMessage[] = [...this.messages, { role: 'user', content: planned.user }];
    const text = messages.map((m) => m.content).join('\n');
    let reply = '';
    const prepared: PreparedRequest = {
      prompt: chat ? messages : text,
      ...(planned.maxTokens !== undefined ? { maxTokens: planned.maxTokens } : {}),
      inputTokens: { count: counter.count(text), source: counter.source },
      onReply: (received) => (reply = received),
    };
    const failed = await send(prepared, { session: this.id, turn });
    if (failed) this.ended = true;
    else this.messages.push({ role: 'user', content: planned.user }, { role: 'assistant', content: reply });
    return failed;
  }
}

export interface SessionDriver {
  /** A closed-loop lane: sends turns while `more()` allows, sessions counted by `unit`. */
  lane(more: () => boolean, signal: AbortSignal): Promise<void>;
  /** One session of an open-loop step, started at its scheduled time: its turns in order, each through `acquire`/`release` of a slot. */
  run(more: () => boolean, signal: AbortSignal, slot?: { acquire(signal: AbortSignal): Promise<boolean>; release(): void }): Promise<void>;
}

/**
 * Drives the sessions of one step. `newSession` hands out the run's next session (numbered in order
 * of start across the run); `send` sends and records one turn.
 */
export function sessionDriver(config: SessionsConfig, newSession: () => Conversation, send: SendTurn, chat: boolean, counter: TokenCounter, onIdleTurn: () => Promise<void>): SessionDriver {
  const think = (signal: AbortSignal): Promise<void> => (config.thinkTimeMs > 0 ? waitUntil(performance.now() + config.thinkTimeMs, signal) : Promise.resolve());
  /** Sessions between turns, their think time over: requests-unit lanes take these first. */
  const ready: Conversation[] = [];
  const unit: ConcurrencyUnit = config.concurrencyUnit;

  const turn = async (conversation: Conversation): Promise<void> => {
    // A failure that needed no I/O settles at once: a turn of the event loop keeps timers and cancels alive.
    if (await conversation.sendNext(send, chat, counter)) await onIdleTurn();
  };

  return {
    async lane(more, signal) {
      if (unit === 'sessions') {
        while (more() && !signal.aborted) {
          const conversation = newSession();
          while (!conversation.done && more() && !signal.aborted) {
            if (conversation.started) await think(signal);
            if (signal.aborted || !more()) break;
            await turn(conversation);
          }
        }
        return;
      }
      while (more() && !signal.aborted) {
        const conversation = ready.shift() ?? newSession();
        await turn(conversation);
        if (!conversation.done) void think(signal).then(() => ready.push(conversation));
      }
    },
    async run(more, signal, slot) {
      const conversation = newSession();
      while (!conversation.done && more() && !signal.aborted) {
        if (conversation.started) await think(signal);
        if (signal.aborted || !more()) break;
        if (slot && !(await slot.acquire(signal))) break;
        try {
          await turn(conversation);
        } finally {
          slot?.release();
        }
      }
    },
  };
}
