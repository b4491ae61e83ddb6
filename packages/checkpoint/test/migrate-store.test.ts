import { readFileSync } from 'node:fs';
import stringify from 'fast-json-stable-stringify';
import { describe, expect, it } from 'vitest';
import { canonicalBytes } from '../src/codec.js';
import { CURRENT_SCHEMA, checkpointDigest, openCheckpoint } from '../src/document.js';
import { CorruptCheckpointError, FutureSchemaError } from '../src/errors.js';
import { createMemoryRepository } from '../src/memory-repository.js';
import { migrateRepository } from '../src/migrate-store.js';
import type { Repository } from '../src/repository.js';
import type { PutCheckpoint } from '../src/repository-types.js';

/** A real schema-1 document, frozen from a running instance. */
const frozen = JSON.parse(
  readFileSync(new URL('../../../fixtures/checkpoints/v1/parked-at-approve.json', import.meta.url), 'utf8'),
) as {
  checkpoint: {
    instanceId: string;
    seq: number;
    digest: string;
    definitionDigest: string;
    document: Record<string, unknown>;
  };
};

const meta: PutCheckpoint['meta'] = {
  status: 'running',
  processId: 'order-fulfilment',
  definitionId: 'd',
  businessKey: null,
  parentId: null,
  callNodeId: null,
  dueAt: null,
  subscriptions: [],
};

async function putDocument(
  repository: Repository,
  instanceId: string,
  document: Record<string, unknown>,
  schema: number,
) {
  const { digest: _, ...rest } = document;
  const body = { ...rest, instanceId, seq: 0, parentSeq: null };
  const digest = checkpointDigest(body as never);
  await repository.put({
    instanceId,
    seq: 0,
    parentSeq: null,
    schema,
    definitionDigest: String(document.definitionDigest),
    digest,
    bytes: canonicalBytes({ ...body, digest }),
    meta,
  });
}

async function storeWithEveryKind(): Promise<Repository> {
  const repository = createMemoryRepository();
  const legacy = frozen.checkpoint.document;
  const legacyBody = legacy.body as { instance: Record<string, unknown> };
  const withInstance = (id: string, schema: number) => ({
    ...legacy,
    schema,
    body: { ...legacyBody, instance: { ...legacyBody.instance, id } },
  });
  await putDocument(repository, 'a-schema-1', withInstance('a-schema-1', 1), 1);
  await putDocument(repository, 'b-future', withInstance('b-future', CURRENT_SCHEMA + 1), CURRENT_SCHEMA + 1);
  // a current document: the schema-1 one after the chain, as the engine writes it today
  const current = openCheckpoint(new Uint8Array(Buffer.from(stringify(frozen.checkpoint.document))), {
    instanceId: frozen.checkpoint.instanceId,
  });
  const { digest: __, ...currentRest } = current;
  await putDocument(
    repository,
    'c-current',
    { ...currentRest, body: { ...current.body, instance: { ...current.body.instance, id: 'c-current' } } },
    CURRENT_SCHEMA,
  );
  // a schema-1 row whose bytes were damaged
  await repository.put({
    instanceId: 'd-corrupt',
    seq: 0,
    parentSeq: null,
    schema: 1,
    definitionDigest: 'x',
    digest: 'y',
    bytes: new Uint8Array(Buffer.from('{"schema":1,"truncated')),
    meta,
  });
  return repository;
}

describe('migrateRepository', () => {
  it('should count what a dry run would do and write nothing', async () => {
    const repository = await storeWithEveryKind();
    const before = (await repository.get('a-schema-1'))!;
    const report = await migrateRepository(repository, { dryRun: true });
    expect(report).toMatchObject({ dryRun: true, instances: 4, checkpoints: 4, migrated: 1, current: 1 });
    expect(report.bySchema).toEqual({ 1: 2, [CURRENT_SCHEMA + 1]: 1 });
    expect((await repository.get('a-schema-1'))!.bytes).toEqual(before.bytes);
  });

  it('should rewrite older documents to the current schema and report the ones it must leave alone', async () => {
    const repository = await storeWithEveryKind();
    const report = await migrateRepository(repository);
    expect(report).toMatchObject({ dryRun: false, migrated: 1, current: 1 });
    expect(report.failed.map((failure) => [failure.instanceId, failure.error.constructor])).toEqual([
      ['b-future', FutureSchemaError],
      ['d-corrupt', CorruptCheckpointError],
    ]);
    const stored = (await repository.get('a-schema-1'))!;
    expect(stored.schema).toBe(CURRENT_SCHEMA);
    const document = openCheckpoint(stored.bytes, { instanceId: 'a-schema-1', seq: 0 });
    expect(document.schema).toBe(CURRENT_SCHEMA);
    expect(document.digest).toBe(stored.digest);
    expect(document.body.userTasks).toMatchObject([{ nodeId: 'approve' }]);
  });

  it('should find nothing left to do on a second run', async () => {
    const repository = await storeWithEveryKind();
    await migrateRepository(repository);
    const again = await migrateRepository(repository);
    expect(again).toMatchObject({ migrated: 0, current: 2 });
    expect(again.failed).toHaveLength(2);
  });
});
