import { type ConformanceCase, ownCases } from './case-rows.js';

/**
 * The write side of issue 13: what the contract refuses on every backend alike (text no store keeps the same
 * way, values past the declared limits, journal entries a restore would never read, half a parent link), and
 * that a refused call changes nothing. Ids are stable, as in `thresher-cases.ts`.
 */
export const WRITE_RULE_CASES: readonly ConformanceCase[] = [
  ...ownCases('atomicity.ts', [
    [
      'TH-ATOMIC-01',
      'should store nothing for a put refused on a malformed subscription, then take its identical corrected retry and the put after it',
    ],
    ['TH-ATOMIC-02', 'should file none of a batch whose third entry is refused, then file the corrected batch whole'],
    [
      'TH-ATOMIC-03',
      'should leave no trace of a refused put of a new instance: no checkpoint, summary, claim, due timer or subscription',
    ],
    [
      'TH-ATOMIC-04',
      'should keep the indexed meta, due timer and subscriptions of an instance whose next put is refused',
    ],
    [
      'TH-ATOMIC-05',
      'should store nothing for a refused putMessage or putDeployment, and number the next deployment as if it never came',
    ],
    ['TH-ATOMIC-06', 'should hand out no lease for a claim refused on its owner, leaving the instance claimable'],
    ['TH-ATOMIC-07', 'should leave a checkpoint as it was when a rewrite is refused on its new digest or bytes'],
    [
      'TH-ATOMIC-08',
      'should refuse arguments of the wrong type, and a fractional seq, index, schema or deployedAt, before writing anything',
    ],
    [
      'TH-ATOMIC-09',
      'should store each of writes issued together on its own: a refused one changes nothing, the others are stored',
    ],
  ]),
  ...ownCases('journal-rules.ts', [
    [
      'TH-JOURNAL-01',
      'should refuse entries filed against a seq older than the latest with a ConflictError naming the latest seq, filing none',
    ],
    [
      'TH-JOURNAL-02',
      "should refuse a late writer's entries on another connection once a put there moved the latest seq",
      ['concurrentConnections'],
    ],
    [
      'TH-JOURNAL-03',
      'should refuse a (taskId, index) filed again with other bytes with a ConflictError naming both, filing none of its batch',
    ],
    [
      'TH-JOURNAL-04',
      'should refuse a call that repeats a (taskId, index) with other bytes with a ConflictError, filing none of it',
    ],
    ['TH-JOURNAL-05', 'should stay writable after a refused batch: the next batch is filed and the next put moves on'],
    ['TH-JOURNAL-06', 'should tell a repeat from the first value when they differ only after a 0x00 byte or in length'],
    [
      'TH-JOURNAL-07',
      'should refuse a 5,000-entry batch whose last entry conflicts, filing none of it, and file it whole in order once corrected',
    ],
  ]),
  ...ownCases('text-rules.ts', [
    [
      'TH-TEXT-01',
      'should refuse U+0000 in every text field put stores with an UnencodableValueError naming the field, storing nothing',
    ],
    ['TH-TEXT-02', 'should refuse a lone surrogate, high or low, in every text field put stores, naming the field'],
    ['TH-TEXT-03', 'should refuse U+0000 and lone surrogates in a journal task id, filing none of the batch'],
    ['TH-TEXT-04', 'should refuse U+0000 and lone surrogates in message ids, names, correlation keys and takers'],
    ['TH-TEXT-05', 'should refuse U+0000 and lone surrogates in deployment definition ids, digests and XML'],
    ['TH-TEXT-06', 'should refuse U+0000 and lone surrogates in a lease owner, a copy target and a rewritten digest'],
    [
      'TH-TEXT-07',
      'should find nothing when looking up by text no store can hold, as for any id it does not have, and change nothing',
    ],
    [
      'TH-TEXT-08',
      'should keep other control characters, noncharacters and paired surrogates verbatim in ids and keys',
    ],
  ]),
  ...ownCases('limits.ts', [
    ['TH-LIMIT-01', 'should accept every text field of a put at MAX_TEXT_BYTES UTF-8 bytes and return it verbatim'],
    [
      'TH-LIMIT-02',
      'should refuse each text field of a put one UTF-8 byte past MAX_TEXT_BYTES with a LimitExceededError naming field, length and limit',
    ],
    [
      'TH-LIMIT-03',
      'should refuse an id, key or business key of 20,000 characters with a LimitExceededError, storing nothing',
    ],
    ['TH-LIMIT-04', 'should take a journal task id, lease owner and taker at the limit and refuse them a byte past it'],
    [
      'TH-LIMIT-05',
      'should take message ids, names and keys and deployment ids and digests at the limit and refuse them a byte past it',
    ],
    [
      'TH-LIMIT-06',
      'should round-trip a document of exactly MAX_DOCUMENT_BYTES and refuse one a byte longer, storing nothing',
    ],
    ['TH-LIMIT-07', 'should file a journal value of MAX_DOCUMENT_BYTES and refuse a batch with one a byte longer'],
    ['TH-LIMIT-08', 'should take back message variables of MAX_DOCUMENT_BYTES and refuse them a byte longer'],
    ['TH-LIMIT-09', 'should take deployment XML of MAX_DOCUMENT_BYTES UTF-8 bytes and refuse a byte more'],
  ]),
  ...ownCases('parent-links.ts', [
    ['TH-LINK-01', 'should store a called child whose parentId names a stored instance, with its callNodeId'],
    [
      'TH-LINK-02',
      'should refuse a child whose parent is not stored with a ParentLinkError naming the instance and meta.parentId',
    ],
    [
      'TH-LINK-03',
      'should refuse a parentId without a callNodeId, or a callNodeId without a parentId, naming the other',
    ],
    ['TH-LINK-04', 'should refuse an instance named as its own parent'],
    ['TH-LINK-05', 'should keep accepting puts of a child whose parent was deleted after the link was made'],
    [
      'TH-LINK-06',
      'should refuse a put moving a child to a parent that is not stored, and take one to a stored parent',
    ],
    ['TH-LINK-07', 'should take a refused child once its parent is stored'],
  ]),
];
