import { createMemoryRepository } from '@thresher/checkpoint';
import { declaredCapabilities, runRepositoryContract } from '../src/index.js';

// Nothing outlives a memory repository and it has no second connection or raw storage: those cases skip.
runRepositoryContract({
  name: 'memory',
  capabilities: declaredCapabilities('memory'),
  createRepository: createMemoryRepository,
});
