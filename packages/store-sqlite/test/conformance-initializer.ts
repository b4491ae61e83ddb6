import { join } from 'node:path';
import { declaredCapabilities, type RepositoryContractInitializer } from '@thresher/conformance';
import Database from 'better-sqlite3';
import { createSqliteRepository, SCHEMA_VERSION, type SqliteRepository } from '../src/index.js';

/**
 * How the conformance suite reaches this store (conformance.test.ts): a new database file in `directory` per
 * test, and better-sqlite3's own connection for what the suite does behind a repository's back.
 */
export function sqliteInitializer(directory: string): RepositoryContractInitializer<SqliteRepository> {
  let files = 0;
  return {
    name: 'sqlite',
    capabilities: declaredCapabilities('sqlite'),
    createRepository: () => createSqliteRepository({ path: join(directory, `${++files}.db`) }),
    // Another node: a second connection to the same file.
    connect: (repository) => createSqliteRepository({ path: repository.path }),
    reopen: async (repository) => {
      await repository.close();
      return createSqliteRepository({ path: repository.path });
    },
    // What a newer build's migration does, from another connection: a change of its own and the version it records.
    upgradeSchema: (repository) => {
      const db = new Database(repository.path);
      try {
        db.transaction(() => {
          db.exec('CREATE TABLE from_a_newer_build (id INTEGER PRIMARY KEY)');
          db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
        }).immediate();
      } finally {
        db.close();
      }
    },
    alterStoredBytes: (repository, instanceId, seq, alter) => {
      const db = new Database(repository.path);
      try {
        const select = db.prepare('SELECT document FROM steps WHERE instance_id = ? AND seq = ?');
        const row = select.get(instanceId, seq) as { document: Buffer };
        db.prepare('UPDATE steps SET document = ? WHERE instance_id = ? AND seq = ?').run(
          alter(new Uint8Array(row.document)),
          instanceId,
          seq,
        );
      } finally {
        db.close();
      }
    },
  };
}
