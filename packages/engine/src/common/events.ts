/**
 * The events the engine publishes (`engine.on`): the one vocabulary the core announces, the runtime
 * stamps and the API hands out (docs/architecture.md §4).
 *
 * @module
 */
import type { UserTaskEvent } from '@thresher/checkpoint';
import type { LiveTouchpoint } from './touchpoint-types.js';

/** What a listener's job runs at: an execution listener's event, or a task listener's user task event. */
export type ListenerEventName = 'start' | 'end' | UserTaskEvent;

/** What every event carries. */
export interface EventBase {
  /** Unique and stable: derived from what the event is, so a replay repeats the same id. */
  id: string;
  instanceId: string;
  at: number;
}

/** Everything the engine publishes (docs/architecture.md §4). */
export type EngineEvent = EventBase &
  (
    | { type: 'instance.started'; processId: string }
    | { type: 'instance.completed' }
    | { type: 'instance.terminated'; elementId: string }
    | { type: 'instance.restored'; seq: number }
    /** An operator modified the instance (`modifyInstance`): the activations it made, the ones it terminated. */
    /** An operator moved the instance onto another process version (`migrateInstance`), each active element mapped. */
    | {
        type: 'instance.migrated';
        from: { processId: string; digest: string; version: number };
        to: { processId: string; digest: string; version: number };
        mapped: { sourceElementId: string; targetElementId: string }[];
      }
    | {
        type: 'instance.modified';
        activated: { elementId: string; elementInstanceId: string }[];
        terminated: { elementId: string; elementInstanceId: string }[];
      }
    // `elementInstanceId`: the element's activation the track entered or left (`<scope>:<element>:<attempt>`).
    | { type: 'track.entered'; trackId: string; elementId: string; elementInstanceId: string }
    | { type: 'track.left'; trackId: string; elementId: string; elementInstanceId: string }
    // `listener`: set on a listener's job (execution or task listener), the event it runs at (its element is `elementId`).
    | {
        type: 'job.dispatched';
        jobId: string;
        elementId: string;
        taskType: string;
        attempt: number;
        listener?: ListenerEventName;
      }
    | { type: 'job.completed'; jobId: string; elementId: string; listener?: ListenerEventName }
    | {
        type: 'job.failed';
        jobId: string;
        elementId: string;
        error: string;
        retriesLeft: number;
        listener?: ListenerEventName;
      }
    | { type: 'userTask.created'; taskId: string; elementId: string }
    | { type: 'userTask.completed'; taskId: string; elementId: string }
    /** The task's assignee changed (null: unassigned), once its assigning listeners allowed it. */
    | { type: 'userTask.assigned'; taskId: string; elementId: string; assignee: string | null }
    /** Fields of the task changed (by `updateUserTask`), once its updating listeners allowed it. */
    | { type: 'userTask.updated'; taskId: string; elementId: string; changed: string[] }
    /** A task listener denied the transition: the task stays as it was before it. */
    | { type: 'userTask.denied'; taskId: string; elementId: string; event: UserTaskEvent; reason: string | null }
    /** A task with canceling listeners is gone: they ran once something terminated it. */
    | { type: 'userTask.canceled'; taskId: string; elementId: string }
    | { type: 'incident.raised'; incidentId: string; elementId: string; message: string }
    | { type: 'timer.armed'; timerId: string; elementId: string; dueAt: number }
    | { type: 'timer.fired'; timerId: string; elementId: string }
    // `messageId`: the id the message was published with, when it had one.
    | {
        type: 'message.correlated';
        elementId: string;
        name: string;
        correlationKey: string | null;
        messageId?: string;
        /** The subscription that took it (absent from events logged before it was told). */
        subscriptionId?: string;
      }
    | { type: 'signal.received'; elementId: string; name: string }
    | { type: 'error.caught'; elementId: string; errorCode: string }
    | { type: 'incident.resolved'; incidentId: string; elementId: string }
    /**
     * A warning, not an incident: the element has been entered `turns` times in one activation of its scope,
     * past `EngineOptions.loopWarning` (published once past it, then each time the count doubles).
     */
    | { type: 'element.looping'; elementId: string; scope: string; turns: number; threshold: number }
    | { type: 'checkpoint.saved'; seq: number }
    /** Once, after `instance.started` and before the first element: every touchpoint, `ahead`. */
    | { type: 'touchpoints.planned'; touchpoints: LiveTouchpoint[] }
    /** Right after the event that changed a touchpoint, one per changed touchpoint. */
    | {
        type: 'touchpoint.updated';
        index: number;
        revision: number;
        /** The type of the event that changed it; null for a change no event announces (a branch not taken). */
        cause: string | null;
        /** That event's id. */
        causeId: string | null;
        /** The seq of the checkpoint whose step published the cause; null with no cause. */
        causeSequence: number | null;
        touchpoint: LiveTouchpoint;
      }
  );

export type EngineEventType = EngineEvent['type'];

/** A listener of `engine.on(type, …)`: it hears the events of that type (every event for `'*'`). */
export type EngineListener<T extends EngineEventType | '*'> = (
  event: T extends '*' ? EngineEvent : Extract<EngineEvent, { type: T }>,
) => void;
