/**
 * @module @thresher/checkpoint
 *
 * The durable document of one Thresher instance at one seq: its records, the canonical value codec,
 * digests, step identities and result receipts, the schema chain (every migration up to `CURRENT_SCHEMA`), the
 * `Repository` contract every store implements with its limits and text rule, and an in-memory repository. What only store implementations
 * need (the rules every store applies inside its calls, and what the SQL stores share) is
 * `@thresher/checkpoint/store-kit`.
 */

export { emptyCheckpointBody } from './body.js';
export type {
  CallOutboxEntry,
  CallOutcome,
  CheckpointBody,
  CheckpointDocument,
  ConditionRecord,
  DecisionRecord,
  EvaluatedDecisionRecord,
  HistoryEntry,
  IncidentRecord,
  JournalEntry,
  OutboxEntry,
  PackedTrack,
  PackedUserTask,
  PastRecords,
  ResultReceipt,
  StepEvent,
  SubscriptionRecord,
  TimerRecord,
  TouchpointRecord,
  WaitOwner,
} from './body-records.js';
export { canonicalBytes, canonicalJson, decodeValue, encodeValue, fromCanonicalBytes } from './codec.js';
export { digestValue, domainDigest, sha256 } from './digest.js';
export type { StoredAt, UnsealedCheckpoint } from './document.js';
export { CURRENT_SCHEMA, checkpointDigest, openCheckpoint, sealCheckpoint } from './document.js';
export { checkEncodable } from './encode-value.js';
export {
  CheckpointError,
  CheckpointErrorCode,
  ConflictError,
  CorruptCheckpointError,
  CorruptLogError,
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
export {
  MIGRATIONS,
  type Migration,
  schema1to2,
  schema2to3,
  schema3to4,
  schema4to5,
  schema5to6,
  schema6to7,
  schema7to8,
  schema8to9,
  schema9to10,
  schema10to11,
  schema11to12,
  schema12to13,
  schema13to14,
} from './migrations.js';
export { MAX_INSTANCE_IDS } from './read-rules.js';
export type { Repository } from './repository.js';
export type {
  BufferedMessage,
  ClaimOptions,
  Deployment,
  DeploymentInput,
  DueTimer,
  ExpireOptions,
  Fence,
  HistoryQuery,
  InstanceMeta,
  InstanceQuery,
  InstanceSummary,
  JobActivation,
  JobLock,
  JobOffer,
  Lease,
  ListOptions,
  LogEntry,
  LogReader,
  MessageSubscription,
  PendingWrite,
  PruneOptions,
  PutCheckpoint,
  PutClaim,
  ReadOrder,
  RewriteCheckpoint,
  StoredCheckpoint,
} from './repository-types.js';
export type {
  RowBatch,
  RowCondition,
  RowPage,
  RowSearch,
  RowSort,
  RowType,
  RowValue,
  SearchRow,
} from './search-rows.js';
export { MAX_ROW_LIMIT } from './search-rows.js';
export type { FlowEntry, StepLog, UnsealedStepLog } from './step-log.js';
export { openStepLog, STEP_LOG_SCHEMA, sealStepLog } from './step-log.js';
export type {
  DefinitionRef,
  HeldThen,
  InstanceRecord,
  JobRecord,
  LedgerEntry,
  ListenerPosition,
  LoopRecord,
  ScopeRecord,
  SweepRecord,
  TrackRecord,
  TrackWait,
  UserTaskEvent,
  UserTaskFields,
  UserTaskRecord,
  UserTaskTransition,
  Value,
  Variables,
} from './types.js';
export { InstanceStatus } from './types.js';
export type { Encoded } from './value-tags.js';

// ---------------------------------------------------------------------------------------------------------
// The contract's limits and its text rule (input-rules.ts): what every store refuses, so a caller can check
// a value before it reaches one. The rest of what stores apply is @thresher/checkpoint/store-kit.
// ---------------------------------------------------------------------------------------------------------

export {
  checkText,
  isStorableText,
  LONE_SURROGATE,
  MAX_DOCUMENT_BYTES,
  MAX_TEXT_BYTES,
  utf8Length,
} from './input-rules.js';
