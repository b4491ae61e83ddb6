/** Marks Thresher checkpoint errors so `instanceof`-like checks survive duplicate package copies. */
const CHECKPOINT_ERROR = Symbol.for('thresher.checkpoint.error');

/** Stable error codes of `@thresher/checkpoint`; branch on these, not on messages. */
export const CheckpointErrorCode = {
  Corrupt: 'THRESHER_CORRUPT_CHECKPOINT',
  CorruptLog: 'THRESHER_CORRUPT_LOG',
  FutureSchema: 'THRESHER_FUTURE_SCHEMA',
  Conflict: 'THRESHER_CONFLICT',
  LeaseLost: 'THRESHER_LEASE_LOST',
  NotFound: 'THRESHER_NOT_FOUND',
  Encoding: 'THRESHER_UNENCODABLE_VALUE',
  StaleReceipt: 'THRESHER_STALE_RECEIPT',
  Store: 'THRESHER_STORE',
  LimitExceeded: 'THRESHER_LIMIT_EXCEEDED',
  ParentLink: 'THRESHER_PARENT_LINK',
  StoreUpgraded: 'THRESHER_STORE_UPGRADED',
  StaleDeployments: 'THRESHER_STALE_DEPLOYMENTS',
} as const;
export type CheckpointErrorCode = (typeof CheckpointErrorCode)[keyof typeof CheckpointErrorCode];

/** Base class of every error raised by the checkpoint document or a repository. */
export class CheckpointError extends Error {
  readonly [CHECKPOINT_ERROR] = true;
  readonly code: CheckpointErrorCode;
  /** Whether retrying the same call may succeed (a transient store fault) or never will. */
  readonly retryable: boolean;

