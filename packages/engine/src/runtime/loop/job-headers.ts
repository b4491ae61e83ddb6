import type { JobRecord } from '@thresher/checkpoint';
import { isJobNode, listenersOf, type ProcessDef } from '../../model/process-types.js';
import { NodeType } from '../../model/types.js';

/** A job's headers from its model: its element's (a task listener's: its user task's), an execution listener's over them. */
export function ownHeaders(process: ProcessDef, job: JobRecord): Record<string, string> {
  const node = process.nodes.get(job.nodeId);
  if (job.taskListener) return { ...(node?.type === NodeType.UserTask ? node.headers : undefined) };
  const listener = job.listener && listenersOf(process, job.nodeId, job.listener.eventType)[job.listener.index];
  return { ...(isJobNode(node) ? node.headers : undefined), ...listener?.headers };
}
