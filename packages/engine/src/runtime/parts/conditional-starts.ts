/**
 * A process's conditional start events (Camunda 8.9): nothing inside the engine changes the variables of an
 * instance that does not exist yet, so, as in Zeebe, they are evaluated when asked — `evaluateConditionals`
 * with the variables to evaluate them on — over the latest deployed version of each process, and every start
 * event whose condition holds starts an instance with those variables.
 *
 * @module
 */
import type { Deployment, Variables } from '@thresher/checkpoint';
import { evaluateCondition } from '../../common/feel.js';
import type { ProcessDef } from '../../model/process-types.js';
import { liveDeployments } from '../deployments/deletions.js';
import type { EngineParts } from './engine-parts.js';
import { startInstance } from './starts.js';

export interface EvaluateConditionalsOptions {
  /** What the conditions read; the instances started get them as their variables. */
  variables: Variables;
  /** Only this process's conditional start events (the latest deployed version). */
  processId?: string;
}

/** An instance a conditional start event started. */
export interface ConditionalStart {
  processId: string;
  startEventId: string;
  instanceId: string;
}

/**
 * Evaluate the conditional start events of the latest version of each deployed process on `variables`,
 * starting an instance at each that holds. A condition that fails, or is neither true nor false, throws its `ExpressionError` and nothing
 * is started: a caller learns of a broken model at once, not by an instance that never comes.
 */
export async function evaluateConditionals(
  parts: EngineParts,
  options: EvaluateConditionalsOptions,
): Promise<ConditionalStart[]> {
  const latest = new Map<string, ProcessDef>();
  const deploymentOf = new Map<ProcessDef, Deployment>();
  for (const deployment of liveDeployments(await parts.repository.deployments())) {
    const { model } = await parts.definitions.from(deployment);
    for (const process of model.processes.values()) {
      if (!process.executable) continue;
      latest.set(process.id, process);
      deploymentOf.set(process, deployment);
    }
  }
  const due: { process: ProcessDef; startNode: string }[] = [];
  for (const process of latest.values()) {
    if (options.processId !== undefined && process.id !== options.processId) continue;
    for (const id of process.eventStartNodes ?? []) {
      const node = process.nodes.get(id);
      if (node?.type !== 'startEvent' || node.event?.kind !== 'conditional') continue;
      if (evaluateCondition(node.event.condition, options.variables, parts.clock.now())) {
        due.push({ process, startNode: id });
      }
    }
  }
  const started: ConditionalStart[] = [];
  for (const { process, startNode } of due) {
    const instanceId = await startInstance(parts, deploymentOf.get(process)!, process, startNode, {
      ...options.variables,
    });
    started.push({ processId: process.id, startEventId: startNode, instanceId });
  }
  return started;
}
