/**
 * Rolling an instance back to an earlier checkpoint when its head cannot be opened (a corrupt document, a
 * schema this build does not know, an unreadable journal): the chain stays append-only — the good
 * checkpoint's state is written again as a new head, with the journal filed against it — and nothing the
 * instance durably did after it may be forgotten.
 *
 * @module
 */
import { digestValue, type Fence, type Repository, type StoredCheckpoint } from '@thresher/checkpoint';
import { InvalidStateError, NotFoundError, RollbackRefusedError } from '../../common/errors.js';
import type { RollbackResult } from '../base/types.js';
import { capture, journalOf, logOf, openStored, packBody } from './capture.js';

/** Why a stored checkpoint does not open (document, journal or log entry), or null when it opens. */
export function openProblem(stored: StoredCheckpoint): string | null {
  try {
    openStored(stored);
    journalOf(stored);
    logOf(stored);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The newest checkpoint of an instance that opens, with its journal; undefined when none does. */
export async function latestGoodSeq(repository: Repository, instanceId: string): Promise<number | undefined> {
  // Newest first, a page at a time: the good one is usually just below the head.
  for (let before: number | undefined; ; ) {
    const page = await repository.list(instanceId, {
      order: 'desc',
      limit: 20,
      ...(before === undefined ? {} : { before }),
    });
    const good = page.find((stored) => openProblem(stored) === null);
    if (good) return good.seq;
    if (page.length < 20) return undefined;
    before = page.at(-1)!.seq;
  }
}

/**
 * Write checkpoint `to`'s state again as the instance's new head, after the unreadable checkpoints above it.
 * Refused when `to` does not open, when a checkpoint after it opens (its steps would be forgotten: roll
 * back to it instead), or when one after it holds journal entries (completed steps' results). A rollback
 * interrupted between its two writes is finished by running it again.
 */
export async function rollback(
  repository: Repository,
  instanceId: string,
  to: number,
  now: number,
  /** The lease the rollback's writes are made under, when the instance is claimed. */
  fence?: Fence,
): Promise<RollbackResult> {
  const head = await repository.get(instanceId);
  if (!head) throw new NotFoundError('instance', instanceId);
  if (!Number.isSafeInteger(to) || to >= head.seq) {
    throw new InvalidStateError(`roll back instance ${instanceId} to a seq below its head ${head.seq}, not ${to}`);
  }
  const target = await repository.get(instanceId, to);
  if (!target) throw new RollbackRefusedError(instanceId, to, 'there is no checkpoint at that seq');
  const problem = openProblem(target);
  if (problem) throw new RollbackRefusedError(instanceId, to, `it does not open either: ${problem}`);
  const state = openStored(target);
  const body = digestValue(packBody(state));
  const later = await repository.list(instanceId, { after: to });
  for (const stored of later) {
    if (openProblem(stored) !== null) {
      if (stored.writes.length > 0) {
        const reason = `checkpoint ${stored.seq} holds ${stored.writes.length} journal entries (results of completed steps) that would be forgotten`;
        throw new RollbackRefusedError(instanceId, to, reason);
      }
      continue;
    }
    // A rollback to `to` that was interrupted after its put: finish filing the journal, nothing else.
    if (stored.seq === head.seq && digestValue(packBody(openStored(stored))) === body) {
      await fileJournal(repository, target, head.seq, fence);
      return { instanceId, from: stored.parentSeq ?? to, to, seq: head.seq };
    }
    const reason = `checkpoint ${stored.seq} after it opens, and what it recorded would be forgotten; roll back to the latest checkpoint that opens instead`;
    throw new RollbackRefusedError(instanceId, to, reason);
  }
  const seq = head.seq + 1;
  const checkpoint = capture(state, seq, head.seq, now);
  await repository.put(fence ? { ...checkpoint, fence } : checkpoint);
  await fileJournal(repository, target, seq, fence);
  return { instanceId, from: head.seq, to, seq };
}

/** The journal filed against `target` filed again against `seq` (a repeat of an entry is a no-op). */
async function fileJournal(
  repository: Repository,
  target: StoredCheckpoint,
  seq: number,
  fence: Fence | undefined,
): Promise<void> {
  if (target.writes.length === 0) return;
  await repository.putWrites(
    target.instanceId,
    seq,
    target.writes.map((write) => ({ ...write })),
    fence,
  );
}
