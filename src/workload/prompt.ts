/**
 * A request's prompt in the form its endpoint takes, and its input tokens as the workload counts
 * them: the one place where messages become a text and where a prompt is counted, for single
 * requests, a session's turns and the client alike.
 */
import { messagesText } from './chat-template';
import type { ChatMessage, TokenCounter } from './types';

/** Chat messages for a chat endpoint (a text becomes one user message); a text for completions (messages joined by messagesText). */
export function promptFor(prompt: string | ChatMessage[], chat: boolean): string | ChatMessage[] {
  if (chat) return typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt;
  return typeof prompt === 'string' ? prompt : messagesText(prompt);
}

/** A prompt's input tokens: chat messages as the server counts a chat request (through the model's chat template, where known), a text as it is. */
export function countPrompt(prompt: string | readonly ChatMessage[], counter: TokenCounter): number {
  return typeof prompt === 'string' ? counter.count(prompt) : counter.countChat(prompt);
}
