import { type ConformanceCase, ownCases } from './case-rows.js';

/**
 * The read side of issue 13: bounds that mean the same on every backend, paging newest first as well as
 * oldest first, call trees found in one query; and the schema fence that stops a process whose store a newer
 * build migrated. Ids are stable, as in `thresher-cases.ts`.
 */
export const READ_CASES: readonly ConformanceCase[] = [
  ...ownCases('read-order.ts', [
    [
      'TH-ORDER-01',
      'should list seq 2^53-1 (Number.MAX_SAFE_INTEGER) and the seq below it without bounds, in either order',
    ],
    [
      'TH-ORDER-02',
      'should keep before and after exclusive at the top of the seq range: before 2^53-1 leaves it out, after 2^53-2 keeps only it',
    ],
    ['TH-ORDER-03', "should return the newest 100 of 1,000 checkpoints, newest first, in one call (order 'desc')"],
    [
      'TH-ORDER-04',
      'should page through 1,000 checkpoints newest first with before and oldest first with after, without gaps or repeats',
    ],
    [
      'TH-ORDER-05',
      'should apply before and after as exclusive seq bounds in either order, limit keeping the first of that order',
    ],
    ['TH-ORDER-06', 'should return each checkpoint with its own writes when listing newest first'],
    [
      'TH-ORDER-07',
      'should refuse an unknown order, a bound that is not a safe integer and a limit that is not a non-negative one with a RangeError',
    ],
    ['TH-ORDER-08', "should list instances ids descending with order 'desc', by code point"],
    [
      'TH-ORDER-09',
      'should page through 250 instances ids descending with before, without gaps or repeats, and ascending with after',
    ],
    [
      'TH-ORDER-10',
      "should combine order 'desc' with status, definition, roots, children and parentId filters and keyset paging",
    ],
    ['TH-ORDER-11', 'should apply after and before together as exclusive id bounds in either order'],
    [
      'TH-ORDER-12',
      'should refuse an unknown order and a limit that is not a non-negative safe integer in instances with a RangeError',
    ],
  ]),
  ...ownCases('trees.ts', [
    [
      'TH-TREE-01',
      "should give a root its own id as rootId and each descendant its root's id, three levels deep, on every summary",
    ],
    [
      'TH-TREE-02',
      'should return a whole call tree (the root and every descendant at any depth) for instances({ rootId }), and no other tree',
    ],
    [
      'TH-TREE-03',
      'should combine rootId with status and children filters, order and keyset paging in both directions',
    ],
    ['TH-TREE-04', "should match nothing for a rootId that is a child's id or names no instance"],
    [
      'TH-TREE-05',
      "should keep the rootId of a deleted middle instance's descendants, so the tree query still returns them",
    ],
    ['TH-TREE-06', 'should keep the rest of the tree under its rootId when the root itself is deleted'],
    [
      'TH-TREE-07',
      "should give a copy of a root its own id as rootId, without the source's descendants, and a copy of a child the source's rootId",
    ],
    ['TH-TREE-08', 'should keep an instance rootId across later puts, rewrite and prune'],
    ['TH-TREE-09', 'should keep a call tree and its rootIds when the store is opened again', ['persistence']],
  ]),
  ...ownCases('schema-fence.ts', [
    [
      'TH-SCHEMA-01',
      'should refuse every write with a StoreUpgradedError once a newer build migrated the store, and still read',
      ['upgradeSchema'],
    ],
    [
      'TH-SCHEMA-02',
      'should refuse to open again a store a newer build migrated, with THRESHER_FUTURE_SCHEMA',
      ['upgradeSchema', 'persistence'],
    ],
  ]),
];
