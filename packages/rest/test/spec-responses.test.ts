import { describe, expect, it } from 'vitest';
import { specResponses } from './spec-responses.js';

const checker = specResponses();

describe("responses checked against the spec's schemas", () => {
  it.skipIf(checker === null)(
    'should name what a response lacks or holds wrongly, and pass what fits or what the spec declares nothing for',
    () => {
      const seen = { method: 'GET', path: '/topology', status: 200, contentType: 'application/json' };
      expect(checker!.check({ ...seen, body: JSON.stringify({ brokers: 'one' }) })).toEqual(
        expect.arrayContaining([expect.stringContaining('/brokers must be array')]),
      );
      const cursor = { ...seen, method: 'POST', path: '/process-instances/search' };
      const page = { totalItems: 0, hasMoreTotalItems: false, startCursor: 'e30=', endCursor: 'e30=' };
      expect(checker!.check({ ...cursor, body: JSON.stringify({ items: [], page }) })).toEqual([]);
      expect(
        checker!.check({ ...cursor, body: JSON.stringify({ items: [], page: { ...page, endCursor: '-_' } }) }),
      ).toEqual([expect.stringContaining('/page/endCursor must match pattern')]);
      // A status the spec declares nothing for is Camunda's behaviour, not checked.
      expect(checker!.check({ ...seen, status: 418, body: '{}' })).toEqual([]);
    },
  );
});
