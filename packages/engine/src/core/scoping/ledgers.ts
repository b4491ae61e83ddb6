import type { LedgerEntry, ScopeRecord, TrackRecord } from '@thresher/checkpoint';
import type { Node } from '../../model/node-types.js';
import type { StepContext } from '../step/context.js';
import { isBodyScope } from '../step/records.js';

/**
 * Ledgers (docs/design/compensation.md): each scope records its completed compensable activities, in
 * completion order, with the variables their handlers will read; a scope that completes hands its ledger on
 * to its parent. `compensation.ts` takes entries out of a ledger when it compensates them.
 */

/** A track leaves a compensable activity: its scope's ledger records it (a sub-process is recorded by its scope). */
export function recordCompensable(ctx: StepContext, track: TrackRecord, node: Node): void {
  const handler = ctx.process.compensation?.get(node.id);
  if (!handler || node.type === 'subProcess') return;
  append(ctx.state.scope(track.scopePath), {
    nodeId: node.id,
    handler,
    data: { ...ctx.state.visible(track.scopePath), ...track.locals },
  });
}

/**
 * A scope completed: its ledger goes to its parent's — a body's entries as they are (the activity is
 * compensated body by body), a sub-process's as one entry that its own handler, or else its entries,
 * compensate.
 */
export function handOnLedger(ctx: StepContext, scope: ScopeRecord): void {
  const inner = scope.ledger ?? [];
  const parent = scope.parentPath === null ? undefined : ctx.state.scopes.get(scope.parentPath);
  if (!parent) return;
  // A body's, an event sub-process's or an ad-hoc activation's entries are its container's own.
  if (isBodyScope(scope) || scope.hostTrack === null || scope.activation !== undefined) {
    append(parent, ...inner);
    return;
  }
  const handler = ctx.process.compensation?.get(scope.nodeId) ?? null;
  if (inner.length === 0 && handler === null) return;
  const entry: LedgerEntry = { nodeId: scope.nodeId, handler, data: ctx.state.visible(scope.path) };
  if (inner.length > 0) entry.inner = inner;
  append(parent, entry);
}

function append(scope: ScopeRecord, ...entries: LedgerEntry[]): void {
  if (entries.length === 0) return;
  if (scope.ledger) scope.ledger.push(...entries);
  else scope.ledger = entries;
}
