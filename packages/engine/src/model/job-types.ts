/**
 * The jobs a process can create whose type the model states (not `=expr`): its elements' own — service and
 * send tasks, message throws — and its execution and task listeners'. What `thresher run --handlers` and the fixture
 * loader check handlers against.
 *
 * @module
 */
import type { UserTaskEvent } from '@thresher/checkpoint';
import { isJobNode, type ProcessDef } from './process-types.js';
import { type ListenerEvent, NodeType } from './types.js';

/** A job of a known type: the element (or the process, for its own listeners) that creates it. */
export interface KnownJob {
  taskType: string;
  elementId: string;
  /** Set for an execution or task listener's job: the event it runs at. */
  listener?: ListenerEvent | UserTaskEvent;
}

/** The jobs of known type a process creates, in model order: the process's listeners first, then each element's. */
export function knownJobs(process: ProcessDef): KnownJob[] {
  const jobs: KnownJob[] = [];
  const listen = (elementId: string, holder: Pick<ProcessDef, 'listeners'>) => {
    for (const event of ['start', 'end'] as const) {
      for (const listener of holder.listeners?.[event] ?? []) {
        if (!listener.typeExpression) jobs.push({ taskType: listener.taskType, elementId, listener: event });
      }
    }
  };
  listen(process.id, process);
  for (const node of process.nodes.values()) {
    if (isJobNode(node) && !node.typeExpression) jobs.push({ taskType: node.taskType, elementId: node.id });
    listen(node.id, node);
    if (node.type !== NodeType.UserTask) continue;
    for (const [event, listeners] of Object.entries(node.taskListeners ?? {})) {
      for (const listener of listeners) {
        if (!listener.typeExpression)
          jobs.push({ taskType: listener.taskType, elementId: node.id, listener: event as UserTaskEvent });
      }
    }
  }
  return jobs;
}