  constructor(code: CheckpointErrorCode, message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(`${code}: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options?.retryable ?? false;
  }

  static is(value: unknown): value is CheckpointError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[CHECKPOINT_ERROR] === true;
  }
}

/** A stored document whose bytes do not decode, whose digest does not match, or whose body is malformed. */
export class CorruptCheckpointError extends CheckpointError {
  constructor(
    readonly instanceId: string,
    readonly seq: number | undefined,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      CheckpointErrorCode.Corrupt,
      `checkpoint of instance ${instanceId} at seq ${seq ?? '?'} is corrupt: ${reason}`,
      options,
    );
  }
}

/** A stored log entry (`StepLog`) whose bytes do not decode, whose digest does not match, or that is malformed. */
export class CorruptLogError extends CheckpointError {
  constructor(
    readonly instanceId: string,
    readonly seq: number | undefined,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      CheckpointErrorCode.CorruptLog,
      `log entry of instance ${instanceId} at seq ${seq ?? '?'} is corrupt: ${reason}`,
      options,
    );
  }
}

/** A document written by a newer Thresher than this build; nothing of it is restored. */
export class FutureSchemaError extends CheckpointError {
  constructor(
    readonly instanceId: string,
    readonly schema: number,
    readonly supported: number,
  ) {
    super(
      CheckpointErrorCode.FutureSchema,
      `checkpoint of instance ${instanceId} has schema ${schema}, but this build supports at most ${supported}; upgrade Thresher to restore it`,
    );
  }
}

/** A write that lost a race: its parent is not the instance's latest checkpoint, or the same seq holds other bytes. */
export class ConflictError extends CheckpointError {
  constructor(
    readonly instanceId: string,
    readonly seq: number,
    reason: string,
  ) {
    super(CheckpointErrorCode.Conflict, `conflicting write to instance ${instanceId} at seq ${seq}: ${reason}`);
  }
}

/**
 * A write or renewal refused because its lease is not (or no longer) the instance's held lease: it was
 * released or taken over by another owner, or the instance was never claimed; or a write without a fence
 * while another owner holds the lease. Not retryable: claim the instance again and reload it first.
 */
export class LeaseLostError extends CheckpointError {
  constructor(
    readonly instanceId: string,
    /** The owner the refused call was made for; null for a write without a fence. */
    readonly owner: string | null,
    /** The fencing token the refused call carried; null for a write without a fence. */
    readonly token: number | null,
    reason: string,
  ) {
    super(
      CheckpointErrorCode.LeaseLost,
      owner === null
        ? `unfenced write to instance ${instanceId} refused: ${reason}`
        : `the lease of owner ${JSON.stringify(owner)} (token ${token}) on instance ${instanceId} is lost: ${reason}; claim the instance again and reload it`,
    );
  }
}

/** An operation that needs an instance the store does not have (the source of a `copy`). */
export class NotFoundError extends CheckpointError {
  constructor(
    readonly instanceId: string,
    reason: string,
  ) {
    super(CheckpointErrorCode.NotFound, `instance ${instanceId} was not found: ${reason}`);
  }
}

/**
 * A journal entry that must not be applied: its result does not match its receipt (tampering), or its
 * receipt's identity is not what the pinned definition and the job's inputs derive (a reused step).
 */
export class StaleReceiptError extends CheckpointError {
  constructor(
    readonly instanceId: string,
    readonly jobId: string,
    readonly nodeId: string | null,
    reason: string,
  ) {
    super(
      CheckpointErrorCode.StaleReceipt,
      `journal entry of step ${jobId}${nodeId ? ` ("${nodeId}")` : ''} in instance ${instanceId} is refused: ${reason}`,
    );
  }
}

/** A value that cannot be stored faithfully (a function, a symbol, a cycle, a class instance); named by its path. */
export class UnencodableValueError extends CheckpointError {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(CheckpointErrorCode.Encoding, `cannot store the value at ${path}: ${reason}`);
  }
}

/**
 * A value past a limit the repository contract declares (`MAX_TEXT_BYTES` for text, `MAX_DOCUMENT_BYTES` for
 * documents, journal values, message variables and deployment XML), refused identically by every store
 * before anything is written. Not retryable: the same value is always refused.
 */
export class LimitExceededError extends CheckpointError {
  constructor(
    /** The field, as a path into the call's arguments: `meta.businessKey`, `writes[2].value`, ... */
    readonly path: string,
    /** Its size: UTF-8 bytes for text, bytes for a byte array. */
    readonly length: number,
    /** The limit it is over, in the same unit. */
    readonly limit: number,
    /** The name of the exported constant that declares the limit, e.g. `MAX_TEXT_BYTES`. */
    readonly limitName: string,
  ) {
    super(
      CheckpointErrorCode.LimitExceeded,
      `cannot store the value at ${path}: it is ${length} bytes long${limitName === 'MAX_TEXT_BYTES' ? ' in UTF-8' : ''}, over the limit of ${limit} (${limitName})`,
    );
  }
}

/**
 * A `put` whose parent link is not whole: `parentId` without `callNodeId` or the reverse, an instance named as
 * its own parent, or a parent that is not stored when the link is made. Discovery of called children
 * (`instances({ parentId })`) depends on these links.
 */
export class ParentLinkError extends CheckpointError {
  constructor(
    readonly instanceId: string,
    /** The field at fault: `meta.parentId` or `meta.callNodeId`. */
    readonly path: 'meta.parentId' | 'meta.callNodeId',
    reason: string,
  ) {
    super(CheckpointErrorCode.ParentLink, `put of instance ${instanceId} refused: ${path} ${reason}`);
  }
}

/**
 * A write refused because a newer Thresher migrated the store while this process was running: the store's
 * schema is now one this build does not know, so anything it writes could break what the newer build relies
 * on. Not retryable: stop the process and run the newer build.
 */
export class StoreUpgradedError extends CheckpointError {
  constructor(
    /** The store as the message names it, e.g. `the SQLite database /srv/thresher.db`. */
    readonly where: string,
    /** The schema version the store records now. */
    readonly schema: number,
    /** The newest schema version this build knows. */
    readonly supported: number,
  ) {
    super(
      CheckpointErrorCode.StoreUpgraded,
      `${where} was migrated to schema ${schema} by a newer Thresher; this process knows schema ${supported} ` +
        'and must stop (run the newer build)',
    );
  }
}

/**
 * An instance's first put refused because the store holds more deployments than the writer had read when it
 * chose the instance's deployment (`PutCheckpoint.deploymentsSeen`): one deployed since may be a later version
 * of the process. Nothing is stored. Read the deployments again and choose again; the engine does so itself.
 */
export class StaleDeploymentsError extends CheckpointError {
  constructor(
    readonly instanceId: string,
    /** How many deployments the writer had read. */
    readonly seen: number,
    /** How many the store holds. */
    readonly stored: number,
  ) {
    super(
      CheckpointErrorCode.StaleDeployments,
      `first put of instance ${instanceId} refused: its deployment was chosen among ${seen} deployments, ` +
        `and the store now holds ${stored}; read them again and choose the latest`,
    );
  }
}
