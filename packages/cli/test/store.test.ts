import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { describeStore, openStore, parseStoreUrl, storeFromArgs } from '../src/store.js';

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
  accepts('postgres://localhost/thresher', { kind: 'postgres', connectionString: 'postgres://localhost/thresher' });
  accepts('postgresql://u@h:5433/db', { kind: 'postgres', connectionString: 'postgresql://u@h:5433/db' });
  accepts('postgres://u:pw@h/db?schema=tenant_7', {
    kind: 'postgres',
    connectionString: 'postgres://u:pw@h/db',
    schema: 'tenant_7',
  });
  accepts('postgres://h/db?sslmode=require&schema=s&application_name=x', {
    kind: 'postgres',
    connectionString: 'postgres://h/db?sslmode=require&application_name=x',
    schema: 's',
  });
  accepts('postgres://h/db?preparedStatements=false&schema=s', {
    kind: 'postgres',
    connectionString: 'postgres://h/db',
    schema: 's',
    preparedStatements: false,
  });

  const refuses = (value: string, message: RegExp) =>
    it(`should refuse ${JSON.stringify(value)} with a usage error`, () => {
      expect(() => parseStoreUrl(value, cwd)).toThrow(UsageError);
      expect(() => parseStoreUrl(value, cwd)).toThrow(message);
    });
  refuses('postgres:thresher', /not a PostgreSQL URL/);
  refuses('postgres://h/db?schema=bad-name', /schema name "bad-name" is not usable/);
  refuses('postgres://h/db?schema=a&schema=b', /give \?schema= once/);
  refuses('postgres://h/db?preparedStatements=no', /give \?preparedStatements= once, true or false/);
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

describe('describeStore', () => {
  it('should name a PostgreSQL store by its URL without the password, and its schema', () => {
    expect(describeStore(parseStoreUrl('postgres://app:s3cret@db:5432/prod', cwd))).toBe(
      'postgres://app:***@db:5432/prod (schema thresher)',
    );
    expect(describeStore(parseStoreUrl('postgres://db/prod?schema=t1', cwd))).toBe('postgres://db/prod (schema t1)');
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

  it.runIf(process.env.THRESHER_PG_URL)(
    'should open a PostgreSQL store in the schema the URL names (THRESHER_PG_URL)',
    async () => {
      const url = new URL(process.env.THRESHER_PG_URL!);
      const schema = `thresher_test_${randomBytes(6).toString('hex')}`;
      url.searchParams.set('schema', schema);
      const repository = await openStore(parseStoreUrl(url.toString(), cwd), { create: false });
      try {
        expect(await repository.instances()).toEqual([]);
        expect((repository as unknown as { schema: string }).schema).toBe(schema);
      } finally {
        await repository.close();
        const client = new pg.Client({ connectionString: process.env.THRESHER_PG_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    },
  );

  it('should open an empty memory store', async () => {
    const repository = await openStore({ kind: 'memory' }, { create: true });
    expect(await repository.deployments()).toEqual([]);
    await repository.close();
  });
});
