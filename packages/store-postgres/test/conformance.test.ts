import { runRepositoryContract } from '@thresher/conformance';
import { afterAll } from 'vitest';
import { closeBackend } from './backend.js';
import { postgresInitializer } from './conformance-initializer.js';

afterAll(closeBackend);
runRepositoryContract(postgresInitializer);
