import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MAX_DOCUMENT_BYTES, type PutCheckpoint } from '@thresher/checkpoint';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { PostgresRepository } from '../src/index.js';
import { adminPool, closeBackend, dropSchema, freshSchema, openRepository, PG_URL } from './backend.js';

/** The built package: the child runs plain Node, which cannot load the TypeScript sources. */
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const WRITER = fileURLToPath(new URL('../../checkpoint/test/support/crash-writer.mjs', import.meta.url));

/** Why the tests do not run here, if they do not. */
const SKIPPED =
  PG_URL === undefined
    ? 'needs a PostgreSQL server (THRESHER_PG_URL): the writer is another process, which an in-process PGlite cannot serve'
    : existsSync(DIST)
      ? undefined
      : 'needs `pnpm run build`: the child process runs the built package';
const title = (name: string) => (SKIPPED === undefined ? name : `${name} (skipped: ${SKIPPED})`);

/** 30,000 entries of 2 KiB: 30 INSERT statements of 1,000 entries in one transaction. */
const ENTRIES = 30_000;
const ENTRY_BYTES = 2048;

const opened: PostgresRepository[] = [];
const schemas: string[] = [];

afterEach(async () => {
  for (const repository of opened.splice(0)) await repository.close();
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});
afterAll(closeBackend);

async function activity(application: string, condition: string): Promise<number> {
  const { rows } = await (await adminPool()).query<{ count: string | number }>(
    `SELECT count(*) AS count FROM pg_stat_activity WHERE application_name = $1 AND ${condition}`,
    [application],
  );
  return Number(rows[0]!.count);
}

/**
 * Run the writer in `mode` and SIGKILL it mid-write: once it has said it started the write and the server
 * shows its transaction open (a transaction id assigned) and, for a batch, inserting journal entries. Then
 * wait until the server has ended the dead writer's session (rolling back what it did not commit).
 */
async function killMidWrite(schema: string, mode: 'batch' | 'put'): Promise<{ signal: string | null; said: string }> {
  const application = `thresher-crash-${randomBytes(4).toString('hex')}`;
  const url = `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}application_name=${application}`;
  const [entries, entryBytes] = mode === 'batch' ? [ENTRIES, ENTRY_BYTES] : [MAX_DOCUMENT_BYTES / 2048, 2048];
  const options = JSON.stringify({ connectionString: url, schema });
  const args = [
    WRITER,
    pathToFileURL(DIST).href,
    'createPostgresRepository',
    options,
    mode,
    String(entries),
    String(entryBytes),
  ];
  const child: ChildProcess = spawn(process.execPath, args);
  let said = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const started = new Promise<void>((resolve) => {
    child.stdout!.on('data', (chunk) => {
      said += chunk;
      if (said.includes(`${mode}\n`)) resolve();
    });
  });
  const ended = new Promise<string | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (_code, signal) => resolve(signal));
  });
  await Promise.race([started, ended]);
  const midWrite =
    mode === 'batch' ? "backend_xid IS NOT NULL AND query LIKE 'INSERT INTO %.writes %'" : 'backend_xid IS NOT NULL';
  let exited = false;
  void ended.then(() => {
    exited = true;
  });
  while (!exited && (await activity(application, midWrite)) === 0) {
    // Poll the server until the write is under way.
  }
  child.kill('SIGKILL');
  const signal = await ended;
  await expect.poll(() => activity(application, 'true'), { timeout: 10_000 }).toBe(0);
  expect(stderr).toBe('');
  return { signal, said };
}

async function open(schema: string): Promise<PostgresRepository> {
  const repository = await openRepository(schema);
  opened.push(repository);
  return repository;
}

/** The next checkpoint after `latest`, with a small document. */
function next(latest: { seq: number }): PutCheckpoint {
  const seq = latest.seq + 1;
  return {
    instanceId: 'order-1',
    seq,
    parentSeq: latest.seq,
    schema: 1,
    definitionDigest: 'definition-digest',
    digest: `digest-${seq}`,
    bytes: new TextEncoder().encode(`{"seq":${seq}}`),
    meta: {
      status: 'running',
      processId: 'order_process',
      definitionId: 'order-fulfilment',
      businessKey: null,
      parentId: null,
      callNodeId: null,
      dueAt: null,
      subscriptions: [],
    },
  };
}

describe('a PostgreSQL writer SIGKILLed mid-write', () => {
  it.skipIf(SKIPPED !== undefined)(
    title('should keep all or nothing of a large journal batch, and stay writable'),
    async () => {
      const schema = freshSchema();
      schemas.push(schema);

      const { signal, said } = await killMidWrite(schema, 'batch');

      expect({ signal, said }).toEqual({ signal: 'SIGKILL', said: 'batch\n' });
      const repository = await open(schema);
      const latest = await repository.get('order-1');
      expect(latest?.seq).toBe(1);
      const filed = latest!.writes;
      expect([0, ENTRIES]).toContain(filed.length);
      for (const [i, entry] of filed.entries()) {
        expect(entry.taskId).toBe(`task-${i}`);
        expect(entry.value.every((byte) => byte === i % 251)).toBe(true);
      }
      // Writable: the dead writer's row lock is gone, entries are filed, and a put follows.
      await repository.putWrites('order-1', 1, [
        { taskId: 'task-0', index: 0, value: new Uint8Array(ENTRY_BYTES).fill(0) },
      ]);
      await repository.put(next(latest!));
      expect((await repository.get('order-1'))?.seq).toBe(2);
      expect((await repository.get('order-1', 1))?.writes.length).toBe(filed.length === 0 ? 1 : ENTRIES);
    },
  );

  it.skipIf(SKIPPED !== undefined)(
    title('should keep all or nothing of a put of a large document, and stay writable'),
    async () => {
      const schema = freshSchema();
      schemas.push(schema);

      const { signal, said } = await killMidWrite(schema, 'put');

      expect({ signal, said }).toEqual({ signal: 'SIGKILL', said: 'put\n' });
      const repository = await open(schema);
      const latest = (await repository.get('order-1'))!;
      expect([1, 2]).toContain(latest.seq);
      if (latest.seq === 2) {
        expect(latest.bytes.byteLength).toBe(MAX_DOCUMENT_BYTES);
        expect(latest.bytes.every((byte) => byte === 7)).toBe(true);
      }
      expect(await repository.list('order-1')).toHaveLength(latest.seq);
      await repository.put(next(latest));
      await repository.putWrites('order-1', latest.seq + 1, [{ taskId: 'after', index: 0, value: Uint8Array.of(1) }]);
      expect((await repository.get('order-1'))?.writes).toHaveLength(1);
    },
  );
});
