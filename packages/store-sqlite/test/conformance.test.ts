import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runRepositoryContract } from '@thresher/checkpoint/conformance';
import { afterAll } from 'vitest';
import { createSqliteRepository } from '../src/index.js';

const directory = mkdtempSync(join(tmpdir(), 'thresher-sqlite-conformance-'));
let files = 0;
afterAll(() => rmSync(directory, { recursive: true, force: true }));

runRepositoryContract({
  name: 'sqlite',
  createRepository: () => createSqliteRepository({ path: join(directory, `${++files}.db`) }),
});
