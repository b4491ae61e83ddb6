import { runRepositoryContract } from '../src/conformance/index.js';
import { createMemoryRepository } from '../src/memory-repository.js';

runRepositoryContract({ name: 'memory', createRepository: createMemoryRepository });
