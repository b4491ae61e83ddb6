/**
 * @module @thresher/engine
 *
 * Thresher's durable BPMN 2.0 engine: compile a model, run instances whose every change is durable before
 * its effects, and restore them exactly where they were after a crash. Every name is listed here; the
 * compiled model's types are at `@thresher/engine/model`, the fixture harness is `@thresher/testing`.
 */

export type {
  Deployment,
  EvaluatedDecisionRecord,
  FlowEntry,
  HistoryEntry,
  IncidentRecord,
  InstanceQuery,
  InstanceStatus,
  InstanceSummary,
  Repository,
  ScopeRecord,
  StoredCheckpoint,
  SubscriptionRecord,
  TimerRecord,
  TrackRecord,
  UserTaskEvent,
  Variables,
} from '@thresher/checkpoint';
export type { DmnDefinitions } from '@thresher/dmn';
export type { EngineOptions, UserTaskFilter } from './api-types.js';
export type { Clock } from './common/clock.js';
export {
  AlreadyExistsError,
  BpmnError,
  EngineError,
  EngineErrorCode,
  EventListenerError,
  ExpressionError,
  IllegalTransitionError,
  InstanceHeldError,
  InvalidArgumentError,
  InvalidStateError,
  ModelError,
  type ModelIssue,
  NotFoundError,
  RestoreError,
  RollbackRefusedError,
} from './common/errors.js';
export type { EngineEvent, EngineEventType, EngineListener, EventBase, ListenerEventName } from './common/events.js';
export type {
  LiveTouchpoint,
  Touchpoint,
  TouchpointDirection,
  TouchpointKind,
  TouchpointMark,
  TouchpointProgress,
  TouchpointState,
  TouchpointVia,
} from './common/touchpoint-types.js';
export type { UserTaskDenial, UserTaskFieldsView } from './common/user-task-types.js';
export { type DecisionEvaluation, decide } from './core/jobs/decisions.js';
export { activationScope } from './core/step/event-ids.js';
export { Engine } from './engine.js';
export type { ModelWarning } from './model/types.js';
export { answerQuestion, type OperatorRun, type OperatorRunOptions, runWithOperator } from './operator.js';
export { systemClock } from './runtime/base/clock.js';
export { ownerGone } from './runtime/base/owners.js';
export type { JobWait, RetryWait, SettledOptions, SettledState } from './runtime/base/settled-types.js';
export type {
  AdHocView,
  CallView,
  CorrelateOptions,
  CorrelateResult,
  DecisionEvaluationView,
  DecisionOutcome,
  DeployedDecision,
  DeployResult,
  ElementInstanceView,
  Handler,
  Handlers,
  InstanceView,
  Job,
  LoopingView,
  OpenJobView,
  RecoverReport,
  RollbackResult,
  SignalOptions,
  StartOptions,
  SubscriptionView,
  TaskListenerJobTask,
  TaskListenerResult,
  UserTaskChanges,
  UserTaskView,
  WorkerCounts,
  WorkerOptions,
} from './runtime/base/types.js';
export { deploymentKind } from './runtime/deployments/definitions.js';
export { deletedDigests, liveDeployments } from './runtime/deployments/deletions.js';
export type { EventsQuery, LoggedEvent } from './runtime/document/event-log.js';
export type { EventReader } from './runtime/document/event-readers.js';
export { type CheckpointContents, inspectCheckpoint } from './runtime/document/inspect.js';
export type { RetentionOptions } from './runtime/document/retention.js';
export type {
  ActivatedJob,
  ActivateJobsOptions,
  FailJobOptions,
  ThrowJobErrorOptions,
  UpdateJobOptions,
} from './runtime/jobs/job-types.js';
export type { SetVariablesOptions } from './runtime/parts/commands.js';
export type { ConditionalStart, EvaluateConditionalsOptions } from './runtime/parts/conditional-starts.js';
export { isDmn, readDmn } from './runtime/parts/deploy-dmn.js';
export type { MigrateInstructions } from './runtime/parts/migrate.js';
export type { ModifyInstructions } from './runtime/parts/modify.js';
export type { Worker } from './runtime/parts/worker.js';
export { DurationError, parseDuration } from './timers/duration.js';
export { timerStartInstanceId, timerStartInstancePrefix } from './timers/occurrences.js';
export { type UserTaskChoices, userTaskChoices } from './touchpoints/choices.js';
export { type TouchpointDeclaration, touchpointOf } from './touchpoints/declaration.js';
export { type ProcessPlan, processPlan, touchpoints } from './touchpoints/plan.js';
export type {
  ChoiceOption,
  ChoiceSource,
  Operator,
  OperatorAnswer,
  OperatorQuestion,
  TouchpointListOptions,
} from './touchpoints/types.js';
