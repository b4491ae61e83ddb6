/**
 * Retention in memory: the log's registered readers (`putReader`, `readers`, `deleteReader`) and `expire`, which
 * deletes ended instances no reader still needs.
 */
import { checkExpireArguments, checkReaderArguments, checkText } from '../input-rules.js';
import { compareCodePoints } from '../put-rules.js';
import { integerPosition } from '../read-rules.js';
import type { ExpireOptions, LogReader } from '../repository-types.js';
import type { MemoryState } from './state.js';

export function putReader(state: MemoryState, reader: LogReader): void {
  checkReaderArguments(reader);
  if (reader.position !== null) integerPosition(reader.position);
  const { name, position, cursor } = reader;
  state.readers.set(name, { name, position, cursor });
}

export function readReaders(state: MemoryState): LogReader[] {
  return [...state.readers.values()].map((reader) => ({ ...reader })).sort((a, b) => compareCodePoints(a.name, b.name));
}

export function deleteReader(state: MemoryState, name: string): boolean {
  checkText('name', name);
  return state.readers.delete(name);
}

/** The ended instances `expire` may delete, oldest end first; then deleted, all in one turn. */
export function expireInstances(state: MemoryState, options: ExpireOptions): string[] {
  checkExpireArguments(options);
  const { endedBefore, limit } = options;
  // Entries after this position some reader may not have read whole (every entry, while one has read none).
  let readTo = Number.POSITIVE_INFINITY;
  for (const { position } of state.readers.values()) {
    readTo = Math.min(readTo, position === null ? 0 : integerPosition(position));
  }
  const runningChildOf = new Set<string>();
  for (const { meta } of state.instances.values()) {
    if (meta.parentId !== null && meta.status === 'running') runningChildOf.add(meta.parentId);
  }
  const due: { instanceId: string; endedAt: number }[] = [];
  for (const [instanceId, instance] of state.instances) {
    const { status, endedAt } = instance.meta;
    if (status === 'running' || endedAt === undefined || endedAt === null || endedAt > endedBefore) continue;
    if (instance.lease !== undefined || runningChildOf.has(instanceId)) continue;
    if ([...instance.log.values()].some(({ position }) => position > readTo)) continue;
    due.push({ instanceId, endedAt });
  }
  due.sort((a, b) => a.endedAt - b.endedAt || compareCodePoints(a.instanceId, b.instanceId));
  const expired = due.slice(0, limit).map(({ instanceId }) => instanceId);
  for (const instanceId of expired) {
    state.instances.delete(instanceId);
    state.jobs.delete(instanceId);
  }
  return expired;
}
