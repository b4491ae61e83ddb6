import {
  CheckpointError,
  CheckpointErrorCode,
  ConflictError,
  emptyCheckpointBody,
  type InstanceMeta,
  LeaseLostError,
  type PendingWrite,
  type PutCheckpoint,
  type Repository,
  type ScopeRecord,
  type StoredCheckpoint,
  sealCheckpoint,
} from '@thresher/checkpoint';
import { expect, it } from 'vitest';
import { caseTitle, conformanceCase, type SpecFile } from './cases.js';
import type { Capability, RepositoryContractInitializer } from './types.js';

/** What a test may ask of the store beyond the repository, through the initializer's hooks. */
export interface StoreHooks {
  /** Another connection to the same data (capability `concurrentConnections`). */
  connect(): Promise<Repository>;
  /** The repository closed and its data opened again (capability `persistence`). */
  reopen(): Promise<Repository>;
  /** Replace stored bytes behind the repository's back (capability `alterStoredBytes`). */
  alterStoredBytes(instanceId: string, seq: number, alter: (bytes: Uint8Array) => Uint8Array): Promise<void>;
  /** Migrate the data to a newer schema than this build knows, as another process would (capability `upgradeSchema`). */
  upgradeSchema(): Promise<void>;
}

/**
 * Registers the test of one case of the table (`cases.ts`), titled from the table, that runs against a
 * fresh repository and tears it down afterwards. A case needing a capability the store lacks is registered
 * skipped, its title naming the capability.
 */
export type ContractTest = (id: string, body: (repository: Repository, store: StoreHooks) => Promise<void>) => void;

/** The case ids each run of the suite registered, so `runRepositoryContract` can check none is missing. */
const registered = new WeakMap<object, Set<string>>();

/** The case ids registered for an initializer so far. */
export function registeredCases(initializer: object): ReadonlySet<string> {
  return registered.get(initializer) ?? new Set();
}

