import { describe, expect, it } from 'vitest';
import { emptyCheckpointBody } from '../src/body.js';
import type { CheckpointBody } from '../src/body-records.js';
import { canonicalBytes, fromCanonicalBytes } from '../src/codec.js';
import { CURRENT_SCHEMA, checkpointDigest, openCheckpoint, sealCheckpoint } from '../src/document.js';
import { CorruptCheckpointError, FutureSchemaError } from '../src/errors.js';
import type { ScopeRecord } from '../src/types.js';

const body = (): CheckpointBody => {
  const empty = emptyCheckpointBody(
    {
      id: 'inst-1',
      processId: 'p',
      definition: { id: 'd', version: 1, digest: 'abc' },
      status: 'running',
      businessKey: null,
      parentId: null,
      callNodeId: null,
      startedAt: 1,
      endedAt: null,
      nextId: 0,
      receivedIds: [],
    },
    'active',
  );
  (empty.scopes[0] as ScopeRecord).data.when = new Date(5);
  return empty;
};

const seal = () =>
  sealCheckpoint({ instanceId: 'inst-1', seq: 3, parentSeq: 2, definitionDigest: 'abc', capturedAt: 9, body: body() });

describe('checkpoint document', () => {
  it('should seal at the current schema and open to an equal document', () => {
    const { document, bytes } = seal();
    expect(document.schema).toBe(CURRENT_SCHEMA);
    expect(openCheckpoint(bytes, { instanceId: 'inst-1', seq: 3 })).toEqual(document);
  });

  it('should produce the same bytes for the same content', () => {
    expect(Buffer.from(seal().bytes).equals(Buffer.from(seal().bytes))).toBe(true);
  });

  it('should refuse bytes whose content no longer matches the digest', () => {
    const { bytes } = seal();
    const tampered = Buffer.from(
      Buffer.from(bytes).toString('utf8').replace('"status":"running"', '"status":"completed"'),
    );
    expect(() => openCheckpoint(tampered, { instanceId: 'inst-1', seq: 3 })).toThrow(CorruptCheckpointError);
  });

  it('should open a document laid out otherwise than sealing writes it, checking its digest by re-encoding', () => {
    // given a sealed document written again with its keys in another order, as another writer might
    const { bytes } = seal();
    const parsed = JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(parsed).reverse());
    const text = JSON.stringify(reordered);

    // when it is opened, and when a value in it is changed
    const opened = openCheckpoint(Buffer.from(text, 'utf8'), { instanceId: 'inst-1', seq: 3 });
    const changed = text.replace('"capturedAt":9', '"capturedAt":8');

    // then the same content opens, and changed content is refused
    expect(opened).toEqual(openCheckpoint(bytes, { instanceId: 'inst-1', seq: 3 }));
    expect(() => openCheckpoint(Buffer.from(changed, 'utf8'), { instanceId: 'inst-1', seq: 3 })).toThrow(
      CorruptCheckpointError,
    );
  });

  it('should refuse sealed bytes with a changed value though the digest field sits where sealing puts it', () => {
    // given a sealed document whose body was changed after sealing, the layout untouched
    const { bytes } = seal();
    const changed = Buffer.from(bytes).toString('utf8').replace('"capturedAt":9', '"capturedAt":7');

    // when it is opened
    const opening = () => openCheckpoint(Buffer.from(changed, 'utf8'), { instanceId: 'inst-1', seq: 3 });

    // then it is refused as corrupt
    expect(opening).toThrow(/the digest does not match the content/);
  });

  it('should refuse truncated bytes as corrupt, naming instance and seq', () => {
    const { bytes } = seal();
    const open = () => openCheckpoint(bytes.slice(0, 40), { instanceId: 'inst-1', seq: 3 });
    expect(open).toThrow(CorruptCheckpointError);
    expect(open).toThrow(/inst-1 at seq 3/);
  });

  it('should refuse a document from a future schema before reading its body', () => {
    const { document } = seal();
    const { digest: _, ...rest } = document;
    const future = { ...rest, schema: CURRENT_SCHEMA + 1, body: { unknown: true } };
    const bytes = canonicalBytes({ ...future, digest: checkpointDigest(future as never) });
    const open = () => openCheckpoint(bytes, { instanceId: 'inst-1', seq: 3 });
    expect(open).toThrow(FutureSchemaError);
    expect(open).toThrow(`schema ${CURRENT_SCHEMA + 1}`);
  });

  it('should treat a document without a schema field as the oldest version and migrate it', () => {
    const { document } = seal();
    const { digest: _, schema: __, ...rest } = document;
    const legacy = { ...rest, body: { ...rest.body, jobs: [{ id: 'j1', identity: 'x' }] } };
    const bytes = canonicalBytes({ ...legacy, digest: checkpointDigest(legacy as never) });
    const opened = openCheckpoint(bytes, { instanceId: 'inst-1' });
    expect(opened.schema).toBe(CURRENT_SCHEMA);
    expect(opened.body.jobs[0]).toEqual({ id: 'j1', identity: 'x', inputDigest: null });
  });

  it('should refuse a body that fails its shape check', () => {
    const { document } = seal();
    const { digest: _, ...rest } = document;
    const broken = { ...rest, body: { ...rest.body, tracks: 'none' } };
    const bytes = canonicalBytes({ ...broken, digest: checkpointDigest(broken as never) });
    expect(() => openCheckpoint(bytes, { instanceId: 'inst-1' })).toThrow(/body.tracks is not a list/);
  });

  it('should keep variable values faithfully inside the document', () => {
    const opened = openCheckpoint(seal().bytes, { instanceId: 'inst-1' });
    expect((opened.body.scopes[0] as ScopeRecord).data.when).toEqual(new Date(5));
    expect(fromCanonicalBytes(canonicalBytes({ a: 1 }))).toEqual({ a: 1 });
  });
});

describe('sealCheckpoint', () => {
  it('should write exactly the canonical encoding of the sealed document, variables named instanceId included', () => {
    const tricky = body();
    (tricky.scopes[0] as ScopeRecord).data.instanceId = 'not the top-level one';
    (tricky.scopes[0] as ScopeRecord).data[',"instanceId":'] = ',"instanceId":"x"';
    const { document, bytes } = sealCheckpoint({
      instanceId: 'inst-1',
      seq: 3,
      parentSeq: 2,
      definitionDigest: 'abc',
      capturedAt: 9,
      body: tricky,
    });
    expect(Buffer.from(bytes).toString('utf8')).toBe(Buffer.from(canonicalBytes(document)).toString('utf8'));
    expect(openCheckpoint(bytes, { instanceId: 'inst-1' })).toEqual(document);
  });
});
