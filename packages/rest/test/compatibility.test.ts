import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compatibilityTable } from '../src/compatibility-table.js';

describe('docs/camunda-api.md', () => {
  it('should hold the compatibility table as the code answers (node packages/rest/scripts/compatibility.mjs)', () => {
    const doc = readFileSync(new URL('../../../docs/camunda-api.md', import.meta.url), 'utf8');
    const table = /<!-- compatibility:start -->\n([\s\S]*?)\n<!-- compatibility:end -->/.exec(doc)?.[1];
    expect(table).toBe(compatibilityTable());
  });
});
