import type { CheckpointBody } from './body-records.js';
import type { InstanceRecord } from './types.js';

/**
 * The body of a new instance: its record and an open root scope, nothing else yet. The one place a body
 * is made from nothing, so a new record list cannot be forgotten here and remembered elsewhere.
 *
 * @param rootState the scope machine's initial state value
 */
export function emptyCheckpointBody(instance: InstanceRecord, rootState: string): CheckpointBody {
  return {
    instance,
    scopes: [
      {
        path: '/',
        nodeId: instance.processId,
        hostTrack: null,
        parentPath: null,
        state: rootState,
        data: {},
        visits: {},
      },
    ],
    tracks: [],
    jobs: [],
    userTasks: [],
    incidents: [],
    timers: [],
    subscriptions: [],
    outbox: [],
    touchpoints: [],
  };
}
