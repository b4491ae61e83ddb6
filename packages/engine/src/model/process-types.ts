/**
 * A compiled process (its nodes and flows) and model (its processes), and what is read off them: a node's job,
 * its task listeners, its execution listeners.
 */

import type { JobRecord, UserTaskEvent } from '@thresher/checkpoint';
import type { Expression } from '../common/feel.js';
import type { Node, TaskListener } from './node-types.js';
import {
  type ExecutionListener,
  type ExecutionListeners,
  type JobExpressions,
  type JobSource,
  type ListenerEvent,
  type ModelWarning,
  NodeType,
} from './types.js';

export interface Flow {
  id: string;
  name: string | null;
  source: string;
  target: string;
  /** `conditionExpression`; null when unconditional. */
  condition: Expression | null;
}

export interface ProcessDef {
  id: string;
  name: string | null;
  /** Whether `isExecutable` was set (only executable processes can be started by id without --process). */
  executable: boolean;
  /** `zeebe:versionTag`: what a call activity with `bindingType="versionTag"` calls it by. */
  versionTag?: string;
  /** Ids of the none start events at the process level. */
  startNodes: string[];
  /** Ids of the message, timer and signal start events at the process level. */
  eventStartNodes?: string[];
  /** Boundary event ids by the activity they are attached to. */
  boundaries?: ReadonlyMap<string, string[]>;
  /** Event sub-process ids by their container (the process id or a sub-process id). */
  eventSubProcesses?: ReadonlyMap<string, string[]>;
  /** Compensable activities: each one's compensation handler, from its compensation boundary event. */
  compensation?: ReadonlyMap<string, string>;
  /** The process's own `zeebe:executionListeners`; set only when it has some (the IR and digest stay as they were). */
  listeners?: ExecutionListeners;
  /** Every node of the process, nested containers included. */
  nodes: ReadonlyMap<string, Node>;
  flows: ReadonlyMap<string, Flow>;
}

/** The result of `compile(xml)`. */
export interface ProcessModel {
  /** The `bpmn:definitions` id, else the first process id. */
  definitionId: string;
  /** sha256 over the canonical JSON of the compiled model (not the XML bytes). */
  digest: string;
  processes: ReadonlyMap<string, ProcessDef>;
  /** Recoverable issues found while compiling (e.g. moddle warnings on unknown attributes). */
  warnings: ModelWarning[];
}

/** An element that runs as a job (service and send tasks, message throw and end events, as in Zeebe). */
export type JobNode = Node &
  JobExpressions & { taskType: string; retries?: number | undefined; headers?: Record<string, string> };

/** Whether an element runs as a job, and so has a task type and retries. */
export function isJobNode(node: Node | undefined): node is JobNode {
  return node !== undefined && 'taskType' in node && typeof node.taskType === 'string';
}

const NO_LISTENERS: readonly ExecutionListener[] = Object.freeze([]);
const NO_TASK_LISTENERS: readonly TaskListener[] = Object.freeze([]);

/**
 * Where the model defines `job`: its execution or task listener, or its element; undefined when the process
 * has no such source (a job of another definition).
 */
export function jobSourceOf(process: ProcessDef, job: JobRecord): JobSource | undefined {
  if (job.listener) return listenersOf(process, job.nodeId, job.listener.eventType)[job.listener.index];
  if (job.taskListener) return taskListenersOf(process, job.nodeId, job.taskListener.eventType)[job.taskListener.index];
  const node = process.nodes.get(job.nodeId);
  return isJobNode(node) ? node : undefined;
}

/** The task listeners of `event` on the user task `nodeId` (none on any other element). */
export function taskListenersOf(process: ProcessDef, nodeId: string, event: UserTaskEvent): readonly TaskListener[] {
  const node = process.nodes.get(nodeId);
  return (node?.type === NodeType.UserTask && node.taskListeners?.[event]) || NO_TASK_LISTENERS;
}

/** The execution listeners of `event` on the element `nodeId`, or on the process when `nodeId` is its id. */
export function listenersOf(process: ProcessDef, nodeId: string, event: ListenerEvent): readonly ExecutionListener[] {
  const holder = nodeId === process.id ? process : process.nodes.get(nodeId);
  return holder?.listeners?.[event] ?? NO_LISTENERS;
}
