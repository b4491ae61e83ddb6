import { describe, expect, it } from 'vitest';
import * as main from '../src/index.js';
import * as inputRules from '../src/input-rules.js';
import * as jobRules from '../src/job-rules.js';
import * as migrations from '../src/migrations.js';
import * as putRules from '../src/put-rules.js';
import * as readRules from '../src/read-rules.js';
import * as storeKit from '../src/store-kit/index.js';
import * as sql from '../src/store-kit/sql.js';

/** Which entry exports `value` under `name`: the main one, the store kit, both or neither. */
function entriesOf(name: string, value: unknown): string[] {
  const entries: string[] = [];
  if ((main as Record<string, unknown>)[name] === value) entries.push('@thresher/checkpoint');
  if ((storeKit as Record<string, unknown>)[name] === value) entries.push('@thresher/checkpoint/store-kit');
  return entries;
}

describe('the main entry (@thresher/checkpoint)', () => {
  const exported = main as Record<string, unknown>;

  it('should export every step of the migration chain up to CURRENT_SCHEMA, step n as schemaNtoN+1', () => {
    const missing = main.MIGRATIONS.flatMap((step, index) =>
      exported[`schema${index + 1}to${index + 2}`] === step ? [] : [`schema${index + 1}to${index + 2}`],
    );

    expect(main.MIGRATIONS).toHaveLength(main.CURRENT_SCHEMA - 1);
    expect(missing).toEqual([]);
  });

  it('should export every migration migrations.ts declares, each a step of the chain', () => {
    const declared = Object.entries(migrations as Record<string, unknown>).filter(([name]) =>
      /^schema\d+to\d+$/.test(name),
    );

    const unexported = declared.filter(
      ([name, step]) => exported[name] !== step || !(main.MIGRATIONS as readonly unknown[]).includes(step),
    );

    expect(declared).toHaveLength(main.MIGRATIONS.length);
    expect(unexported.map(([name]) => name)).toEqual([]);
  });
});

describe('the store kit (@thresher/checkpoint/store-kit)', () => {
  it('should leave no export of the store rules and the SQL kit unexported, and export none of them twice', () => {
    const modules = {
      'input-rules.ts': inputRules,
      'job-rules.ts': jobRules,
      'put-rules.ts': putRules,
      'read-rules.ts': readRules,
      'sql.ts': sql,
    };

    const misplaced = Object.entries(modules).flatMap(([module, exports]) =>
      Object.entries(exports)
        .map(([name, value]) => ({ name: `${module}#${name}`, entries: entriesOf(name, value) }))
        .filter(({ entries }) => entries.length !== 1),
    );

    expect(misplaced).toEqual([]);
  });

  it('should share no name with the main entry, so an import names one place', () => {
    expect(Object.keys(storeKit).filter((name) => name in main)).toEqual([]);
  });
});
