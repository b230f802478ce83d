/**
 * A session's conversation (`sessions` in the config): its opening messages, then turn after turn
 * the user's message and the reply actually received. Each turn carries the conversation so far.
 * When turns go out, and how sessions share a step's load, is the load loop's
 * (src/load/sessions.ts).
 */
import { countPrompt, promptFor } from './prompt';
import type { ChatMessage, PreparedRequest, SessionPlan, TokenCounter } from './types';

/** Sends one turn; resolves true when it failed. */
export type SendTurn = (prepared: PreparedRequest, turn: { session: number; turn: number }) => Promise<boolean>;

/** A session in progress: the messages so far and the turn it sends next. */
export class Conversation {
  private readonly messages: ChatMessage[];
  private nextTurnIndex = 0;
  private ended = false;

  constructor(
    readonly id: number,
    private readonly plan: SessionPlan,
  ) {
    this.messages = [...plan.system];
  }

  get done(): boolean {
    return this.ended || this.nextTurnIndex >= this.plan.turns.length;
  }

  /** Whether it has sent a turn (the next one then waits for the user's think time). */
  get started(): boolean {
    return this.nextTurnIndex > 0;
  }

  /**
   * Sends the next turn: the history plus the user's message, as a prompt for the endpoint and
   * counted as any request of it is. Its reply joins the history; a failed turn ends the session,
   * whose history would no longer be a conversation.
   */
  async sendNext(send: SendTurn, chat: boolean, counter: TokenCounter): Promise<boolean> {
    const turn = this.nextTurnIndex++;
    const planned = this.plan.turns[turn];
    if (planned === undefined) return false;
    const prompt = promptFor([...this.messages, { role: 'user', content: planned.user }], chat);
    let reply = '';
    const prepared: PreparedRequest = {
      prompt,
      ...(planned.maxTokens !== undefined ? { maxTokens: planned.maxTokens } : {}),
      inputTokens: { count: countPrompt(prompt, counter), source: counter.source },
      onReply: (received) => (reply = received),
    };
    const failed = await send(prepared, { session: this.id, turn });
    if (failed) this.ended = true;
    else this.messages.push({ role: 'user', content: planned.user }, { role: 'assistant', content: reply });
    return failed;
  }
}

