import { declaredCapabilities, type RepositoryContractInitializer } from '@thresher/conformance';
import { type PostgresRepository, SCHEMA_VERSION } from '../src/index.js';
import { adminPool, BACKEND, dropSchema, freshSchema, openRepository } from './backend.js';

/**
 * How the conformance suite reaches this store (conformance.test.ts): a fresh schema per test on the file's
 * backend, and the backend's own hands for what the suite does behind a repository's back.
 */
export const postgresInitializer: RepositoryContractInitializer<PostgresRepository> = {
  name: `postgres on ${BACKEND === 'server' ? 'the THRESHER_PG_URL server' : 'PGlite'}`,
  // PGlite is one session: a second repository on it shares that session, so nothing there would race.
  capabilities: declaredCapabilities('postgres', { concurrentConnections: BACKEND === 'server' }),
  // A fresh schema per test: tests (and runs on a shared server) never see each other's rows.
  createRepository: () => openRepository(freshSchema()),
  async destroyRepository(repository) {
    await repository.close();
    await dropSchema(repository.schema);
  },
  connect: (repository) => openRepository(repository.schema),
  async reopen(repository) {
    await repository.close();
    return openRepository(repository.schema);
  },
  // What a newer build's migration does, from another connection: under the migration lock, a change of its
  // own and the version it records.
  async upgradeSchema(repository) {
    const pool = await adminPool();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `thresher.migrate:${repository.schema}`,
      ]);
      await client.query(`CREATE TABLE "${repository.schema}".from_a_newer_build (id INTEGER PRIMARY KEY)`);
      await client.query(
        `INSERT INTO "${repository.schema}".schema_migrations (version, description) VALUES ($1, $2)`,
        [SCHEMA_VERSION + 1, 'a newer build'],
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  },
  async alterStoredBytes(repository, instanceId, seq, alter) {
    const pool = await adminPool();
    const table = `"${repository.schema}".checkpoints`;
    const { rows } = await pool.query<{ document: Uint8Array }>(
      `SELECT document FROM ${table} WHERE instance_id = $1 AND seq = $2`,
      [instanceId, seq],
    );
    const altered = alter(new Uint8Array(rows[0]!.document));
    await pool.query(`UPDATE ${table} SET document = $3 WHERE instance_id = $1 AND seq = $2`, [
      instanceId,
      seq,
      altered,
    ]);
  },
};
