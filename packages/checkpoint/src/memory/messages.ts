/** The message buffer in memory: messages by id, each with the taker holding it (null while free). */
import { checkMessage, checkText } from '../input-rules.js';
import { checkMessageClock, messageNames, pickMessage } from '../put-rules.js';
import type { BufferedMessage } from '../repository-types.js';
import { copyMessage, type MemoryState } from './state.js';

export function putMessage(state: MemoryState, message: BufferedMessage): boolean {
  checkMessage(message);
  if (state.messages.has(message.id)) return false;
  state.messages.set(message.id, { message: copyMessage(message), taker: null });
  return true;
}

export function takeMessage(
  state: MemoryState,
  names: string | readonly string[],
  correlationKey: string | null,
  now: number,
  taker: string,
): BufferedMessage | undefined {
  checkMessageClock(now);
  checkText('taker', taker);
  const wanted = new Set(messageNames(names));
  const matching = [...state.messages.values()].filter(
    (entry) => wanted.has(entry.message.name) && entry.message.correlationKey === correlationKey,
  );
  const picked = pickMessage(matching, now, taker);
  if (picked === undefined) return undefined;
  picked.taker = taker;
  return copyMessage(picked.message);
}

export function deleteMessage(state: MemoryState, id: string): boolean {
  return state.messages.delete(id);
}

export function expireMessages(state: MemoryState, now: number): number {
  checkMessageClock(now);
  let expired = 0;
  for (const [id, entry] of state.messages) {
    if (entry.message.expiresAt <= now) {
      state.messages.delete(id);
      expired++;
    }
  }
  return expired;
}
