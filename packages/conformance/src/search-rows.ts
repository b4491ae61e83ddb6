import type { RowCondition, RowSearch, SearchRow } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { contractTest, rejectionOf } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

const P = 'camunda';

function row(kind: string, key: string, fields: SearchRow['fields']): SearchRow {
  return { kind, key, fields };
}

/** Instances: keys of different lengths (numeric order differs from text order), states, dates, a count. */
const INSTANCES = [
  row('instance', '9', { state: 'ACTIVE', startDate: '2026-01-03T00:00:00.000Z', retries: 3, hasIncident: false }),
  row('instance', '10', { state: 'COMPLETED', startDate: '2026-01-01T00:00:00.000Z', retries: 1, hasIncident: true }),
  row('instance', '100', { state: 'ACTIVE', startDate: '2026-01-02T00:00:00.000Z', hasIncident: false, tag: null }),
  row('instance', '8', { state: 'ACTIVE*', retries: 2, name: 'Bestellung \u{1F69A}' }),
];
const VARIABLES = [
  row('variable', 'v1', { name: 'order', value: '"A-1"', processInstanceKey: '9' }),
  row('variable', 'v2', { name: 'order', value: '"B-2"', processInstanceKey: '10' }),
  row('variable', 'v3', { name: 'total', value: '12', processInstanceKey: '100' }),
];

async function seeded(repository: import('@thresher/checkpoint').Repository): Promise<void> {
  expect(
    await repository.putRows({ projection: P, after: null, position: 'p1', put: [...INSTANCES, ...VARIABLES] }),
  ).toBe(true);
}

async function keys(
  repository: import('@thresher/checkpoint').Repository,
  where: RowCondition[],
  more: Partial<RowSearch> = {},
): Promise<string[]> {
  const page = await repository.searchRows({ kind: 'instance', where, limit: 100, ...more });
  return page.rows.map((found) => found.key);
}

