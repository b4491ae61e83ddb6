import { expect, it } from 'vitest';
import { CheckpointError, CheckpointErrorCode, ConflictError } from '../errors.js';
import type { InstanceMeta, PendingWrite, PutCheckpoint, Repository, StoredCheckpoint } from '../repository.js';
import type { RepositoryContractInitializer } from './types.js';

/** Registers one contract test that runs against a fresh repository and tears it down afterwards. */
export type ContractTest = (name: string, body: (repository: Repository) => Promise<void>) => void;

/** Bind {@link ContractTest} to an initializer. */
export function contractTest<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
): ContractTest {
  return (name, body) => {
    it(name, async () => {
      const repository = await initializer.createRepository();
      try {
        await body(repository);
      } finally {
        if (initializer.destroyRepository === undefined) await repository.close();
        else await initializer.destroyRepository(repository);
      }
    });
  };
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string; stores treat document and write bytes as opaque. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The meta of a running root instance, with overrides. */
export function meta(overrides: Partial<InstanceMeta> = {}): InstanceMeta {
  return {
    status: 'running',
    processId: 'order_process',
    definitionId: 'order-fulfilment',
    businessKey: null,
    parentId: null,
    callNodeId: null,
    ...overrides,
  };
}

export interface CheckpointOptions {
  /** Defaults to `seq - 1`, or null for seq 1. */
  parentSeq?: number | null;
  bytes?: Uint8Array;
  /** Distinguishes two documents at the same seq when `bytes` is not given. */
  note?: string;
  meta?: Partial<InstanceMeta>;
  definitionDigest?: string;
  schema?: number;
}

/** A checkpoint as `put` takes it; its bytes are a small document unless given. */
export function checkpoint(instanceId: string, seq: number, options: CheckpointOptions = {}): PutCheckpoint {
  const note = options.note ?? '';
  return {
    instanceId,
    seq,
    parentSeq: options.parentSeq === undefined ? (seq === 1 ? null : seq - 1) : options.parentSeq,
    schema: options.schema ?? 1,
    definitionDigest: options.definitionDigest ?? 'definition-digest-1',
    digest: `digest:${instanceId}:${seq}:${note}`,
    bytes: options.bytes ?? utf8(JSON.stringify({ instanceId, seq, note })),
    meta: meta(options.meta),
  };
}

/** Put seqs 1..count of an instance, each derived from the one before. */
export async function putChain(
  repository: Repository,
  instanceId: string,
  count: number,
  options: Omit<CheckpointOptions, 'parentSeq' | 'bytes'> = {},
): Promise<PutCheckpoint[]> {
  const checkpoints: PutCheckpoint[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const next = checkpoint(instanceId, seq, options);
    await repository.put(next);
    checkpoints.push(next);
  }
  return checkpoints;
}

/** A journal entry whose value is the UTF-8 of `text`. */
export function write(taskId: string, index: number, text: string): PendingWrite {
  return { taskId, index, value: utf8(text) };
}

/** `length` bytes that cover every byte value, 0x00 included, in a deterministic pseudo-random order. */
export function binaryBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = 0x2545f491;
  for (let i = 0; i < length; i++) {
    // xorshift32: cheap, deterministic, and not a pattern a store could special-case.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = i % 7 === 0 ? 0 : state & 0xff;
  }
  return bytes;
}

/** Assert `actual` is a `Uint8Array` holding exactly `expected`; reports the first differing index. */
export function expectBytes(actual: unknown, expected: Uint8Array): void {
  expect(actual).toBeInstanceOf(Uint8Array);
  const bytes = actual as Uint8Array;
  expect(bytes.byteLength, 'byte length').toBe(expected.byteLength);
  let firstDifference = -1;
  for (let i = 0; i < bytes.byteLength; i++) {
    if (bytes[i] !== expected[i]) {
      firstDifference = i;
      break;
    }
  }
  expect(firstDifference, 'index of the first differing byte').toBe(-1);
}

/** Assert journal entries match in order, values byte for byte. */
export function expectWrites(actual: PendingWrite[], expected: PendingWrite[]): void {
  expect(actual.map(({ taskId, index }) => ({ taskId, index }))).toEqual(
    expected.map(({ taskId, index }) => ({ taskId, index })),
  );
  actual.forEach((entry, i) => {
    expectBytes(entry.value, expected[i]!.value);
  });
}

/** Assert a stored checkpoint is exactly what was put, with the given writes. */
export function expectStored(
  actual: StoredCheckpoint | undefined,
  expected: PutCheckpoint,
  writes: PendingWrite[] = [],
): void {
  expect(actual).toBeDefined();
  const stored = actual!;
  expect({
    instanceId: stored.instanceId,
    seq: stored.seq,
    parentSeq: stored.parentSeq,
    schema: stored.schema,
    definitionDigest: stored.definitionDigest,
    digest: stored.digest,
  }).toEqual({
    instanceId: expected.instanceId,
    seq: expected.seq,
    parentSeq: expected.parentSeq,
    schema: expected.schema,
    definitionDigest: expected.definitionDigest,
    digest: expected.digest,
  });
  expectBytes(stored.bytes, expected.bytes);
  expectWrites(stored.writes, writes);
}

/** What a promise rejected with; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  const outcome = await promise.then(
    () => ({ rejected: false as const }),
    (error: unknown) => ({ rejected: true as const, error }),
  );
  expect(outcome.rejected, 'the call should have been refused').toBe(true);
  return outcome.rejected ? outcome.error : undefined;
}

/** Assert the promise rejects with a `ConflictError` (class and stable code) about this instance and seq. */
export async function expectConflict(promise: Promise<unknown>, instanceId: string, seq: number): Promise<void> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(ConflictError);
  expect(CheckpointError.is(error)).toBe(true);
  const conflict = error as ConflictError;
  expect(conflict.code).toBe('THRESHER_CONFLICT');
  expect(conflict.code).toBe(CheckpointErrorCode.Conflict);
  expect({ instanceId: conflict.instanceId, seq: conflict.seq }).toEqual({ instanceId, seq });
}

/** Assert the promise rejects with a `CheckpointError` whose code is `THRESHER_STORE`. */
export async function expectStoreError(promise: Promise<unknown>): Promise<void> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(CheckpointError);
  expect((error as CheckpointError).code).toBe('THRESHER_STORE');
}
