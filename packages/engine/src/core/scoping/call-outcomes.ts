import type { CallOutcome, Variables } from '@thresher/checkpoint';
import { nextId, type StepContext } from '../step/context.js';
import { postEnded, postThrowToParent } from '../step/outbox.js';

/**
 * The child's side of a call activity: what a called instance tells its parent, recorded in its outbox with
 * the step that decided it and delivered once that step is durable (see `calls.ts` for the parent's side).
 */

/** A called child ends: tell the parent how (a terminate end event completes it, as in Zeebe). */
export function notifyParentOfEnd(ctx: StepContext, status: 'completed' | 'terminated', nodeId?: string): void {
  const { instance } = ctx.state;
  if (instance.parentId === null) return;
  const completed = status === 'completed' || (nodeId !== undefined && nodeId !== '');
  const outcome: CallOutcome = completed
    ? { status: 'completed', variables: { ...ctx.state.scope('/').data } }
    : { status: 'terminated' };
  postEnded(ctx, instance.parentId, outcome);
}

/** An error or escalation a called child did not catch goes on to its parent's call activity. */
export function throwToParent(
  ctx: StepContext,
  kind: 'error' | 'escalation',
  code: string,
  variables: Variables,
): boolean {
  const { instance } = ctx.state;
  if (instance.parentId === null) return false;
  postThrowToParent(ctx, instance.parentId, kind, code, variables, nextId(ctx, 'c'));
  return true;
}
