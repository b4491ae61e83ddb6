import { describe, expect, it } from 'vitest';
import { Problem } from '../src/problem.js';
import { type Searchable, search } from '../src/search.js';

interface Row {
  key: string;
  name: string | null;
  version: number;
  at: string;
  latest: boolean;
}

const ROWS: Row[] = [
  { key: '30', name: 'Order', version: 1, at: '2026-01-03T00:00:00Z', latest: false },
  { key: '4', name: 'order-b', version: 2, at: '2026-01-01T00:00:00Z', latest: true },
  { key: '100', name: null, version: 3, at: '2026-01-02T00:00:00Z', latest: false },
  { key: '7', name: 'Invoice', version: 1, at: '2026-01-04T00:00:00Z', latest: true },
];

const SPEC: Searchable<Row> = {
  id: (row) => row.key,
  idKind: 'key',
  fields: {
    key: { kind: 'key', value: (row) => row.key },
    name: { kind: 'string', value: (row) => row.name },
    version: { kind: 'integer', value: (row) => row.version },
    at: { kind: 'date', value: (row) => row.at },
    latest: { kind: 'boolean', value: (row) => row.latest, sortable: false },
  },
};

const keys = (body: unknown) => search(ROWS, body, SPEC, 'the search').items.map((row) => row.key);

function refusal(body: unknown): string {
  try {
    search(ROWS, body, SPEC, 'the search');
  } catch (error) {
    if (error instanceof Problem) return error.detail;
  }
  throw new Error('expected a refusal');
}

describe('search', () => {
  it('should order by the id, keys as numbers, when no sort is given', () => {
    expect(keys({})).toEqual(['4', '7', '30', '100']);
  });

  it('should filter by a plain value and by each advanced operator', () => {
    expect(keys({ filter: { version: 1 } })).toEqual(['7', '30']);
    expect(keys({ filter: { name: { $like: 'Ord*' } } })).toEqual(['30']);
    expect(keys({ filter: { name: { $like: '?nvoice' } } })).toEqual(['7']);
    expect(keys({ filter: { name: { $exists: false } } })).toEqual(['100']);
    expect(keys({ filter: { name: { $neq: 'Order' } } })).toEqual(['4', '7', '100']);
    expect(keys({ filter: { key: { $in: ['4', '100'] } } })).toEqual(['4', '100']);
    expect(keys({ filter: { key: { $notIn: ['4', '100'] } } })).toEqual(['7', '30']);
    expect(keys({ filter: { version: { $gte: 2, $lt: 3 } } })).toEqual(['4']);
    expect(keys({ filter: { at: { $gt: '2026-01-02T12:00:00Z' } } })).toEqual(['7', '30']);
    expect(keys({ filter: { latest: true, version: { $gt: 1 } } })).toEqual(['4']);
  });

  it('should sort by fields in either order, ties by id, absent values last', () => {
    expect(keys({ sort: [{ field: 'version', order: 'DESC' }] })).toEqual(['100', '4', '7', '30']);
    expect(keys({ sort: [{ field: 'name' }] })).toEqual(['7', '30', '4', '100']);
  });

  it('should page by offset and by the cursors a page answers with, counting every match', () => {
    const first = search(ROWS, { sort: [{ field: 'at' }], page: { limit: 2 } }, SPEC, 'the search');
    expect(first.items.map((row) => row.key)).toEqual(['4', '100']);
    expect(first.page).toMatchObject({ totalItems: 4, hasMoreTotalItems: false });

    const next = search(ROWS, { sort: [{ field: 'at' }], page: { after: first.page.endCursor!, limit: 2 } }, SPEC, 's');
    expect(next.items.map((row) => row.key)).toEqual(['30', '7']);
    const back = search(
      ROWS,
      { sort: [{ field: 'at' }], page: { before: next.page.startCursor!, limit: 1 } },
      SPEC,
      's',
    );
    expect(back.items.map((row) => row.key)).toEqual(['100']);
    expect(keys({ page: { from: 3 } })).toEqual(['100']);
  });

  it('should refuse, naming the place, what it cannot search by', () => {
    expect(refusal({ filter: { colour: 'red' } })).toMatch(/^\$\.filter\.colour: not a field/);
    expect(refusal({ filter: { key: { $like: '1*' } } })).toMatch(/^\$\.filter\.key\.\$like: not an operator/);
    expect(refusal({ filter: { version: 'one' } })).toMatch(/^\$\.filter\.version: must be an integer/);
    expect(refusal({ filter: { key: { $in: ['x'] } } })).toMatch(/^\$\.filter\.key\.\$in\[0\]: must be a key/);
    expect(refusal({ sort: [{ field: 'latest' }] })).toMatch(/^\$\.sort\[0\]\.field: "latest" is not a field/);
    expect(refusal({ page: { after: 'nonsense' } })).toMatch(/^\$\.page\.after: not a cursor/);
    expect(refusal({ page: { from: 1, after: 'x' } })).toMatch(/^\$\.page: give one of/);
    expect(refusal({ page: { limit: 0 } })).toMatch(/\$\.page\.limit/);
  });
});
