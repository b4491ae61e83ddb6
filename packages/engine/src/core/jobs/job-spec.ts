/**
 * A job's type and retries as the model gives them (an element's `zeebe:taskDefinition`, or an execution
 * listener): static, or `=expr` (Zeebe's rule) evaluated in the track's view when the job is created. A
 * value that is not a job type or a retry count is an incident on the element, never a job of the wrong type.
 *
 * @module
 */
import type { TrackRecord, Variables } from '@thresher/checkpoint';
import type { JobSource } from '../../model/types.js';
import type { StepContext } from '../step/context.js';
import { evaluateOrIncident, NO_VALUE, type Resume, wrongValueIncident } from './incidents.js';
import { isRetryCount } from './job-retries.js';
import type { JobSpec } from './jobs.js';

/**
 * The job `source` makes, or undefined when an expression failed and an incident was raised (picking up
 * where `resume` says). `what` names the model element in messages (`zeebe:taskDefinition`); `view` is
 * what the expressions see (the track's view by default).
 */
export function jobSpec(
  ctx: StepContext,
  track: TrackRecord,
  source: JobSource,
  what = 'zeebe:taskDefinition',
  resume: Resume = 'enter',
  view?: Variables,
): JobSpec | undefined {
  let taskType = source.taskType;
  if (source.typeExpression) {
    const value = evaluateOrIncident(ctx, track, source.typeExpression, resume, view);
    if (value === NO_VALUE) return undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      const rule = 'a job type must be a non-empty string';
      return wrongValueIncident(ctx, track, `${what} type`, source.typeExpression, value, rule, resume);
    }
    taskType = value;
  }
  let retries = source.retries;
  if (source.retriesExpression) {
    const value = evaluateOrIncident(ctx, track, source.retriesExpression, resume, view);
    if (value === NO_VALUE) return undefined;
    if (!isRetryCount(value)) {
      const rule = 'retries must be a non-negative integer';
      return wrongValueIncident(ctx, track, `${what} retries`, source.retriesExpression, value, rule, resume);
    }
    retries = value;
  }
  return { taskType, retries };
}
