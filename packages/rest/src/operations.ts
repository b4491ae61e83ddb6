import type { Operation } from './operation.js';
import { batchOperations } from './ops/batch-operations.js';
import { clusterOperations } from './ops/cluster.js';
import { decisionSearchOperations } from './ops/decision-searches.js';
import { decisionOperations } from './ops/decisions.js';
import { deploymentOperations } from './ops/deployments.js';
import { documentOperations } from './ops/documents.js';
import { effectiveVariableOperations } from './ops/effective-variables.js';
import { elementInstanceOperations } from './ops/element-instances.js';
import { incidentOperations } from './ops/incidents.js';
import { jobOperations } from './ops/jobs.js';
import { messageOperations } from './ops/messages.js';
import { modificationOperations } from './ops/modification.js';
import { processDefinitionOperations } from './ops/process-definitions.js';
import { processInstanceReadOperations } from './ops/process-instance-reads.js';
import { processInstanceOperations } from './ops/process-instances.js';
import { resourceOperations } from './ops/resources.js';
import { searchOperations } from './ops/searches.js';
import { statisticsOperations } from './ops/statistics.js';
import { userTaskOperations } from './ops/user-tasks.js';
import { Problem, ProblemKind } from './problem.js';
import { SPEC_OPERATIONS, type SpecOperation } from './spec-operations.js';

/** How an operation Thresher does not serve yet is answered, and which issue brings it. */
export interface NotServed {
  reason: 'identity' | 'pending';
  detail: string;
}

/** Identity, tenants and authorizations: Thresher has none of them yet. */
const IDENTITY_TAGS = new Set([
  'Authentication',
  'Authorization',
  'Group',
  'Mapping rule',
  'Role',
  'Setup',
  'Tenant',
  'User',
]);

/** Every operation served, by operation id. */
export const SERVED: Readonly<Record<string, Operation>> = {
  ...batchOperations,
  ...clusterOperations,
  ...decisionOperations,
  ...decisionSearchOperations,
  ...deploymentOperations,
  ...documentOperations,
  ...effectiveVariableOperations,
  ...elementInstanceOperations,
  ...incidentOperations,
  ...jobOperations,
  ...messageOperations,
  ...modificationOperations,
  ...processDefinitionOperations,
  ...processInstanceOperations,
  ...processInstanceReadOperations,
  ...resourceOperations,
  ...searchOperations,
  ...statisticsOperations,
  ...userTaskOperations,
};

/** Why an operation of the spec is not served, or undefined when it is. */
export function notServed(operation: SpecOperation): NotServed | undefined {
  if (SERVED[operation.id] !== undefined) return undefined;
  if (IDENTITY_TAGS.has(operation.tag)) {
    return {
      reason: 'identity',
      detail: `${operation.id} is not served: Thresher has no identity, tenants or authorizations yet`,
    };
  }
  return { reason: 'pending', detail: `${operation.id} is not served yet` };
}

/** The operation to run for a routed spec operation; a 501 problem when Thresher does not serve it. */
export function operationOf(operation: SpecOperation): Operation {
  const served = SERVED[operation.id];
  if (served !== undefined) return served;
  throw new Problem(ProblemKind.NotImplemented, notServed(operation)!.detail);
}

/** The operations of the spec and how each is answered, in the spec's order: the compatibility table's rows. */
export function compatibility(): Array<{ operation: SpecOperation; notServed: NotServed | undefined }> {
  return SPEC_OPERATIONS.map((operation) => ({ operation, notServed: notServed(operation) }));
}
