import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { openStore, parseStoreUrl, storeFromArgs } from '../src/store.js';

const cwd = '/srv/app';

describe('parseStoreUrl', () => {
  const accepts = (value: string | undefined, expected: unknown) =>
    it(`should read ${JSON.stringify(value)}`, () => {
      expect(parseStoreUrl(value, cwd)).toEqual(expected);
    });
  accepts(undefined, { kind: 'sqlite', path: '/srv/app/.thresher/thresher.db' });
  accepts('sqlite:data/app.db', { kind: 'sqlite', path: '/srv/app/data/app.db' });
  accepts('sqlite:/var/lib/thresher.db', { kind: 'sqlite', path: '/var/lib/thresher.db' });
  accepts('sqlite:///var/lib/thresher.db', { kind: 'sqlite', path: '/var/lib/thresher.db' });
  accepts('sqlite:anything', { kind: 'sqlite', path: '/srv/app/anything' });
  accepts('app.db', { kind: 'sqlite', path: '/srv/app/app.db' });
  accepts('./state/app.sqlite', { kind: 'sqlite', path: '/srv/app/state/app.sqlite' });
  accepts('/tmp/x.db', { kind: 'sqlite', path: '/tmp/x.db' });
  accepts('memory:', { kind: 'memory' });

  const refuses = (value: string, message: RegExp) =>
    it(`should refuse ${JSON.stringify(value)} with a usage error`, () => {
      expect(() => parseStoreUrl(value, cwd)).toThrow(UsageError);
      expect(() => parseStoreUrl(value, cwd)).toThrow(message);
    });
  refuses('postgres://localhost/thresher', /PostgreSQL store not available yet/);
  refuses('postgresql://u@h/db', /PostgreSQL store not available yet/);
  refuses('sqlite:', /the SQLite file path is missing/);
  refuses('mysql://localhost/x.db', /unknown store/);
  refuses('data.json', /unknown store/);
  refuses('memory', /unknown store/);
});

describe('storeFromArgs', () => {
  it('should prefer --store over $THRESHER_STORE', () => {
    expect(storeFromArgs('memory:', { THRESHER_STORE: 'x.db' }, cwd)).toEqual({ kind: 'memory' });
  });

  it('should fall back to $THRESHER_STORE', () => {
    expect(storeFromArgs(undefined, { THRESHER_STORE: 'x.db' }, cwd)).toEqual({
      kind: 'sqlite',
      path: '/srv/app/x.db',
    });
  });

  it('should fall back to the default file when $THRESHER_STORE is empty', () => {
    expect(storeFromArgs(undefined, { THRESHER_STORE: ' ' }, cwd)).toEqual({
      kind: 'sqlite',
      path: '/srv/app/.thresher/thresher.db',
    });
  });
});

describe('openStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'thresher-cli-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should create the SQLite file and its directory when asked to', async () => {
    const path = join(dir, 'nested', 'a.db');
    const repository = await openStore({ kind: 'sqlite', path }, { create: true });
    await repository.close();
    expect(existsSync(path)).toBe(true);
  });

  it('should not create a missing SQLite file for a command that only reads', async () => {
    const path = join(dir, 'missing', 'b.db');
    const repository = await openStore({ kind: 'sqlite', path }, { create: false });
    expect(await repository.instances()).toEqual([]);
    await repository.close();
    expect(existsSync(path)).toBe(false);
  });

  it('should open an empty memory store', async () => {
    const repository = await openStore({ kind: 'memory' }, { create: true });
    expect(await repository.deployments()).toEqual([]);
    await repository.close();
  });
});
