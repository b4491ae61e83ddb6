import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runRepositoryContract } from '@thresher/conformance';
import { afterAll } from 'vitest';
import { sqliteInitializer } from './conformance-initializer.js';

const directory = mkdtempSync(join(tmpdir(), 'thresher-sqlite-conformance-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
runRepositoryContract(sqliteInitializer(directory));
