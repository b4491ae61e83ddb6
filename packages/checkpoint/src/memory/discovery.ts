/**
 * Discovery in memory: `instances`, `dueTimers` and `subscriptions`, read from what `put` indexed. Results
 * are ordered by code point, as the SQL stores order UTF-8 bytes.
 */
import { compareCodePoints } from '../put-rules.js';
import { instancePage } from '../read-rules.js';
import type { DueTimer, InstanceQuery, InstanceSummary } from '../repository-types.js';
import { copyMeta, type MemoryState } from './state.js';

export function readInstances(state: MemoryState, query: InstanceQuery = {}): InstanceSummary[] {
  const { order, limit } = instancePage(query);
  const { after, before } = query;
  const ids = query.ids === undefined ? undefined : new Set(query.ids);
  const matching: InstanceSummary[] = [];
  for (const [instanceId, instance] of state.instances) {
    const { meta } = instance;
    if (query.serial !== undefined && instance.serial !== query.serial) continue;
    if (ids !== undefined && !ids.has(instanceId)) continue;
    if (query.roots && meta.parentId !== null) continue;
    if (query.children && meta.parentId === null) continue;
    if (query.parentId !== undefined && meta.parentId !== query.parentId) continue;
    if (query.rootId !== undefined && instance.rootId !== query.rootId) continue;
    if (query.status !== undefined && meta.status !== query.status) continue;
    if (query.definition !== undefined && meta.definitionId !== query.definition) continue;
    if (query.processId !== undefined && meta.processId !== query.processId) continue;
    if (query.businessKey !== undefined && meta.businessKey !== query.businessKey) continue;
    if (after !== undefined && compareCodePoints(instanceId, after) <= 0) continue;
    if (before !== undefined && compareCodePoints(instanceId, before) >= 0) continue;
    matching.push({
      ...copyMeta(meta),
      instanceId,
      serial: instance.serial,
      latestSeq: instance.latestSeq,
      definitionDigest: instance.definitionDigest,
      rootId: instance.rootId,
    });
  }
  matching.sort((a, b) => compareCodePoints(a.instanceId, b.instanceId));
  if (order === 'desc') matching.reverse();
  return limit === null ? matching : matching.slice(0, limit);
}

export function readDueTimers(state: MemoryState, now: number, limit: number): DueTimer[] {
  const due: DueTimer[] = [];
  for (const [instanceId, { meta }] of state.instances) {
    if (meta.status === 'running' && meta.dueAt !== null && meta.dueAt <= now) {
      due.push({ instanceId, dueAt: meta.dueAt });
    }
  }
  due.sort((a, b) => a.dueAt - b.dueAt || compareCodePoints(a.instanceId, b.instanceId));
  return due.slice(0, Math.max(0, limit));
}

export function readSubscribers(state: MemoryState, name: string, key: string | null): string[] {
  const waiting: string[] = [];
  for (const [instanceId, { meta }] of state.instances) {
    if (meta.status !== 'running') continue;
    if (meta.subscriptions.some((subscription) => subscription.name === name && subscription.key === key)) {
      waiting.push(instanceId);
    }
  }
  return waiting.sort(compareCodePoints);
}
