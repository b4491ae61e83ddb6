/**
 * Compiles one flow node (everything but a sub-process, which `container.ts` recurses into) and
 * refuses, by name, every element or feature Thresher does not compile. What the runtime does not
 * execute yet is refused later, in one place (`support.ts`).
 *
 * @module
 */

import { businessRuleTask, CALLED_DECISION } from './business-rule.js';
import { callActivity } from './calls.js';
import type { EventContext } from './event-definitions.js';
import {
  boundaryEvent,
  catchEvent,
  endEvent,
  eventBasedGateway,
  isMessageThrow,
  receiveTask,
  startEvent,
  throwEvent,
} from './event-nodes.js';
import {
  compileExpression,
  compileRequiredExpression,
  compileValue,
  isExpressionText,
  staticList,
} from './expression.js';
import { readExtensions, readHeaders, readIoMapping } from './extensions.js';
import type { JobDefinition, NodeFrame } from './frames.js';
import type { IssueCollector } from './issues.js';
import { readJobValues } from './job-values.js';
import { LISTENERS_EXTENSION } from './listeners.js';
import { child, idOf, type ModdleElement, str } from './moddle.js';
import type { GatewayNode, Node, UserTaskNode } from './node-types.js';
import { readTaskListeners } from './task-listeners.js';
import { TOUCHPOINT_EXTENSION } from './touchpoint-mark.js';
import { NodeType } from './types.js';
import { readUserTaskForm } from './user-task-form.js';
import { readSchedule } from './user-task-schedule.js';

/** BPMN types Thresher executes, mapped to the node type they compile to. */
const SUPPORTED: Readonly<Record<string, NodeType>> = {
  'bpmn:StartEvent': NodeType.StartEvent,
  'bpmn:EndEvent': NodeType.EndEvent,
  'bpmn:Task': NodeType.Task,
  'bpmn:ManualTask': NodeType.ManualTask,
  'bpmn:ServiceTask': NodeType.ServiceTask,
  'bpmn:ScriptTask': NodeType.ScriptTask,
  'bpmn:UserTask': NodeType.UserTask,
  'bpmn:ExclusiveGateway': NodeType.ExclusiveGateway,
  'bpmn:ParallelGateway': NodeType.ParallelGateway,
  'bpmn:InclusiveGateway': NodeType.InclusiveGateway,
  'bpmn:SubProcess': NodeType.SubProcess,
  'bpmn:Transaction': NodeType.SubProcess,
  'bpmn:AdHocSubProcess': NodeType.SubProcess,
  'bpmn:IntermediateCatchEvent': NodeType.IntermediateCatchEvent,
  'bpmn:IntermediateThrowEvent': NodeType.IntermediateThrowEvent,
  'bpmn:BoundaryEvent': NodeType.BoundaryEvent,
  'bpmn:ReceiveTask': NodeType.ReceiveTask,
  'bpmn:SendTask': NodeType.SendTask,
  'bpmn:EventBasedGateway': NodeType.EventBasedGateway,
  'bpmn:CallActivity': NodeType.CallActivity,
  'bpmn:BusinessRuleTask': NodeType.BusinessRuleTask,
};

/** Flow elements that carry data or documentation only: accepted and not executed. */
export const DATA_ELEMENTS: ReadonlySet<string> = new Set([
  'bpmn:DataObject',
  'bpmn:DataObjectReference',
  'bpmn:DataStoreReference',
]);

/**
 * Why Thresher cannot compile this flow node, or null when it can. Covers unsupported types,
 * compensation and token quantities, so that nothing is ever dropped silently (event definitions are
 * checked, kind by kind, when the event compiles; loop characteristics by `loops.ts`).
 */
export function unsupportedReason(element: ModdleElement): string | null {
  const type = element.$type;
  if (!(type in SUPPORTED)) return `${type} is not supported yet`;
  if (element.$instanceOf('bpmn:Activity')) {
    for (const quantity of ['startQuantity', 'completionQuantity']) {
      const value = element[quantity];
      if (value !== undefined && value !== 1) return `${quantity}="${String(value)}" is not supported yet`;
    }
    if (child(element, 'default')) return `a default flow out of ${type} is not supported yet`;
  }
  return null;
}

/**
 * The extension elements each element type reads (flow nodes, and an activity's loop characteristics);
 * any other Zeebe behaviour on it refuses the model.
 */
export function usedExtensions(element: ModdleElement): readonly string[] {
  switch (element.$type) {
    case 'bpmn:MultiInstanceLoopCharacteristics':
      return ['zeebe:LoopCharacteristics'];
    case 'bpmn:StandardLoopCharacteristics':
      return [];
    default:
      // Every flow node may carry a touchpoint mark and execution listeners (`touchpoint-mark.ts` and
      // `listeners.ts` read them once the node is compiled).
      return [...nodeExtensions(element), TOUCHPOINT_EXTENSION, LISTENERS_EXTENSION];
  }
}

