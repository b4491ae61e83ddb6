import { runRepositoryContract } from '../src/conformance/index.js';
import { declaredCapabilities } from '../src/conformance/table.js';
import { createMemoryRepository } from '../src/memory-repository.js';

// Nothing outlives a memory repository and it has no second connection or raw storage: those cases skip.
runRepositoryContract({
  name: 'memory',
  capabilities: declaredCapabilities('memory'),
  createRepository: createMemoryRepository,
});
