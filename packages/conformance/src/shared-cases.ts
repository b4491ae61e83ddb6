import { type ConformanceCase, ownCases } from './case-rows.js';

/**
 * Thresher's own cases of what processes on one store share through it: the job queue, search rows and buffered
 * messages (part of `THRESHER_CASES`, in its order). Ids are stable, as there.
 */
export const SHARED_CASES: readonly ConformanceCase[] = [
  ...ownCases('jobs.ts', [
    ['TH-JOBS-01', 'should hand out queued jobs of the type asked for, first queued first, each locked for the worker'],
    ['TH-JOBS-02', 'should lock at most limit jobs and never hand out a job whose lock holds'],
    ['TH-JOBS-03', 'should hand out a job again once its lock expired (deadline at or before now)'],
    ['TH-JOBS-04', 'should not hand out a job before its notBefore'],
    [
      'TH-JOBS-05',
      'should keep lock and place when the same attempt is offered again, and let both go for a new attempt',
    ],
    ['TH-JOBS-06', 'should move a held lock with relockJob, and refuse one not held by that attempt at now'],
    ['TH-JOBS-07', 'should take a job out of the queue with withdrawJob, true once and then false'],
    [
      'TH-JOBS-08',
      'should store no offer for an instance it does not have, drop offers with their instance and copy none',
    ],
    ['TH-JOBS-09', 'should let concurrent activations lock each job once'],
    [
      'TH-JOBS-10',
      'should let activations on two connections lock each of many jobs exactly once',
      ['concurrentConnections'],
    ],
    ['TH-JOBS-11', 'should keep queued jobs and their locks when the store is opened again', ['persistence']],
    ['TH-JOBS-12', 'should refuse attempts, times, timeouts and limits it cannot keep with a RangeError'],
    ['TH-JOBS-13', 'should keep unicode and emoji ids, types and workers verbatim and match them exactly'],
  ]),
  ...ownCases('search-rows.ts', [
    [
      'TH-ROWS-01',
      'should keep put rows whole and search them by kind (and keys) in key order, numbers before longer numbers',
    ],
    [
      'TH-ROWS-02',
      "should write a batch only from the projection's stored position, puts and deletes together with the new position",
    ],
    ['TH-ROWS-03', 'should filter by eq, neq, in and notIn of each type, absent values passing only neq and notIn'],
    ['TH-ROWS-04', 'should filter numbers numerically and text by code point with gt, gte, lt and lte'],
    ['TH-ROWS-05', 'should compare keys as decimal numbers, and read a field of another JSON type as absent'],
    [
      'TH-ROWS-06',
      'should filter by exists and by case-sensitive like patterns (*, ?, backslash escapes), emoji whole',
    ],
    [
      'TH-ROWS-07',
      'should sort by fields (absent last ascending, first descending), ties by key, and page from an offset',
    ],
    ['TH-ROWS-08', 'should find rows that related rows of another kind point to, by their own conditions'],
    ['TH-ROWS-09', 'should keep rows and positions when the store is opened again', ['persistence']],
    ['TH-ROWS-10', 'should refuse names, values and searches it cannot keep or read, changing nothing'],
  ]),
  ...ownCases('messages.ts', [
    ['TH-MSG-01', 'should return a put message from takeMessage as put, variables byte for byte, unchanged by callers'],
    ['TH-MSG-02', 'should take messages oldest first by publishedAt, ties by id in code point order'],
    ['TH-MSG-03', 'should match name and key exactly: a null key only a null key, an empty key only an empty key'],
    ['TH-MSG-04', 'should never take a message expired at now (expiresAt <= now)'],
    ['TH-MSG-05', 'should delete only messages expired at now with expireMessages, held ones included, and count them'],
    ['TH-MSG-06', 'should treat putting a stored message id again as a no-op returning false, whatever its fields'],
    [
      'TH-MSG-07',
      'should hold a taken message for its taker: no other taker gets it, and the taker gets it back first, expired or not',
    ],
    ['TH-MSG-08', 'should remove a message with deleteMessage, true once and then false, and accept its id again'],
    ['TH-MSG-09', 'should let exactly one of several concurrent takers take a message'],
    [
      'TH-MSG-10',
      'should let takers on two connections take each of many messages exactly once',
      ['concurrentConnections'],
    ],
    ['TH-MSG-11', 'should keep unicode and emoji ids, names, keys and takers verbatim and match them exactly'],
    ['TH-MSG-12', 'should keep buffered and held messages when the store is opened again', ['persistence']],
    ['TH-MSG-13', 'should refuse times that are not finite with a RangeError'],
    ['TH-MSG-14', 'should keep buffered messages, held ones included, when an instance is deleted'],
    [
      'TH-MSG-15',
      'should take the oldest message of any of several names in one call, the held one first, an empty list none',
    ],
  ]),
];