function nodeExtensions(element: ModdleElement): readonly string[] {
  switch (element.$type) {
    case 'bpmn:StartEvent':
      return hasStartForm(element) ? ['zeebe:FormDefinition', 'zeebe:IoMapping'] : ['zeebe:IoMapping'];
    case 'bpmn:CallActivity':
      return ['zeebe:CalledElement', 'zeebe:IoMapping'];
    case 'bpmn:ServiceTask':
    case 'bpmn:SendTask':
      return JOB_EXTENSIONS;
    case 'bpmn:EndEvent':
    case 'bpmn:IntermediateThrowEvent':
      return isMessageThrow(element) ? JOB_EXTENSIONS : ['zeebe:IoMapping'];
    case 'bpmn:ScriptTask':
      return ['zeebe:Script', 'zeebe:IoMapping'];
    case 'bpmn:BusinessRuleTask':
      return [CALLED_DECISION, ...JOB_EXTENSIONS];
    case 'bpmn:UserTask':
      return [
        'zeebe:AssignmentDefinition',
        'zeebe:IoMapping',
        'zeebe:TaskHeaders',
        'zeebe:FormDefinition',
        'zeebe:TaskSchedule',
        'zeebe:PriorityDefinition',
        'zeebe:TaskListeners',
      ];
    case 'bpmn:ExclusiveGateway':
    case 'bpmn:ParallelGateway':
    case 'bpmn:InclusiveGateway':
    case 'bpmn:EventBasedGateway':
      return [];
    default:
      return ['zeebe:IoMapping'];
  }
}

const JOB_EXTENSIONS: readonly string[] = ['zeebe:TaskDefinition', 'zeebe:TaskHeaders', 'zeebe:IoMapping'];

/**
 * Compiles a supported flow node other than a sub-process (check `unsupportedReason` first).
 *
 * @returns the node, or null when an issue was recorded.
 */
export function compileNode(element: ModdleElement, frame: NodeFrame, context: EventContext): Node | null {
  const { issues } = context;
  const extensions = readExtensions(element, usedExtensions(element), issues);
  frame.io = readIoMapping(element, extensions.get('zeebe:IoMapping'), issues);
  const job = () => jobDefinition(element, frame, extensions, issues);
  switch (element.$type) {
    case 'bpmn:StartEvent':
      return withStartForm(element, startEvent(element, frame, context), extensions, issues);
    case 'bpmn:EndEvent':
      return endEvent(element, frame, context, isMessageThrow(element) ? job() : null);
    case 'bpmn:IntermediateCatchEvent':
      return catchEvent(element, frame, context);
    case 'bpmn:IntermediateThrowEvent':
      return throwEvent(element, frame, context, isMessageThrow(element) ? job() : null);
    case 'bpmn:BoundaryEvent':
      return boundaryEvent(element, frame, context);
    case 'bpmn:ReceiveTask':
      return receiveTask(element, frame, context);
    case 'bpmn:SendTask': {
      const definition = job();
      return definition ? { ...frame, type: NodeType.SendTask, ...definition } : null;
    }
    case 'bpmn:EventBasedGateway':
      return eventBasedGateway(element, frame, context);
    case 'bpmn:Task':
      return { ...frame, type: NodeType.Task };
    case 'bpmn:ManualTask':
      return { ...frame, type: NodeType.ManualTask };
    case 'bpmn:ServiceTask': {
      const definition = job();
      return definition ? { ...frame, type: NodeType.ServiceTask, ...definition } : null;
    }
    case 'bpmn:BusinessRuleTask': {
      const asJob = () => {
        const definition = job();
        return definition ? { ...frame, type: NodeType.BusinessRuleTask, ...definition } : null;
      };
      return businessRuleTask(element, frame, extensions, asJob, issues);
    }
    case 'bpmn:ScriptTask':
      return scriptTask(element, frame, extensions.get('zeebe:Script'), issues);
    case 'bpmn:UserTask':
      return userTask(element, frame, extensions, issues);
    case 'bpmn:CallActivity':
      return callActivity(element, frame, extensions, issues);
    case 'bpmn:ExclusiveGateway':
    case 'bpmn:ParallelGateway':
    case 'bpmn:InclusiveGateway':
      return gateway(element, frame);
    default:
      issues.error(element, `${element.$type} is not supported yet`);
      return null;
  }
}

/**
 * Reads `zeebe:taskDefinition` and `zeebe:taskHeaders`, or null when an issue was recorded. A type or
 * retries given as `=expr` is evaluated when the job is created, as in Zeebe.
 */
