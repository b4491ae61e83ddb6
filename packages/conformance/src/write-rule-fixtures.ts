import {
  CheckpointError,
  LimitExceededError,
  ParentLinkError,
  type PutCheckpoint,
  type Repository,
  UnencodableValueError,
} from '@thresher/checkpoint';
import { expect } from 'vitest';
import { checkpoint, rejectionOf } from './fixtures.js';

/** Assert the promise rejects with an `UnencodableValueError` (class and stable code) naming `path`. */
export async function expectUnencodable(promise: Promise<unknown>, path: string): Promise<void> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(UnencodableValueError);
  expect(error).toMatchObject({ code: 'THRESHER_UNENCODABLE_VALUE', path });
  expect((error as Error).message).toContain(path);
}

/** Assert the promise rejects with a `LimitExceededError` naming the field, its length and the limit. */
export async function expectLimitExceeded(
  promise: Promise<unknown>,
  path: string,
  length: number,
  limit: number,
): Promise<void> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(LimitExceededError);
  expect(CheckpointError.is(error)).toBe(true);
  expect(error).toMatchObject({ code: 'THRESHER_LIMIT_EXCEEDED', path, length, limit });
  expect((error as Error).message).toContain(path);
  expect((error as Error).message).toContain(String(length));
  expect((error as Error).message).toContain(String(limit));
}

/** Assert the promise rejects with a `ParentLinkError` naming the instance and the field at fault. */
export async function expectParentLink(
  promise: Promise<unknown>,
  instanceId: string,
  path: 'meta.parentId' | 'meta.callNodeId',
): Promise<void> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(ParentLinkError);
  expect(error).toMatchObject({ code: 'THRESHER_PARENT_LINK', instanceId, path });
  expect((error as Error).message).toContain(instanceId);
  expect((error as Error).message).toContain(path);
}

/**
 * Text of exactly `bytes` UTF-8 bytes, mostly 4-, 3- and 2-byte characters (so that counting characters
 * instead of bytes would take it), starting with `seed` so that texts of one length differ.
 */
export function textOfBytes(bytes: number, seed: string): string {
  let text = seed;
  let left = bytes - new TextEncoder().encode(seed).byteLength;
  const fill = Math.floor(left / 4);
  text += '\u{1F69A}'.repeat(fill);
  left -= fill * 4;
  text += ['', 'a', '\u00E9', '\u20AC'][left];
  expect(new TextEncoder().encode(text).byteLength).toBe(bytes);
  return text;
}

/**
 * What a reader can see of a repository, for asserting that a refused call changed nothing: every instance's
 * summary, history (with entries), due timer and the subscribers of `names`.
 */
export async function visibleState(repository: Repository, names: string[] = []): Promise<unknown> {
  const instances = await repository.instances();
  const histories = await Promise.all(instances.map(({ instanceId }) => repository.list(instanceId)));
  const subscribers = await Promise.all(names.map((name) => repository.subscriptions(name, null)));
  return {
    instances,
    histories,
    due: await repository.dueTimers(Number.MAX_SAFE_INTEGER, 1_000),
    subscribers,
  };
}

/**
 * A called child of `root` at seq 1 with every text field `put` stores set: business key, call node, a due
 * timer and two subscriptions (the second with a key).
 */
export function fullChild(instanceId: string, root: string): PutCheckpoint {
  return checkpoint(instanceId, 1, {
    meta: {
      businessKey: 'A-1001',
      parentId: root,
      callNodeId: 'call_billing',
      dueAt: 5_000,
      subscriptions: [
        { name: 'paid', key: null },
        { name: 'shipped', key: 'A-1001' },
      ],
    },
  });
}

/** Every text field `put` stores, each with a way to set it on a checkpoint. */
export const PUT_TEXT_FIELDS: readonly [
  path: string,
  set: (checkpoint: PutCheckpoint, text: string) => PutCheckpoint,
][] = [
  ['instanceId', (c, text) => ({ ...c, instanceId: text })],
  ['definitionDigest', (c, text) => ({ ...c, definitionDigest: text })],
  ['digest', (c, text) => ({ ...c, digest: text })],
  ['meta.status', (c, text) => ({ ...c, meta: { ...c.meta, status: text as PutCheckpoint['meta']['status'] } })],
  ['meta.processId', (c, text) => ({ ...c, meta: { ...c.meta, processId: text } })],
  ['meta.definitionId', (c, text) => ({ ...c, meta: { ...c.meta, definitionId: text } })],
  ['meta.businessKey', (c, text) => ({ ...c, meta: { ...c.meta, businessKey: text } })],
  ['meta.parentId', (c, text) => ({ ...c, meta: { ...c.meta, parentId: text } })],
  ['meta.callNodeId', (c, text) => ({ ...c, meta: { ...c.meta, callNodeId: text } })],
  [
    'meta.subscriptions[1].name',
    (c, text) => ({ ...c, meta: { ...c.meta, subscriptions: [c.meta.subscriptions[0]!, { name: text, key: 'k' }] } }),
  ],
  [
    'meta.subscriptions[1].key',
    (c, text) => ({ ...c, meta: { ...c.meta, subscriptions: [c.meta.subscriptions[0]!, { name: 'n', key: text }] } }),
  ],
];
