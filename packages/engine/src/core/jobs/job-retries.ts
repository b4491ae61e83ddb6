/**
 * Retry counts given as `=expr`: what counts as one, and what a job gets again when its incident is
 * resolved (apart from `job-spec.ts`, which raises incidents, so that incidents can use it).
 *
 * @module
 */
import type { Variables } from '@thresher/checkpoint';
import { ExpressionError } from '../../common/errors.js';
import { evaluate } from '../../common/feel.js';
import type { JobSource } from '../../model/types.js';
import type { StepContext } from '../step/context.js';

/**
 * The retries a job gets again when its incident is resolved: the model's (`source`: the element's task
 * definition or the listener), evaluated afresh in `view` where it is an expression; the engine's default
 * where that no longer yields a count.
 */
export function freshRetries(ctx: StepContext, source: JobSource, view: Variables): number {
  if (!source.retriesExpression) return source.retries ?? ctx.defaultRetries;
  try {
    const value = evaluate(source.retriesExpression, view, ctx.now);
    return isRetryCount(value) ? value : ctx.defaultRetries;
  } catch (error) {
    if (error instanceof ExpressionError) return ctx.defaultRetries;
    throw error;
  }
}

export function isRetryCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
