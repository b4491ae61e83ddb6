import type { Repository } from '@thresher/checkpoint';

/**
 * What a store can do beyond the contract's methods, which some conformance cases need. A case that needs a
 * capability the store does not declare is reported skipped, naming the capability; never silently.
 */
export interface RepositoryCapabilities {
  /**
   * A second, independent connection to the same data can be opened (`connect`), as another node would, so
   * writers and claims race across connections rather than within one.
   */
  concurrentConnections: boolean;
  /** The data outlives the repository: it can be closed and opened again (`reopen`), as after a crash. */
  persistence: boolean;
  /** A stored document's bytes can be altered behind the store's back (`alterStoredBytes`), as a disk fault would. */
  alterStoredBytes: boolean;
  /**
   * The store records a schema version, which can be raised behind the repository's back (`upgradeSchema`) as
   * a newer build's migration would while this process runs.
   */
  upgradeSchema: boolean;
  /**
   * `put` applies `PutCheckpoint.deploymentsSeen` and the repository says so (`checksDeploymentsSeen`), so an
   * engine may keep the deployments it read instead of reading them at every `start`.
   */
  deploymentsSeen: boolean;
}

/** The name of one capability. */
export type Capability = keyof RepositoryCapabilities;

/**
 * How the conformance suite obtains the repository under test.
 *
 * @typeParam TRepository - The backend's own repository type, so the hooks can reach its extras.
 *
 * @example
 * ```ts
 * runRepositoryContract({
 *   name: 'memory',
 *   capabilities: { concurrentConnections: false, persistence: false, alterStoredBytes: false, upgradeSchema: false, deploymentsSeen: true },
 *   createRepository: createMemoryRepository,
 * });
 * ```
 */
export interface RepositoryContractInitializer<TRepository extends Repository = Repository> {
  /** Names the backend in the suite's test titles. */
  name: string;
  /** What the store can do; each `true` needs its hook below. */
  capabilities: RepositoryCapabilities;
  /** A fresh, empty repository. Called once per test: no test sees another's data. */
  createRepository(): Promise<TRepository> | TRepository;
  /**
   * Tear down what `createRepository` made (files, schemas, connections). Defaults to `close()`. Called
   * after every test, including tests that already closed the repository, so it must tolerate that.
   */
  destroyRepository?(repository: TRepository): Promise<void> | void;
  /**
   * Open another connection to the data behind `repository` (capability `concurrentConnections`). The suite
   * closes it after the test, before `destroyRepository`.
   */
  connect?(repository: TRepository): Promise<Repository> | Repository;
  /**
   * Close `repository` (abruptly if the store can) and open its data again (capability `persistence`). The
   * suite closes the new repository after the test, before `destroyRepository` of the original.
   */
  reopen?(repository: TRepository): Promise<Repository> | Repository;
  /**
   * Replace the stored bytes of checkpoint `seq` of an instance without going through the repository, as a
   * disk fault or a hand edit would (capability `alterStoredBytes`).
   */
  alterStoredBytes?(
    repository: TRepository,
    instanceId: string,
    seq: number,
    alter: (bytes: Uint8Array) => Uint8Array,
  ): Promise<void> | void;
  /**
   * Migrate the data behind `repository` to the schema version after the newest this build knows, from
   * outside the repository, as another process running a newer build would (capability `upgradeSchema`).
   */
  upgradeSchema?(repository: TRepository): Promise<void> | void;
}
