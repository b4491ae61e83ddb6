/**
 * Walks one container (a process, an embedded sub-process or an event sub-process): compiles its
 * flow nodes, recursing into sub-processes, then its sequence flows, then the rules that need both.
 *
 * @module
 */
import { AD_HOC_EXTENSION, checkAdHocInside, readAdHoc } from './ad-hoc.js';
import { associationsOf, checkCompensation, checkTransactions } from './compensation.js';
import type { Scope } from './event-definitions.js';
import { checkEventRules } from './event-rules.js';
import { readExtensions, readIoMapping } from './extensions.js';
import { type ContainerView, checkFlowRules, compileFlow } from './flows.js';
import type { NodeFrame } from './frames.js';
import type { IssueCollector } from './issues.js';
import { LISTENERS_EXTENSION, readListeners } from './listeners.js';
import { readLoop } from './loops.js';
import { children, idOf, type ModdleElement, str } from './moddle.js';
import type { Node, SubProcessNode } from './node-types.js';
import { compileNode, DATA_ELEMENTS, unsupportedReason } from './nodes.js';
import type { Flow } from './process-types.js';
import type { UnresolvedReferences } from './read-warnings.js';
import { documentationOf, readTouchpointMark, TOUCHPOINT_EXTENSION } from './touchpoint-mark.js';
import { NodeType } from './types.js';

/** Deeper nesting than this is refused rather than risking the stack on hostile input. */
const MAX_DEPTH = 64;

/** What a process compile accumulates across all of its containers. */
export interface ProcessContext {
  issues: IssueCollector;
  unresolved: UnresolvedReferences;
  /** Every node of the process, nested ones included, in document order. */
  nodes: Map<string, Node>;
  flows: Map<string, Flow>;
  /** Boundary event ids by the activity they are attached to. */
  boundaries: Map<string, string[]>;
  /** Event sub-process ids by their container. */
  eventSubProcesses: Map<string, string[]>;
  /** Compensable activities and their handlers. */
  compensation: Map<string, string>;
  /** Transactions holding a cancel end event. */
  cancels: Set<string>;
}

/** The start events a container turned out to have. */
export interface ContainerStarts {
  /** Ids of its none start events. */
  startNodes: string[];
  /** Ids of its start events with an event definition. */
  eventStartNodes: string[];
  /** How many `bpmn:StartEvent` elements it holds, compiled or not. */
  declaredStarts: number;
  /** Whether a start event was refused (already reported, so "no none start event" would only repeat it). */
  refusedStart: boolean;
}

/** Compiles the flow elements of `container` (whose id is `containerId`) into `context`. */
export function compileContainer(
  context: ProcessContext,
  container: ModdleElement,
  containerId: string,
  depth: number,
  scope: Scope,
): ContainerStarts {
  const view: ContainerView = { id: containerId, nodes: new Map(), refused: new Set(), declared: new Map() };
  let refusedStart = false;
  let declaredStarts = 0;
  const sequenceFlows: ModdleElement[] = [];
  for (const element of children(container, 'flowElements')) {
    if (element.$type === 'bpmn:SequenceFlow') {
      sequenceFlows.push(element);
      continue;
    }
    if (DATA_ELEMENTS.has(element.$type)) continue;
    if (element.$type === 'bpmn:StartEvent') declaredStarts += 1;
    const id = idOf(element);
    if (!id) {
      noId(element, container, context.issues);
      continue;
    }
    // Where this element's issues begin: the runtime gate's issue about it goes there (document order).
    context.issues.mark(id);
    const reason = element.$instanceOf('bpmn:FlowNode')
      ? unsupportedReason(element)
      : `${element.$type} is not supported yet`;
    if (reason) {
      context.issues.error(element, reason);
      view.refused.add(id);
      refusedStart ||= element.$type === 'bpmn:StartEvent';
      continue;
    }
    const frame: NodeFrame = {
      id,
      name: str(element, 'name') || null,
      container: containerId,
      incoming: [],
      outgoing: [],
      io: { inputs: [], outputs: [] },
    };
    const loop = readLoop(element, context.issues);
    const node = element.$instanceOf('bpmn:SubProcess')
      ? subProcess(context, element, frame, depth)
      : compileNode(element, frame, { issues: context.issues, unresolved: context.unresolved, scope });
    if (!node) {
      view.refused.add(id);
      refusedStart ||= element.$type === 'bpmn:StartEvent';
      continue;
    }
    // Only an element with loop characteristics gets the key, so a model without loops keeps its IR and digest.
    if (loop) node.loop = loop;
    if (element.isForCompensation === true) node.forCompensation = true;
    // Like `loop`: only a marked (or documented) element gets the key, so other models keep their IR.
    const touchpoint = readTouchpointMark(element, node, context.issues);
    if (touchpoint) node.touchpoint = touchpoint;
    const documentation = documentationOf(element);
    if (documentation) node.documentation = documentation;
    const listeners = readListeners(element, node, context.issues);
    if (listeners) node.listeners = listeners;
    if (node.type === NodeType.EndEvent && node.event?.kind === 'cancel') context.cancels.add(containerId);
    view.nodes.set(id, { node, element });
    // Sub-process nodes are placed before their children, keeping `nodes` in document order.
    if (!context.nodes.has(id)) context.nodes.set(id, node);
  }
  for (const element of sequenceFlows) {
    const flow = compileFlow(element, view, context.unresolved, context.issues);
    if (flow) context.flows.set(flow.id, flow);
  }
  checkFlowRules(view, context.flows, context.issues);
  checkEventRules(view, context.flows, context.issues);
  const compensable = checkCompensation(view, associationsOf(container), scope === 'eventSubProcess', context.issues);
  for (const [activity, handler] of compensable) {
    if (context.compensation.has(activity)) {
      context.issues.errorAt(
        activity,
        'bpmn:SubProcess',
        `sub-process "${activity}" has both a compensation boundary event and a compensation event sub-process; give it one handler`,
      );
    }
    context.compensation.set(activity, handler);
  }
  checkTransactions(view, context.cancels, context.issues);
  const startNodes: string[] = [];
  const eventStartNodes: string[] = [];
  for (const { node } of view.nodes.values()) {
    if (node.type === NodeType.StartEvent) (node.event ? eventStartNodes : startNodes).push(node.id);
    if (node.type === NodeType.BoundaryEvent) listUnder(context.boundaries, node.attachedTo, node.id);
    if (node.type === NodeType.SubProcess && node.triggeredByEvent) {
      listUnder(context.eventSubProcesses, containerId, node.id);
      const start = context.nodes.get(node.startNodes[0] ?? '');
      if (start?.type === NodeType.StartEvent && start.event?.kind === 'compensate') {
        // The sub-process's compensation handler: it runs when the completed sub-process is compensated.
        if (scope === 'process') {
          context.issues.errorAt(
            node.id,
            'bpmn:SubProcess',
            'a compensation event sub-process belongs in an embedded sub-process: a process is never compensated as a whole',
          );
        } else context.compensation.set(containerId, node.id);
      }
    }
  }
  return { startNodes, eventStartNodes, declaredStarts, refusedStart };
}

