import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MAX_DOCUMENT_BYTES } from '@thresher/checkpoint';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteRepository, type SqliteRepository } from '../src/index.js';

/** The built package: the child runs plain Node, which cannot load the TypeScript sources. */
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const WRITER = fileURLToPath(new URL('../../checkpoint/test/support/crash-writer.mjs', import.meta.url));
const NEEDS_BUILD = 'needs `pnpm run build`: the child process runs the built package';

/** 30,000 entries of 2 KiB: a 60 MB batch, far more than SQLite's page cache, so it spills into the WAL. */
const ENTRIES = 30_000;
const ENTRY_BYTES = 2048;
/** The largest document the contract takes: 8,192 times 2 KiB. */
const DOCUMENT_BYTES = MAX_DOCUMENT_BYTES;

let directory: string;
const opened: SqliteRepository[] = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'thresher-sqlite-crash-'));
});

afterEach(async () => {
  for (const repository of opened.splice(0)) await repository.close();
  rmSync(directory, { recursive: true, force: true });
});

function open(path: string): SqliteRepository {
  const repository = createSqliteRepository({ path });
  opened.push(repository);
  return repository;
}

const walBytes = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);

/**
 * Run the writer in `mode` and SIGKILL it mid-write: once it has said it started the write and the WAL has
 * grown by 1 MB since (uncommitted pages of that very write: the writer's connection is blocked in it).
 * Resolves with how the child ended and what it said.
 */
async function killMidWrite(path: string, mode: 'batch' | 'put'): Promise<{ signal: string | null; said: string }> {
  const [entries, entryBytes] = mode === 'batch' ? [ENTRIES, ENTRY_BYTES] : [DOCUMENT_BYTES / 2048, 2048];
  const child: ChildProcess = spawn(process.execPath, [
    WRITER,
    pathToFileURL(DIST).href,
    'createSqliteRepository',
    JSON.stringify({ path }),
    mode,
    String(entries),
    String(entryBytes),
  ]);
  let said = '';
  let stderr = '';
  let baseline: number | undefined;
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const poll = setInterval(() => {
    if (baseline !== undefined && walBytes(path) > baseline + 1024 * 1024) child.kill('SIGKILL');
  }, 2);
  child.stdout!.on('data', (chunk) => {
    said += chunk;
    if (baseline === undefined && said.includes(`${mode}\n`)) baseline = walBytes(path);
  });
  const signal = await new Promise<string | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (_code, killedBy) => resolve(killedBy));
  });
  clearInterval(poll);
  expect(stderr).toBe('');
  return { signal, said };
}

/** `PRAGMA integrity_check` of the file, through a connection of its own. */
function integrity(path: string): unknown {
  const db = new Database(path);
  try {
    return db.pragma('integrity_check', { simple: true });
  } finally {
    db.close();
  }
}

describe('a SQLite writer SIGKILLed mid-write', () => {
  it.skipIf(!existsSync(DIST))(
    `should keep all or nothing of a large journal batch, and stay writable${existsSync(DIST) ? '' : ` (skipped: ${NEEDS_BUILD})`}`,
    async () => {
      const path = join(directory, 'crash.db');

      const { signal, said } = await killMidWrite(path, 'batch');

      // The kill landed inside the write: the writer never said it was done.
      expect({ signal, said }).toEqual({ signal: 'SIGKILL', said: 'batch\n' });
      expect(integrity(path)).toBe('ok');
      const repository = open(path);
      const latest = await repository.get('order-1');
      expect(latest?.seq).toBe(1);
      const filed = latest!.writes;
      expect([0, ENTRIES]).toContain(filed.length);
      for (const [i, entry] of filed.entries()) {
        expect(entry.taskId).toBe(`task-${i}`);
        expect(entry.value.every((byte) => byte === i % 251)).toBe(true);
      }
      // Writable: the batch can be filed again (a repeat of anything that landed is a no-op), and a put follows.
      const again = Array.from({ length: 3 }, (_, i) => ({
        taskId: `task-${i}`,
        index: 0,
        value: new Uint8Array(ENTRY_BYTES).fill(i % 251),
      }));
      await repository.putWrites('order-1', 1, again);
      await repository.put({ ...latest!, seq: 2, parentSeq: 1, digest: 'digest-2', meta: meta() });
      expect((await repository.get('order-1'))?.seq).toBe(2);
      expect((await repository.get('order-1', 1))?.writes.length).toBe(filed.length === 0 ? 3 : ENTRIES);
    },
  );

  it.skipIf(!existsSync(DIST))(
    `should keep all or nothing of a put of a large document, and stay writable${existsSync(DIST) ? '' : ` (skipped: ${NEEDS_BUILD})`}`,
    async () => {
      const path = join(directory, 'crash.db');

      const { signal, said } = await killMidWrite(path, 'put');

      expect({ signal, said }).toEqual({ signal: 'SIGKILL', said: 'put\n' });
      expect(integrity(path)).toBe('ok');
      const repository = open(path);
      const latest = (await repository.get('order-1'))!;
      expect([1, 2]).toContain(latest.seq);
      if (latest.seq === 2) {
        expect(latest.bytes.byteLength).toBe(DOCUMENT_BYTES);
        expect(latest.bytes.every((byte) => byte === 7)).toBe(true);
      }
      expect(await repository.list('order-1')).toHaveLength(latest.seq);
      const next = latest.seq + 1;
      await repository.put({ ...latest, seq: next, parentSeq: latest.seq, digest: `digest-${next}`, meta: meta() });
      await repository.putWrites('order-1', next, [{ taskId: 'after', index: 0, value: Uint8Array.of(1) }]);
      expect((await repository.get('order-1'))?.writes).toHaveLength(1);
    },
  );
});

function meta() {
  return {
    status: 'running' as const,
    processId: 'order_process',
    definitionId: 'order-fulfilment',
    businessKey: null,
    parentId: null,
    callNodeId: null,
    dueAt: null,
    subscriptions: [],
  };
}
