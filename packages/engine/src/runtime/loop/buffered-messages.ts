import { fromCanonicalBytes, type Variables } from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';
import type { InstanceEvent } from '../../core/step/instance-event.js';
import type { InstanceState } from '../../core/step/state.js';
import { signalInbox } from '../leases/handover.js';
import type { LeasedStore } from '../leases/leased-store.js';

/** What taking buffered messages needs of an instance's loop. */
export interface BufferTaker {
  readonly id: string;
  state(): InstanceState;
  stopped(): boolean;
  readonly store: LeasedStore;
  readonly clock: Clock;
  /** A store call whose failure stops the loop. */
  durably<T>(write: () => Promise<T>): Promise<T>;
  /** Apply an event as a step, durably, and perform its effects. */
  apply(event: InstanceEvent): Promise<void>;
}

/**
 * The buffer name of a message's copy for one BPMN process id: a published message is kept once per process that
 * may wait for it, so each process takes it at most once (as Zeebe correlates a message once per process id).
 * The unit separator keeps a process id and a name apart (no BPMN id holds it).
 */
export function processBuffer(name: string, processId: string): string {
  return `${processId}\u001f${name}`;
}

/**
 * The id a buffered message is delivered under: a process's copy (`<id>\u001f<hash>`) carries the publication's id
 * before its last separator, so every copy of one publication is that one message to the instance taking it.
 */
export function deliveredId(bufferedId: string): string {
  const at = bufferedId.lastIndexOf('\u001f');
  return at < 0 ? bufferedId : bufferedId.slice(0, at);
}

/**
 * One loop step: for each of these message subscriptions still open, take the buffered messages of its
 * name and key — its process's copies and any kept under the bare name, in one read of the store — (oldest first,
 * while it stays open: a non-interrupting one takes every one) and deliver each. The order makes a buffered message neither lost nor delivered twice:
 *
 * 1. `takeMessage` hands the message to this instance alone and holds it for it (no other taker sees it);
 * 2. the message is applied under its id and persisted: it is now in this instance's `receivedIds`;
 * 3. `deleteMessage` removes it from the buffer.
 *
 * Stopped after 1, the next restore takes the held message back (a taker gets what it holds first) and
 * delivers it; stopped after 2, it takes it back, finds the id already received, and only deletes it — or,
 * when the delivery moved it past every subscription of that name and key (or ended it), leaves it held,
 * invisible to every other taker, until a full `recover()` deletes it once expired.
 */
export async function takeBufferedMessages(loop: BufferTaker, subscriptionIds: string[]): Promise<void> {
  for (const subscriptionId of subscriptionIds) {
    for (;;) {
      const state = loop.state();
      const subscription = state.subscriptions.get(subscriptionId);
      if (loop.stopped() || subscription === undefined || state.instance.status !== 'running') break;
      const { kind, name, correlationKey } = subscription;
      // A signal is in the buffer only when another engine handed it to this instance while this one held it.
      const buffers = kind === 'signal' ? [signalInbox(name)] : [processBuffer(name, state.instance.processId), name];
      const key = kind === 'signal' ? loop.id : correlationKey;
      const message = await loop.durably(() => loop.store.takeMessage(buffers, key, loop.clock.now(), loop.id));
      if (message === undefined) break;
      const { id } = message;
      const delivered = kind === 'signal' ? id : deliveredId(id);
      if (!loop.state().instance.receivedIds.includes(delivered)) {
        const variables = fromCanonicalBytes(message.variables) as Variables;
        const event: InstanceEvent =
          kind === 'signal'
            ? { type: 'signal.received', name, variables, signalId: id }
            : { type: 'message.correlated', name, correlationKey, variables, messageId: delivered };
        await loop.apply(event);
      }
      await loop.durably(() => loop.store.deleteMessage(id));
    }
  }
}
