/**
 * @module @thresher/checkpoint
 *
 * The durable document of one Thresher instance at one seq: its records, the canonical value codec,
 * digests, step identities and result receipts, the schema chain, the `Repository` contract every store
 * implements, and an in-memory repository. For Repository implementations (last section below): the rules
 * every store applies inside its transactions, and what the SQL stores share.
 */

export { emptyCheckpointBody } from './body.js';
export { canonicalBytes, canonicalJson, decodeValue, encodeValue, fromCanonicalBytes } from './codec.js';
export { digestValue, domainDigest, sha256 } from './digest.js';
export type { StoredAt, UnsealedCheckpoint } from './document.js';
export { CURRENT_SCHEMA, checkpointDigest, openCheckpoint, sealCheckpoint } from './document.js';
export {
  CheckpointError,
  CheckpointErrorCode,
  ConflictError,
  CorruptCheckpointError,
  FutureSchemaError,
  LeaseLostError,
  LimitExceededError,
  NotFoundError,
  ParentLinkError,
  StaleDeploymentsError,
  StaleReceiptError,
  StoreUpgradedError,
  UnencodableValueError,
} from './errors.js';
export type { StepIdentityInput } from './identity.js';
export {
  digestInputs,
  receiptMatches,
  resultReceipt,
  STEP_IDENTITY_DOMAIN,
  STEP_INPUT_DOMAIN,
  STEP_RESULT_DOMAIN,
  stepIdentity,
} from './identity.js';
export type { JournalEntryAt } from './journal.js';
export { decodeJournalEntry, encodeJournalEntry } from './journal.js';
export { createMemoryRepository } from './memory-repository.js';
export type { MigrationFailure, MigrationReport } from './migrate-store.js';
export { migrateRepository } from './migrate-store.js';
export { MIGRATIONS, schema1to2, schema2to3, schema3to4, schema4to5, schema5to6 } from './migrations.js';
export type {
  BufferedMessage,
  ClaimOptions,
  Deployment,
  DeploymentInput,
  DueTimer,
  Fence,
  InstanceMeta,
  InstanceQuery,
  InstanceSummary,
  Lease,
  ListOptions,
  MessageSubscription,
  PendingWrite,
  PruneOptions,
  PutCheckpoint,
  PutClaim,
  ReadOrder,
  Repository,
  RewriteCheckpoint,
  StoredCheckpoint,
} from './repository.js';
export type * from './types.js';
export { InstanceStatus } from './types.js';

// ---------------------------------------------------------------------------------------------------------
// For Repository implementations: what every store refuses before it reads (input-rules.ts), the rules every
// store applies inside its transactions (put-rules.ts), and what the SQL stores share (sql-store-kit.ts): row
// shapes and their mapping, schema refusal.
// ---------------------------------------------------------------------------------------------------------

export {
  checkBytes,
  checkClaimArguments,
  checkDeploymentArguments,
  checkMessage,
  checkPutArguments,
  checkRewriteArguments,
  checkText,
  checkWritesArguments,
  distinctStorableIds,
  isStorableText,
  LONE_SURROGATE,
  MAX_DOCUMENT_BYTES,
  MAX_TEXT_BYTES,
  utf8Length,
} from './input-rules.js';
export type { HeldLease } from './put-rules.js';
export {
  checkDeploymentsSeen,
  checkFence,
  checkKeepLast,
  checkLeaseArguments,
  checkMessageClock,
  checkParentStored,
  checkRenew,
  checkWritesTarget,
  compareCodePoints,
  decideCopy,
  decidePut,
  decideRewrite,
  equalBytes,
  isClaimable,
  parentToCheck,
  pickMessage,
  planWrites,
} from './put-rules.js';
export type { HistoryRange, InstancePage } from './read-rules.js';
export { checkPageSize, checkReadOrder, historyRange, instancePage, rootIdOf, storableFilters } from './read-rules.js';
export type {
  CheckpointRow,
  CheckpointWithWriteRow,
  DeploymentRow,
  DueTimerRow,
  InstanceRow,
  Int8Column,
  MessageRow,
  SchemaMigration,
  WriteRow,
} from './sql-store-kit.js';
export {
  assertKnownStoreSchema,
  assertStoreNotUpgraded,
  CHECKPOINT_COLUMNS,
  checkpointColumnsOf,
  newDeployment,
  shownOption,
  toBufferedMessage,
  toBytes,
  toDeployment,
  toDueTimer,
  toInstanceSummary,
  toStoredCheckpoint,
  toStoredCheckpointFromJoined,
  toStoredCheckpoints,
  toStoredCheckpointsFromJoined,
} from './sql-store-kit.js';
