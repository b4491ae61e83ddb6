/**
 * A job's type and retries as the element gives them: static in the model, or `=expr` (Zeebe's rule)
 * evaluated in the track's view when the job is created. A value that is not a job type or a retry
 * count is an incident on the element, never a job of the wrong type.
 *
 * @module
 */
import type { TrackRecord } from '@thresher/checkpoint';
import type { JobNode } from '../model/types.js';
import type { StepContext } from './context.js';
import { evaluateOrIncident, NO_VALUE, wrongValueIncident } from './incidents.js';
import { isRetryCount } from './job-retries.js';

/** What a new job is created with. */
export interface JobSpec {
  taskType: string;
  retries: number | undefined;
}

/** The job an element creates, or undefined when an expression failed and an incident was raised. */
export function jobSpec(ctx: StepContext, track: TrackRecord, node: JobNode): JobSpec | undefined {
  let taskType = node.taskType;
  if (node.typeExpression) {
    const value = evaluateOrIncident(ctx, track, node.typeExpression, 'enter');
    if (value === NO_VALUE) return undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      const rule = 'a job type must be a non-empty string';
      return wrongValueIncident(ctx, track, 'zeebe:taskDefinition type', node.typeExpression, value, rule);
    }
    taskType = value;
  }
  let retries = node.retries;
  if (node.retriesExpression) {
    const value = evaluateOrIncident(ctx, track, node.retriesExpression, 'enter');
    if (value === NO_VALUE) return undefined;
    if (!isRetryCount(value)) {
      const rule = 'retries must be a non-negative integer';
      return wrongValueIncident(ctx, track, 'zeebe:taskDefinition retries', node.retriesExpression, value, rule);
    }
    retries = value;
  }
  return { taskType, retries };
}