/** Bind {@link ContractTest} to an initializer and the spec file registering the tests. */
export function contractTest<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
  spec: SpecFile,
): ContractTest {
  let ids = registered.get(initializer);
  if (ids === undefined) {
    ids = new Set();
    registered.set(initializer, ids);
  }
  const seen = ids;
  return (id, body) => {
    const entry = conformanceCase(id);
    if (entry.spec !== spec) throw new Error(`case ${id} belongs to ${entry.spec} in cases.ts, not to ${spec}`);
    if (seen.has(id)) throw new Error(`case ${id} is registered twice`);
    seen.add(id);
    const missing = (entry.requires ?? []).filter((capability) => !initializer.capabilities[capability]);
    if (missing.length > 0) {
      it.skip(`${caseTitle(id)} (skipped: ${initializer.name} lacks capability ${missing.join(', ')})`, () => {});
      return;
    }
    it(caseTitle(id), async () => {
      const repository = await initializer.createRepository();
      const opened: Repository[] = [];
      const hook = <K extends 'connect' | 'reopen' | 'alterStoredBytes' | 'upgradeSchema'>(
        name: K,
        capability: Capability,
      ) => {
        const fn = initializer[name];
        if (!initializer.capabilities[capability] || fn === undefined) {
          throw new Error(
            `case ${id} uses ${name}, which needs capability ${capability} and the initializer's ${name} hook`,
          );
        }
        return fn.bind(initializer) as NonNullable<RepositoryContractInitializer<TRepository>[K]>;
      };
      const store: StoreHooks = {
        async connect() {
          const connection = await hook('connect', 'concurrentConnections')(repository);
          opened.push(connection);
          return connection;
        },
        async reopen() {
          const reopened = await hook('reopen', 'persistence')(repository);
          opened.push(reopened);
          return reopened;
        },
        async alterStoredBytes(instanceId, seq, alter) {
          await hook('alterStoredBytes', 'alterStoredBytes')(repository, instanceId, seq, alter);
        },
        async upgradeSchema() {
          await hook('upgradeSchema', 'upgradeSchema')(repository);
        },
      };
      try {
        await body(repository, store);
      } finally {
        for (const connection of opened) await connection.close();
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
    dueAt: null,
    subscriptions: [],
    endedAt: null,
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
  /** The log entry its put files (`PutCheckpoint.log`), as text; none when absent. */
  log?: string;
  /** Prune to this many checkpoints in the put (`PutCheckpoint.keepLast`). */
  keepLast?: number;
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
    ...(options.log === undefined ? {} : { log: utf8(options.log) }),
    ...(options.keepLast === undefined ? {} : { keepLast: options.keepLast }),
  };
}

/** A checkpoint whose put files the log entry `log <instanceId>@<seq>`. */
export function logged(instanceId: string, seq: number, options: CheckpointOptions = {}): PutCheckpoint {
  return checkpoint(instanceId, seq, { log: `log ${instanceId}@${seq}`, ...options });
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

/**
 * Put seqs 1..count of an instance, filing the entries `writes` gives for a seq right after putting it:
 * entries are filed against the latest checkpoint only, so a history with entries is built in this order.
 */
export async function putChainWithWrites(
  repository: Repository,
  instanceId: string,
  count: number,
  writes: Record<number, PendingWrite[]>,
  options: Omit<CheckpointOptions, 'parentSeq' | 'bytes'> = {},
): Promise<PutCheckpoint[]> {
  const checkpoints: PutCheckpoint[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const next = checkpoint(instanceId, seq, options);
    await repository.put(next);
    const entries = writes[seq];
    if (entries !== undefined) await repository.putWrites(instanceId, seq, entries);
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

/** Assert the promise rejects with a `LeaseLostError` (class and stable code) naming instance, owner and token. */
export async function expectLeaseLost(
  promise: Promise<unknown>,
  instanceId: string,
  owner: string | null,
  token: number | null,
): Promise<void> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(LeaseLostError);
  expect(CheckpointError.is(error)).toBe(true);
  const lost = error as LeaseLostError;
  expect(lost.code).toBe('THRESHER_LEASE_LOST');
  expect({ instanceId: lost.instanceId, owner: lost.owner, token: lost.token }).toEqual({ instanceId, owner, token });
  expect(lost.message).toContain(instanceId);
  if (owner !== null) expect(lost.message).toContain(owner);
  expect(lost.retryable).toBe(false);
}

/** Put checkpoints concurrently, `batch` at a time: many instances quickly, on stores that overlap writes. */
export async function putAll(repository: Repository, checkpoints: PutCheckpoint[], batch = 100): Promise<void> {
  for (let i = 0; i < checkpoints.length; i += batch) {
    await Promise.all(checkpoints.slice(i, i + batch).map((next) => repository.put(next)));
  }
}

/**
 * A checkpoint whose bytes are a real sealed document (`sealCheckpoint`), so `openCheckpoint` can load what
 * the store returns: the integrity and crash cases check loadability, not only bytes.
 */
export function sealedCheckpoint(
  instanceId: string,
  seq: number,
  data: Record<string, unknown> = {},
  parentSeq: number | null = seq === 1 ? null : seq - 1,
): PutCheckpoint {
  const definitionDigest = 'definition-digest-1';
  const body = emptyCheckpointBody(
    {
      id: instanceId,
      processId: 'order_process',
      definition: { id: 'order-fulfilment', version: 1, digest: definitionDigest },
      status: 'running',
      businessKey: null,
      parentId: null,
      callNodeId: null,
      startedAt: 1_700_000_000_000,
      endedAt: null,
      nextId: 0,
      receivedIds: [],
    },
    'active',
  );
  (body.scopes[0] as ScopeRecord).data = data;
  const { document, bytes } = sealCheckpoint({
    instanceId,
    seq,
    parentSeq,
    definitionDigest,
    capturedAt: 1_700_000_000_000 + seq,
    body,
  });
  return {
    instanceId,
    seq,
    parentSeq,
    schema: document.schema,
    definitionDigest,
    digest: document.digest,
    bytes,
    meta: meta(),
  };
}