function listUnder(map: Map<string, string[]>, key: string, id: string): void {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
}

function subProcess(
  context: ProcessContext,
  element: ModdleElement,
  frame: NodeFrame,
  depth: number,
): SubProcessNode | null {
  if (depth >= MAX_DEPTH) {
    context.issues.error(element, `sub-processes nested more than ${MAX_DEPTH} deep are not supported`);
    return null;
  }
  const adHoc = element.$type === 'bpmn:AdHocSubProcess';
  const extensions = readExtensions(
    element,
    [
      'zeebe:IoMapping',
      TOUCHPOINT_EXTENSION,
      LISTENERS_EXTENSION,
      ...(adHoc ? [AD_HOC_EXTENSION, 'zeebe:TaskDefinition'] : []),
    ],
    context.issues,
  );
  frame.io = readIoMapping(element, extensions.get('zeebe:IoMapping'), context.issues);
  if (adHoc) return adHocSubProcess(context, element, frame, depth, extensions);
  const triggeredByEvent = element.triggeredByEvent === true;
  const transaction = element.$type === 'bpmn:Transaction';
  const node: SubProcessNode = triggeredByEvent
    ? { ...frame, type: NodeType.SubProcess, startNodes: [], triggeredByEvent }
    : { ...frame, type: NodeType.SubProcess, startNodes: [], ...(transaction ? { transaction: true as const } : {}) };
  context.nodes.set(node.id, node);
  const starts = compileContainer(
    context,
    element,
    node.id,
    depth + 1,
    triggeredByEvent ? 'eventSubProcess' : transaction ? 'transaction' : 'subProcess',
  );
  if (triggeredByEvent) {
    // An event sub-process's one start event carries the event; it is its way in.
    node.startNodes = starts.eventStartNodes;
    if (starts.declaredStarts !== 1) {
      context.issues.error(
        element,
        `an event sub-process needs exactly one start event (with a message, timer, signal, error or escalation), found ${starts.declaredStarts}`,
      );
    }
    return node;
  }
  node.startNodes = starts.startNodes;
  if (node.startNodes.length > 1 || (node.startNodes.length === 0 && !starts.refusedStart)) {
    context.issues.error(
      element,
      `an embedded sub-process needs exactly one none start event, found ${node.startNodes.length}`,
    );
  }
  return node;
}

/** An ad-hoc sub-process: its elements compiled like a sub-process's, then checked and listed as Zeebe does. */
function adHocSubProcess(
  context: ProcessContext,
  element: ModdleElement,
  frame: NodeFrame,
  depth: number,
  extensions: Map<string, ModdleElement>,
): SubProcessNode | null {
  const spec = readAdHoc(
    element,
    extensions.get(AD_HOC_EXTENSION),
    extensions.has('zeebe:TaskDefinition'),
    context.issues,
  );
  const node: SubProcessNode = { ...frame, type: NodeType.SubProcess, startNodes: [] };
  context.nodes.set(node.id, node);
  compileContainer(context, element, node.id, depth + 1, 'subProcess');
  const activatable = checkAdHocInside(element, node, context.nodes, context.issues);
  if (!spec || !activatable) return null;
  node.adHoc = { ...spec, activatable };
  return node;
}

/** Names an element that has no id by its container, its name and the line of its tag. */
function noId(element: ModdleElement, container: ModdleElement, issues: IssueCollector): void {
  const name = str(element, 'name');
  const localName = element.$type.replace(/^bpmn:(.)/, (_, first: string) => first.toLowerCase());
  const line = issues.lines.lineOfTagWithoutId(localName, name ? { name } : {});
  const named = name ? ` "${name}"` : '';
  const where = idOf(container) ? ` in "${idOf(container)}"` : '';
  issues.errorAt(
    null,
    element.$type,
    `a ${element.$type}${named}${where} has no id: give it a unique id attribute`,
    line,
  );
}