function jobDefinition(
  element: ModdleElement,
  frame: NodeFrame,
  extensions: Map<string, ModdleElement>,
  issues: IssueCollector,
): JobDefinition | null {
  const definition = extensions.get('zeebe:TaskDefinition');
  const type = definition ? str(definition, 'type')?.trim() : undefined;
  const retries = definition ? str(definition, 'retries')?.trim() : undefined;
  const values = readJobValues(element, type || frame.id, retries, 'zeebe:taskDefinition', issues);
  return values ? { ...values, headers: readHeaders(extensions.get('zeebe:TaskHeaders')) } : null;
}

function scriptTask(
  element: ModdleElement,
  frame: NodeFrame,
  script: ModdleElement | undefined,
  issues: IssueCollector,
): Node | null {
  // A FEEL `bpmn:script` body stands in for zeebe:script's expression; other languages are refused.
  const format = str(element, 'scriptFormat');
  const body = format && /feel/i.test(format) ? str(element, 'script') : undefined;
  const raw = (script ? str(script, 'expression') : undefined) ?? body;
  const resultVariable = script ? str(script, 'resultVariable')?.trim() : undefined;
  let ok = true;
  if (raw === undefined || raw.trim() === '') {
    const why = format && !body ? ` (scriptFormat "${format}" is not FEEL)` : '';
    issues.error(element, `bpmn:ScriptTask needs a zeebe:script expression${why}`);
    ok = false;
  }
  if (!resultVariable) {
    issues.error(element, 'bpmn:ScriptTask needs a zeebe:script resultVariable');
    ok = false;
  }
  if (!ok || raw === undefined || !resultVariable) return null;
  // zeebe:script takes `=expr` (Zeebe refuses a static value there); a FEEL bpmn:script body is FEEL as it is.
  const expression = script
    ? compileRequiredExpression(raw, element, 'zeebe:script expression', issues)
    : compileExpression(raw, element, 'bpmn:script', issues);
  return expression ? { ...frame, type: NodeType.ScriptTask, expression, resultVariable } : null;
}

function userTask(
  element: ModdleElement,
  frame: NodeFrame,
  extensions: Map<string, ModdleElement>,
  issues: IssueCollector,
): Node | null {
  const assignment = extensions.get('zeebe:AssignmentDefinition');
  const raw = assignment ? str(assignment, 'assignee')?.trim() : undefined;
  const assignee = raw ? compileValue(raw, element, 'zeebe:assignmentDefinition assignee', issues) : null;
  if (raw && !assignee) return null;
  const node: UserTaskNode = { ...frame, type: NodeType.UserTask, assignee };
  for (const property of ['candidateGroups', 'candidateUsers'] as const) {
    const text = assignment ? str(assignment, property)?.trim() : undefined;
    if (!text) continue;
    const what = `zeebe:assignmentDefinition ${property}`;
    const list = isExpressionText(text) ? compileExpression(text, element, what, issues) : staticList(text, element);
    if (!list) return null;
    node[property] = list;
  }
  const headers = readHeaders(extensions.get('zeebe:TaskHeaders'));
  if (Object.keys(headers).length > 0) node.headers = headers;
  if (!readSchedule(element, node, extensions, issues)) return null;
  const listeners = extensions.get('zeebe:TaskListeners');
  if (listeners) {
    const taskListeners = readTaskListeners(element, listeners, issues);
    if (!taskListeners) return null;
    if (Object.keys(taskListeners).length > 0) node.taskListeners = taskListeners;
  }
  const definition = extensions.get('zeebe:FormDefinition');
  if (definition) {
    const form = readUserTaskForm(element, definition, issues);
    if (form === null) return null;
    if (form) node.form = form;
  }
  return node;
}

/** Whether a start event may carry a start form: a none start event of a process, as Zeebe has them. */
function hasStartForm(element: ModdleElement): boolean {
  const definitions = element.eventDefinitions;
  return element.$parent?.$type === 'bpmn:Process' && !(Array.isArray(definitions) && definitions.length > 0);
}

function withStartForm(
  element: ModdleElement,
  node: Node | null,
  extensions: Map<string, ModdleElement>,
  issues: IssueCollector,
): Node | null {
  const definition = extensions.get('zeebe:FormDefinition');
  if (node === null || node.type !== NodeType.StartEvent || definition === undefined) return node;
  const form = readUserTaskForm(element, definition, issues);
  if (form === null) return null;
  return form ? { ...node, form } : node;
}

function gateway(element: ModdleElement, frame: NodeFrame): GatewayNode {
  const type = SUPPORTED[element.$type] as GatewayNode['type'];
  const flow = type === NodeType.ParallelGateway ? undefined : child(element, 'default');
  return { ...frame, type, defaultFlow: flow ? (idOf(flow) ?? null) : null };
}