/** `putRows`, `projectionPosition`, `searchRows`: what projections of the log keep searchable. */
export function describeSearchRows<TRepository extends import('@thresher/checkpoint').Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'search-rows.ts');

  describe('Repository#putRows / projectionPosition / searchRows', () => {
    test('TH-ROWS-01', async (repository) => {
      expect(await repository.projectionPosition(P)).toBeNull();
      await seeded(repository);

      const page = await repository.searchRows({ kind: 'instance', limit: 10 });

      expect(page.total).toBe(4);
      expect(page.rows).toEqual([INSTANCES[3], INSTANCES[0], INSTANCES[1], INSTANCES[2]]);
      expect(await repository.projectionPosition(P)).toBe('p1');
      expect(await repository.projectionPosition('other')).toBeNull();
      const some = await repository.searchRows({ kind: 'instance', keys: ['100', '9', 'none'], limit: 10 });
      expect(some).toEqual({ rows: [INSTANCES[0], INSTANCES[2]], total: 2 });
      expect((await repository.searchRows({ kind: 'instance', keys: [], limit: 10 })).total).toBe(0);
    });

    test('TH-ROWS-02', async (repository) => {
      await seeded(repository);
      const stale = { projection: P, after: null, position: 'p2', put: [row('instance', '9', { state: 'GONE' })] };
      expect(await repository.putRows(stale)).toBe(false);
      expect(await repository.putRows({ ...stale, after: 'p0' })).toBe(false);
      expect(await keys(repository, [{ op: 'eq', field: 'state', type: 'text', value: 'GONE' }])).toEqual([]);

      const moved = await repository.putRows({
        projection: P,
        after: 'p1',
        position: 'p2',
        put: [row('instance', '9', { state: 'TERMINATED' }), row('instance', '100', { state: 'X' })],
        delete: [
          { kind: 'instance', key: '10' },
          { kind: 'instance', key: '100' },
          { kind: 'instance', key: 'none' },
        ],
      });

      expect(moved).toBe(true);
      expect(await repository.projectionPosition(P)).toBe('p2');
      const page = await repository.searchRows({ kind: 'instance', limit: 10 });
      expect(page.rows).toEqual([INSTANCES[3], row('instance', '9', { state: 'TERMINATED' })]);
    });

    test('TH-ROWS-03', async (repository) => {
      await seeded(repository);
      const state = (op: 'eq' | 'neq', value: string): RowCondition => ({ op, field: 'state', type: 'text', value });

      expect(await keys(repository, [state('eq', 'ACTIVE')])).toEqual(['9', '100']);
      expect(await keys(repository, [state('neq', 'ACTIVE')])).toEqual(['8', '10']);
      expect(await keys(repository, [{ op: 'neq', field: 'retries', type: 'number', value: 3 }])).toEqual([
        '8',
        '10',
        '100',
      ]);
      expect(
        await keys(repository, [{ op: 'in', field: 'state', type: 'text', values: ['COMPLETED', 'ACTIVE*'] }]),
      ).toEqual(['8', '10']);
      expect(await keys(repository, [{ op: 'notIn', field: 'retries', type: 'number', values: [1, 2] }])).toEqual([
        '9',
        '100',
      ]);
      expect(await keys(repository, [{ op: 'in', field: 'state', type: 'text', values: [] }])).toEqual([]);
      expect(await keys(repository, [{ op: 'eq', field: 'hasIncident', type: 'boolean', value: true }])).toEqual([
        '10',
      ]);
      expect(
        await keys(repository, [{ op: 'eq', field: 'name', type: 'text', value: 'Bestellung \u{1F69A}' }]),
      ).toEqual(['8']);
    });

    test('TH-ROWS-04', async (repository) => {
      await seeded(repository);

      expect(await keys(repository, [{ op: 'gt', field: 'retries', type: 'number', value: 1 }])).toEqual(['8', '9']);
      expect(await keys(repository, [{ op: 'lte', field: 'retries', type: 'number', value: 2 }])).toEqual(['8', '10']);
      expect(
        await keys(repository, [{ op: 'gte', field: 'startDate', type: 'text', value: '2026-01-02T00:00:00.000Z' }]),
      ).toEqual(['9', '100']);
      expect(await keys(repository, [{ op: 'lt', field: 'startDate', type: 'text', value: '2026-01-02' }])).toEqual([
        '10',
      ]);
      const byKey = await repository.searchRows({
        kind: 'instance',
        where: [{ op: 'gt', field: 'id', type: 'key', value: '9' }],
        limit: 10,
      });
      expect(byKey.total).toBe(0);
    });

    test('TH-ROWS-05', async (repository) => {
      await seeded(repository);
      await repository.putRows({
        projection: P,
        after: 'p1',
        position: 'p2',
        put: INSTANCES.map(({ kind, key, fields }) => row(kind, key, { ...fields, self: key })),
      });
      const self = (op: 'gt' | 'lte', value: string): RowCondition => ({ op, field: 'self', type: 'key', value });

      expect(await keys(repository, [self('gt', '9')])).toEqual(['10', '100']);
      expect(await keys(repository, [self('lte', '10')])).toEqual(['8', '9', '10']);
      expect(await keys(repository, [{ op: 'eq', field: 'self', type: 'number', value: 9 }])).toEqual([]);
      expect(await keys(repository, [{ op: 'neq', field: 'self', type: 'number', value: 9 }])).toEqual([
        '8',
        '9',
        '10',
        '100',
      ]);
    });

    test('TH-ROWS-06', async (repository) => {
      await seeded(repository);

      expect(await keys(repository, [{ op: 'exists', field: 'retries', value: true }])).toEqual(['8', '9', '10']);
      expect(await keys(repository, [{ op: 'exists', field: 'tag', value: true }])).toEqual([]);
      expect(await keys(repository, [{ op: 'exists', field: 'startDate', value: false }])).toEqual(['8']);
      expect(await keys(repository, [{ op: 'like', field: 'state', pattern: 'ACT*' }])).toEqual(['8', '9', '100']);
      expect(await keys(repository, [{ op: 'like', field: 'state', pattern: 'ACTIV?' }])).toEqual(['9', '100']);
      expect(await keys(repository, [{ op: 'like', field: 'state', pattern: 'ACTIVE\\*' }])).toEqual(['8']);
      expect(await keys(repository, [{ op: 'like', field: 'state', pattern: 'active' }])).toEqual([]);
      expect(await keys(repository, [{ op: 'like', field: 'state', pattern: 'COMPLETE_' }])).toEqual([]);
      expect(await keys(repository, [{ op: 'like', field: 'name', pattern: '*\u{1F69A}' }])).toEqual(['8']);
      expect(await keys(repository, [{ op: 'like', field: 'name', pattern: 'Bestellung ?' }])).toEqual(['8']);
    });

    test('TH-ROWS-07', async (repository) => {
      await seeded(repository);
      const sorted = (sort: RowSearch['sort']) => keys(repository, [], { sort });

      expect(await sorted([{ field: 'startDate', type: 'text' }])).toEqual(['10', '100', '9', '8']);
      expect(await sorted([{ field: 'startDate', type: 'text', descending: true }])).toEqual(['8', '9', '100', '10']);
      expect(
        await sorted([
          { field: 'state', type: 'text' },
          { field: 'retries', type: 'number', descending: true },
        ]),
      ).toEqual(['100', '9', '8', '10']);
      expect(await sorted([{ field: 'hasIncident', type: 'boolean' }])).toEqual(['9', '100', '10', '8']);
      const page = await repository.searchRows({
        kind: 'instance',
        limit: 2,
        from: 1,
        sort: [{ field: 'state', type: 'text' }],
      });
      expect(page.rows.map((found) => found.key)).toEqual(['100', '8']);
      expect(page.total).toBe(4);
    });

    test('TH-ROWS-08', async (repository) => {
      await seeded(repository);
      const having = (where: RowCondition[]): RowCondition => ({
        op: 'related',
        kind: 'variable',
        link: 'processInstanceKey',
        where,
      });

      expect(await keys(repository, [having([{ op: 'eq', field: 'name', type: 'text', value: 'order' }])])).toEqual([
        '9',
        '10',
      ]);
      expect(
        await keys(repository, [
          having([
            { op: 'eq', field: 'name', type: 'text', value: 'order' },
            { op: 'eq', field: 'value', type: 'text', value: '"B-2"' },
          ]),
          { op: 'eq', field: 'state', type: 'text', value: 'COMPLETED' },
        ]),
      ).toEqual(['10']);
      expect(await keys(repository, [having([{ op: 'eq', field: 'name', type: 'text', value: 'none' }])])).toEqual([]);
    });

    test('TH-ROWS-09', async (repository, store) => {
      await seeded(repository);

      const reopened = await store.reopen();

      expect(await reopened.projectionPosition(P)).toBe('p1');
      expect((await reopened.searchRows({ kind: 'variable', limit: 10 })).rows).toEqual(VARIABLES);
    });

    test('TH-ROWS-10', async (repository) => {
      await seeded(repository);
      const bad: unknown[] = [
        { projection: 'bad name', after: 'p1', position: 'p2', put: [] },
        { projection: P, after: 'p1', position: 'p2', put: [row('bad kind', 'k', {})] },
        { projection: P, after: 'p1', position: 'p2', put: [row('instance', 'k', { 'a.b': 1 })] },
        { projection: P, after: 'p1', position: 'p2', put: [row('instance', 'k', { n: Number.NaN })] },
        { projection: P, after: 'p1', position: 'p2', put: [row('instance', 'k', { o: {} as never })] },
        { projection: P, after: 'p1', position: 'p2', put: [row('instance', 'k\u0000', {})] },
      ];
      for (const batch of bad) {
        const error = await rejectionOf(repository.putRows(batch as never));
        expect(error, JSON.stringify(batch)).toBeInstanceOf(Error);
      }
      for (const search of [
        { kind: 'instance', limit: 0 },
        { kind: 'instance', limit: 10_001 },
        { kind: "instance'", limit: 1 },
        { kind: 'instance', limit: 1, where: [{ op: 'eq', field: "state')", type: 'text', value: 'x' }] },
        { kind: 'instance', limit: 1, where: [{ op: 'eq', field: 'state', type: 'text', value: 1 }] },
        { kind: 'instance', limit: 1, where: [{ op: 'drop', field: 'state' }] },
        { kind: 'instance', limit: 1, sort: [{ field: 'state', type: 'date' }] },
      ]) {
        const error = await rejectionOf(repository.searchRows(search as never));
        expect(error, JSON.stringify(search)).toBeInstanceOf(Error);
      }
      expect(await repository.projectionPosition(P)).toBe('p1');
      expect((await repository.searchRows({ kind: 'instance', limit: 10 })).total).toBe(4);
    });
  });
}
