import type { Repository } from '../repository.js';

/**
 * How the conformance suite obtains the repository under test.
 *
 * @typeParam TRepository - The backend's own repository type, so `destroyRepository` can reach its extras.
 *
 * @example
 * ```ts
 * runRepositoryContract({ name: 'memory', createRepository: createMemoryRepository });
 * ```
 */
export interface RepositoryContractInitializer<TRepository extends Repository = Repository> {
  /** Names the backend in the suite's test titles. */
  name: string;
  /** A fresh, empty repository. Called once per test: no test sees another's data. */
  createRepository(): Promise<TRepository> | TRepository;
  /**
   * Tear down what `createRepository` made (files, schemas, connections). Defaults to `close()`. Called
   * after every test, including tests that already closed the repository, so it must tolerate that.
   */
  destroyRepository?(repository: TRepository): Promise<void> | void;
}
