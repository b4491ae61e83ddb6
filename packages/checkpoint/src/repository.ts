import type { InstanceStatus } from './types.js';

/** What a repository indexes about an instance so discovery never decodes documents. */
export interface InstanceMeta {
  status: InstanceStatus;
  processId: string;
  definitionId: string;
  businessKey: string | null;
  /** A called child's parent instance; null for a root. */
  parentId: string | null;
  callNodeId: string | null;
}

/** A checkpoint as handed to `put`: the canonical document bytes plus the fields a store indexes. */
export interface PutCheckpoint {
  instanceId: string;
  seq: number;
  /** The seq this one was derived from; null for an instance's first checkpoint. */
  parentSeq: number | null;
  schema: number;
  definitionDigest: string;
  /** sha256 of the document (the document's own `digest` field). */
  digest: string;
  /** The canonical encoding of the whole document. Stores keep these bytes verbatim. */
  bytes: Uint8Array;
  meta: InstanceMeta;
}

/** A checkpoint's new document as handed to `rewrite`: a schema migration of bytes already stored. */
export interface RewriteCheckpoint {
  instanceId: string;
  seq: number;
  /** The digest the stored document must still have: a compare-and-swap against a concurrent writer. */
  expectedDigest: string;
  schema: number;
  digest: string;
  bytes: Uint8Array;
}

/** A journal entry filed against a checkpoint. `value` is opaque canonical bytes. */
export interface PendingWrite {
  taskId: string;
  index: number;
  value: Uint8Array;
}

export interface StoredCheckpoint {
  instanceId: string;
  seq: number;
  parentSeq: number | null;
  schema: number;
  definitionDigest: string;
  digest: string;
  bytes: Uint8Array;
  /** Journal entries filed against this checkpoint, ordered by (taskId, index) insertion order. */
  writes: PendingWrite[];
}

export interface InstanceSummary extends InstanceMeta {
  instanceId: string;
  latestSeq: number;
  definitionDigest: string;
}

export interface InstanceQuery {
  /** Only instances with no parent. */
  roots?: boolean;
  /** Only called children (instances with a parent). */
  children?: boolean;
  parentId?: string;
  status?: InstanceStatus;
  /** A definition id. */
  definition?: string;
  /** Page size; all when absent. */
  limit?: number;
  /** Return instances whose id sorts after this one (keyset paging, ids ascending). */
  after?: string;
}

export interface DeploymentInput {
  definitionId: string;
  /** sha256 of the canonical compiled model. */
  digest: string;
  /** The BPMN XML as deployed; instances restore their model from it. */
  xml: string;
  deployedAt: number;
}

export interface Deployment extends DeploymentInput {
  /** 1 for a definition id's first digest, then one more for each new digest. */
  version: number;
}

export interface ListOptions {
  /** Only checkpoints with a seq lower than this. */
  before?: number;
  limit?: number;
}

/**
 * Where instances live durably (DESIGN §5). Every method is atomic; the engine never sees SQL.
 *
 * @remarks Implementations must keep document bytes verbatim and run the conformance suite.
 */
export interface Repository {
  /**
   * Store a checkpoint. Refuses with `ConflictError` when `parentSeq` is not the instance's latest seq
   * (null when it has none), i.e. a stale writer. Writing an existing seq again with identical bytes is
   * a no-op; with different bytes it is a `ConflictError`.
   */
  put(checkpoint: PutCheckpoint): Promise<void>;
  /**
   * Replace the bytes of an existing checkpoint in place (a schema migration): seq, parentSeq, writes and the
   * instance's index stay as they are. Refuses with `ConflictError` when the checkpoint does not exist or its
   * stored digest is no longer `expectedDigest`. Rewriting with the bytes already stored is a no-op.
   */
  rewrite(checkpoint: RewriteCheckpoint): Promise<void>;
  /**
   * File journal entries against checkpoint `seq` of an instance. Idempotent by (taskId, index): a
   * repeated entry is ignored. A checkpoint that does not exist → `ConflictError`.
   */
  putWrites(instanceId: string, seq: number, writes: PendingWrite[]): Promise<void>;
  /** The latest checkpoint (or the one at `seq`) with its writes; undefined when missing. */
  get(instanceId: string, seq?: number): Promise<StoredCheckpoint | undefined>;
  /** An instance's checkpoints, oldest first, each with its writes. */
  list(instanceId: string, options?: ListOptions): Promise<StoredCheckpoint[]>;
  /** Remove an instance with all its checkpoints and writes; a missing instance is a no-op. */
  delete(instanceId: string): Promise<void>;
  /** Discover instances by what `put` indexed, ids ascending. */
  instances(query?: InstanceQuery): Promise<InstanceSummary[]>;
  /** Record a deployment; idempotent by digest (returns the existing one). Assigns the version. */
  putDeployment(deployment: DeploymentInput): Promise<Deployment>;
  getDeployment(digest: string): Promise<Deployment | undefined>;
  /** Deployments oldest first, optionally of one definition id. */
  deployments(definitionId?: string): Promise<Deployment[]>;
  /** Release connections and handles; further calls fail. */
  close(): Promise<void>;
}
