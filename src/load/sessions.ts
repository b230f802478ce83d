/**
 * How the sessions of a multi-turn run (`sessions` in the config) share a step's load; what each
 * turn carries is the conversation's (src/workload/conversation.ts). Under a closed loop the
 * concurrency counts open sessions (a lane keeps its session through its think times) or requests
 * in flight (a session that thinks gives its lane to another, a new one if none is ready); under an
 * open loop each scheduled time starts a session. The step's request limit counts turns.
 */
import { performance } from 'node:perf_hooks';
import type { ConcurrencyUnit, SessionsConfig } from '../format/config';
import { Conversation, type SendTurn } from '../workload/conversation';
import type { TokenCounter } from '../workload/types';
import { waitUntil } from './schedule';

export interface SessionDriver {
  /** A closed-loop lane: sends turns while `withinBudget()` (the step's request limit, its duration) allows, sessions counted by `unit`. */
  lane(withinBudget: () => boolean, signal: AbortSignal): Promise<void>;
  /**
   * One session of an open-loop step, started at its scheduled time `dueAtMs` (performance.now()):
   * its turns in order, each through `acquire`/`release` of a slot. A turn is due at its session's
   * start, then at its reply's end plus the think time: the wait for a slot after that is queue time.
   */
  run(conversation: Conversation, withinBudget: () => boolean, signal: AbortSignal, slot: { acquire(signal: AbortSignal): Promise<boolean>; release(): void } | undefined, dueAtMs: number): Promise<void>;
}

/** Sends and records one turn, due at `dueAtMs` (performance.now()); resolves true when it failed. */
export type SendDueTurn = (prepared: Parameters<SendTurn>[0], turn: Parameters<SendTurn>[1], dueAtMs: number) => Promise<boolean>;

/**
 * Drives the sessions of one executor's part of a step. `newSession` hands out the next session a
 * closed-loop lane opens (the executor's next one by the plan); `send` sends and records one turn.
 */
export function sessionDriver(config: SessionsConfig, newSession: () => Conversation, send: SendDueTurn, chat: boolean, counter: TokenCounter, yieldToEventLoop: () => Promise<void>): SessionDriver {
  /** Waits out the think time after a reply; resolves with when the next turn was due. */
  const think = async (signal: AbortSignal): Promise<number> => {
    const dueAtMs = performance.now() + config.thinkTimeMs;
    if (config.thinkTimeMs > 0) await waitUntil(dueAtMs, signal);
    return dueAtMs;
  };
  /** Sessions between turns, their think time over: requests-unit lanes take these first. */
  const ready: Conversation[] = [];
  const unit: ConcurrencyUnit = config.concurrencyUnit;

  /** `dueAtMs`: when the turn was due; a closed loop's turn is due when its lane sends it. */
  const sendNextTurn = async (conversation: Conversation, dueAtMs?: number): Promise<void> => {
    const failed = await conversation.sendNext((prepared, turn) => send(prepared, turn, dueAtMs ?? performance.now()), chat, counter);
    // A failure that needed no I/O settles at once: yielding to the event loop keeps timers and cancels alive.
    if (failed) await yieldToEventLoop();
  };

  return {
    async lane(withinBudget, signal) {
      if (unit === 'sessions') {
        while (withinBudget() && !signal.aborted) {
          const conversation = newSession();
          while (!conversation.done && withinBudget() && !signal.aborted) {
            if (conversation.started) await think(signal);
            if (signal.aborted || !withinBudget()) break;
            await sendNextTurn(conversation);
          }
        }
        return;
      }
      while (withinBudget() && !signal.aborted) {
        const conversation = ready.shift() ?? newSession();
        await sendNextTurn(conversation);
        if (!conversation.done) void think(signal).then(() => ready.push(conversation));
      }
    },
    async run(conversation, withinBudget, signal, slot, dueAtMs) {
      let due = dueAtMs;
      while (!conversation.done && withinBudget() && !signal.aborted) {
        if (conversation.started) due = await think(signal);
        if (signal.aborted || !withinBudget()) break;
        if (slot && !(await slot.acquire(signal))) break;
        try {
          await sendNextTurn(conversation, due);
        } finally {
          slot?.release();
        }
      }
    },
  };
}
