import { describe, expect, it } from 'vitest';
import { CURRENT_SCHEMA } from '../src/document.js';
import { MIGRATIONS, migrateToCurrent, schema1to2, schema2to3 } from '../src/migrations.js';

const schema1 = () => ({
  schema: 1,
  instanceId: 'i1',
  body: {
    instance: { id: 'i1' },
    jobs: [{ id: 'j1', identity: 'abc', nodeId: 'validate' }],
    tracks: [{ id: 't1' }],
  },
});

describe('schema migrations', () => {
  it('should have exactly one step per schema before the current one', () => {
    expect(MIGRATIONS).toHaveLength(CURRENT_SCHEMA - 1);
  });

  it('schema1to2 should give every job a null input digest and touch nothing else', () => {
    const before = schema1();
    const after = schema1to2(before) as ReturnType<typeof schema1>;
    expect(after.body.jobs).toEqual([{ id: 'j1', identity: 'abc', nodeId: 'validate', inputDigest: null }]);
    expect(after.body.tracks).toBe(before.body.tracks);
    expect(before.body.jobs[0]).not.toHaveProperty('inputDigest');
  });

  it('schema1to2 should accept a body without jobs', () => {
    expect((schema1to2({ body: {} }) as { body: { jobs: unknown[] } }).body.jobs).toEqual([]);
  });

  it('should run the chain from schema 1 through every step in order, stamping each', () => {
    const migrated = migrateToCurrent(schema1(), 1);
    let expected: Record<string, unknown> = schema1();
    MIGRATIONS.forEach((step, index) => {
      expected = { ...step(expected), schema: index + 2 };
    });
    expect(migrated).toEqual(expected);
    expect(migrated.schema).toBe(CURRENT_SCHEMA);
    expect(migrated.body).toMatchObject({ jobs: [{ inputDigest: null }], instance: { receivedIds: [] }, timers: [] });
  });

  it('should run only the steps after the schema a document has: a schema-2 document gets schema2to3, not schema1to2', () => {
    const schema2 = { schema: 2, body: { instance: { id: 'i1' }, jobs: [{ id: 'j1', inputDigest: 'd' }], tracks: [] } };
    const migrated = migrateToCurrent(schema2, 2);
    expect(migrated.schema).toBe(CURRENT_SCHEMA);
    expect((migrated.body as unknown as typeof schema2.body).jobs).toEqual([{ id: 'j1', inputDigest: 'd' }]);
    expect(migrated.body).toMatchObject({ instance: { receivedIds: [] }, timers: [], subscriptions: [], outbox: [] });
  });
});

describe('schema2to3', () => {
  it('should give a schema-2 instance empty timers, subscriptions and received ids, and touch nothing else', () => {
    const before = { schema: 2, body: { instance: { id: 'i1', nextId: 4 }, jobs: [{ id: 'j1' }], tracks: [] } };
    const after = schema2to3(before) as { body: Record<string, unknown> };
    expect(after.body).toEqual({
      instance: { id: 'i1', nextId: 4, receivedIds: [] },
      jobs: [{ id: 'j1' }],
      tracks: [],
      timers: [],
      subscriptions: [],
      outbox: [],
    });
    expect(before.body.instance).not.toHaveProperty('receivedIds');
  });
});
