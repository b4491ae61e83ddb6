import {
  type DeploymentInput,
  decodeJournalEntry,
  type InstanceQuery,
  type ListOptions,
  type PendingWrite,
  type PutCheckpoint,
  type Repository,
  type RewriteCheckpoint,
} from '@thresher/checkpoint';

const never = <T>(): Promise<T> => new Promise<T>(() => {});

/**
 * A repository that dies at a chosen persist point: the `killAt`-th write (a `put`, `rewrite` or `putWrites`)
 * lands in the store, then it and every later call hang forever, as if the process had been killed right
 * after the commit. The engine above it is then abandoned without any shutdown.
 */
export class KillSwitch implements Repository {
  /** Writes that reached the store so far (put, rewrite and putWrites). */
  writes = 0;
  /** Step identities whose results reached the journal before the kill: they must never run again. */
  readonly durableIdentities = new Set<string>();
  readonly killed: Promise<void>;
  private dead = false;
  private fire!: () => void;

  constructor(
    private readonly inner: Repository,
    private readonly killAt: number = Number.POSITIVE_INFINITY,
  ) {
    this.killed = new Promise((resolve) => {
      this.fire = resolve;
    });
  }

  get isDead(): boolean {
    return this.dead;
  }

  put(checkpoint: PutCheckpoint): Promise<void> {
    return this.write(() => this.inner.put(checkpoint));
  }

  rewrite(checkpoint: RewriteCheckpoint): Promise<void> {
    return this.write(() => this.inner.rewrite(checkpoint));
  }

  putWrites(instanceId: string, seq: number, writes: PendingWrite[]): Promise<void> {
    return this.write(async () => {
      await this.inner.putWrites(instanceId, seq, writes);
      for (const write of writes) this.durableIdentities.add(decodeJournalEntry(write.value).receipt.identity);
    });
  }

  get(instanceId: string, seq?: number) {
    return this.read(() => this.inner.get(instanceId, seq));
  }

  list(instanceId: string, options?: ListOptions) {
    return this.read(() => this.inner.list(instanceId, options));
  }

  delete(instanceId: string) {
    return this.read(() => this.inner.delete(instanceId));
  }

  instances(query?: InstanceQuery) {
    return this.read(() => this.inner.instances(query));
  }

  putDeployment(deployment: DeploymentInput) {
    return this.read(() => this.inner.putDeployment(deployment));
  }

  getDeployment(digest: string) {
    return this.read(() => this.inner.getDeployment(digest));
  }

  deployments(definitionId?: string) {
    return this.read(() => this.inner.deployments(definitionId));
  }

  async close(): Promise<void> {}

  private async write(perform: () => Promise<void>): Promise<void> {
    if (this.dead) return never();
    await perform();
    this.writes += 1;
    if (this.writes >= this.killAt) {
      this.dead = true;
      this.fire();
      return never();
    }
  }

  private read<T>(perform: () => Promise<T>): Promise<T> {
    return this.dead ? never() : perform();
  }
}
