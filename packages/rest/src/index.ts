/**
 * @module @thresher/rest
 *
 * Camunda 8.8's Orchestration Cluster REST API on a Thresher engine: a Node handler to mount in an app, and a
 * server (`thresher serve`). Which operations are served, and how each differs from Camunda's, is
 * `compatibility()` and the package README.
 */
export type { Clock, Engine } from '@thresher/engine';
export {
  type Authenticator,
  type BearerOptions,
  basicAuthenticator,
  bearerAuthenticator,
  hashPassword,
  readUsers,
} from './auth.js';
export { startBatch } from './batch/create.js';
export {
  type BatchRead,
  type BatchRecord,
  type BatchSpec,
  type BatchState,
  type BatchType,
  type ItemRecord,
  type ItemState,
  readBatch,
} from './batch/records.js';
export { BatchRunner, type BatchRunnerOptions } from './batch/runner.js';
export { BatchList } from './batch-list.js';
export { PinnableClock } from './clock.js';
export { type DocumentMetadata, DocumentStore, type StoredDocument } from './documents.js';
export { type CamundaRestHandler, type CamundaRestOptions, createCamundaRestHandler } from './handler.js';
export {
  type IncidentGroup,
  IncidentList,
  type IncidentListItem,
  type IncidentListQuery,
} from './incident-list.js';
export { compatibility, type NotServed } from './operations.js';
export { Problem, type ProblemDetail, ProblemKind } from './problem.js';
export { SearchProjection, type SearchProjectionOptions } from './projection/search-projection.js';
export {
  type CamundaRestServer,
  type CamundaRestServerOptions,
  isLoopback,
  type Mount,
  startCamundaRestServer,
} from './server.js';
export type { SpecOperation } from './spec-operations.js';
export { TaskList, type TaskListItem, type TaskListPage, type TaskListQuery } from './task-list.js';
