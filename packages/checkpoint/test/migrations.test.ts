import { describe, expect, it } from 'vitest';
import { CURRENT_SCHEMA } from '../src/document.js';
import { MIGRATIONS, migrateToCurrent, schema1to2, schema2to3, schema13to14 } from '../src/migrations.js';

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

describe('schema13to14', () => {
  const body13 = (extra: Record<string, unknown>) => ({
    instance: { id: 'i1' },
    scopes: [],
    tracks: [],
    jobs: [],
    userTasks: [],
    incidents: [],
    timers: [],
    subscriptions: [],
    outbox: [],
    touchpoints: [],
    ...extra,
  });

  it("should move a schema-13 body's history, decisions and events aside into `past`, and keep the rest as it was", () => {
    const history = [{ node: 'start', scope: '/', track: 't1' }];
    const decisions = [{ node: 'decide', decisionId: 'd' }];
    const events = [':/:start:0:t1:left'];
    const before = { schema: 13, body: body13({ history, decisions, events }) };

    const after = schema13to14(before) as { body: Record<string, unknown> };

    expect(after.body.past).toEqual({ history, decisions, events });
    expect(after.body).not.toHaveProperty('history');
    expect(after.body).not.toHaveProperty('decisions');
    expect(after.body).not.toHaveProperty('events');
    expect(after.body.jobs).toBe(before.body.jobs);
    expect(before.body).toHaveProperty('history', history);
  });

  it('should give a body with nothing in its past no `past` at all', () => {
    const after = schema13to14({ schema: 13, body: body13({ history: [] }) }) as { body: Record<string, unknown> };

    expect(after.body).not.toHaveProperty('past');
    expect(after.body).not.toHaveProperty('history');
  });

  it('should leave out empty decisions and events, keeping a history that is not empty', () => {
    const history = [{ node: 'a', scope: '/', track: 't1' }];
    const after = schema13to14({ schema: 13, body: body13({ history, decisions: [], events: [] }) }) as {
      body: Record<string, unknown>;
    };

    expect(after.body.past).toEqual({ history });
  });
});
