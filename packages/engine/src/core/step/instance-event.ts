import type { CallOutcome, DefinitionRef, Variables } from '@thresher/checkpoint';
import type { ProcessDef } from '../../model/process-types.js';

/** One thing that happens to an instance; the loop applies exactly one at a time. */
export type InstanceEvent =
  | {
      type: 'instance.start';
      variables: Variables;
      startNode: string;
      /** A timer start event's occurrence, scheduled by the one before it (not evaluated again). */
      timer?: { dueAt: number; cycle: { intervalMs: number; remaining: number | null } | null };
    }
  /** Stop an instance where it stands: every track cancelled, the instance `terminated`. */
  | { type: 'instance.cancel' }
  /**
   * Activate elements and terminate element instances (`<scope>:<element>:<attempt>`) in one step; one whose
   * `operationId` the instance took already changes nothing.
   */
  | { type: 'instance.modify'; activate: ActivateInstruction[]; terminate: string[]; operationId: string | null }
  /**
   * Move the instance onto `target` (of the deployment `definition`), each active element mapped; one whose
   * `operationId` the instance took already changes nothing. Never journaled: it carries the compiled target.
   */
  | {
      type: 'instance.migrate';
      target: ProcessDef;
      definition: DefinitionRef;
      mapping: { sourceElementId: string; targetElementId: string }[];
      operationId: string | null;
    }
  /** Take up the run the instance yielded (`InstanceRecord.drain`) after other work had its turn. */
  | { type: 'instance.continue' }
  /**
   * `worker`: a worker outside the engine completed it; a task listener's result that cannot be taken is then
   * refused (`InvalidArgumentError`, the job left waiting) instead of failing the job into an incident.
   */
  | { type: 'job.completed'; jobId: string; result: Variables; worker?: boolean }
  /**
   * `errorCode` set: the handler threw a BPMN error, caught by a boundary or raised as an incident. A worker
   * outside the engine says how many `retries` are left and the `backoffMs` before the next, and may set
   * `variables` local to the job's element first.
   */
  | {
      type: 'job.failed';
      jobId: string;
      error: string;
      retryable: boolean;
      errorCode?: string;
      retries?: number;
      backoffMs?: number;
      variables?: Variables;
    }
  /** A worker outside the engine changed how many retries the job has left. */
  | { type: 'job.updated'; jobId: string; retries: number }
  | { type: 'timer.fired'; timerId: string }
  | {
      type: 'message.correlated';
      name: string;
      correlationKey: string | null;
      variables: Variables;
      messageId: string | null;
    }
  | { type: 'signal.received'; name: string; variables: Variables; signalId: string | null }
  /** The outbox entry was delivered: it can go. */
  | { type: 'outbox.delivered'; entryId: string }
  /** `action`: what the completing listeners are told asked for it (`complete` when absent). */
  | { type: 'userTask.completed'; taskId: string; variables: Variables; action?: string }
  /** Assign the task (`assignee` null: unassign it); `allowOverride` false refuses a task someone else has. */
  | { type: 'userTask.assign'; taskId: string; assignee: string | null; action: string; allowOverride: boolean }
  /** Change the task's candidates, dates or priority (null or '' clears one). */
  | { type: 'userTask.update'; taskId: string; changes: Record<string, unknown>; action: string }
  | { type: 'incident.retry'; incidentId: string }
  /** Set variables from the root scope, or from a live element activation (`local`: on it alone). */
  | { type: 'variables.set'; elementInstanceId: string | null; local: boolean; variables: Variables }
  /** Activate elements of a running ad-hoc sub-process (its host track), each with its variables. */
  | { type: 'adHoc.activate'; hostId: string; elements: { elementId: string; variables: Variables }[] }
  /** The child of a call could not be started: an incident on the call. */
  | { type: 'call.failed'; childId: string; error: string }
  /** A called child ended, or threw an error or escalation it did not catch (its outbox entry `entryId`). */
  | { type: 'call.ended'; childId: string; entryId: string; outcome: CallOutcome };

/** An instance event of one type. */
export type InstanceEventOf<TType extends InstanceEvent['type']> = Extract<InstanceEvent, { type: TType }>;

/** One element a modification activates: where (an ancestor's activation, or the instance id for the root), with what. */
export interface ActivateInstruction {
  elementId: string;
  /** An activation of a container of the element (`<scope>:<element>:<attempt>`), or the instance id; null: found. */
  ancestor: string | null;
  /** Variables each for the element or one of its containers (`scopeId`), or the root (`''`, or the process id). */
  variables: { scopeId: string; variables: Variables }[];
}
