// The models every scenario runs, written twice where the two engines need different dialects: Thresher reads
// Zeebe extension elements and FEEL; bpmn-engine runs JavaScript (scripts in node:vm) and `${…}` expressions.
// Each pair is the same graph with the same decisions, so the engines do the same work.

const BPMN = 'http://www.omg.org/spec/BPMN/20100524/MODEL';
const ZEEBE = 'http://camunda.org/schema/zeebe/1.0';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

/** Scenarios 12 and 13: start → one service task (type `work`) → end, nothing else. */
export const oneJobModel = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="${BPMN}" xmlns:zeebe="${ZEEBE}" id="bench-one-job" targetNamespace="http://thresher.dev/bench">
  <bpmn:process id="bench" name="Bench" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="work"><bpmn:extensionElements><zeebe:taskDefinition type="work" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;

/** Scenario 1/2: start → service task → exclusive gateway (FEEL condition) → script task → end. */
export const throughputModel = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="${BPMN}" xmlns:zeebe="${ZEEBE}" xmlns:xsi="${XSI}" id="bench-throughput" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="bench" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="work"><bpmn:extensionElements><zeebe:taskDefinition type="work" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:exclusiveGateway id="big" default="small" />
    <bpmn:scriptTask id="double"><bpmn:extensionElements><zeebe:script expression="=n * 2" resultVariable="m" /></bpmn:extensionElements></bpmn:scriptTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="big" />
    <bpmn:sequenceFlow id="large" sourceRef="big" targetRef="double"><bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">=n &gt; 10</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="small" sourceRef="big" targetRef="double" />
    <bpmn:sequenceFlow id="f4" sourceRef="double" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;

/**
 * The same graph for bpmn-engine. The service task resolves `${environment.services.work}`; its result lands
 * in `environment.output` (bpmn-engine does not merge task results into variables by itself). The condition
 * is a JavaScript script condition (bpmn-engine's `${…}` expressions have no comparison operators); the
 * script task is JavaScript, run by bpmn-engine's default script engine (node:vm).
 */
export const peerThroughputModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="${BPMN}" xmlns:xsi="${XSI}" id="bench-throughput-peer" targetNamespace="http://bpmn.io/schema/bpmn">
  <process id="bench" isExecutable="true">
    <startEvent id="start" />
    <serviceTask id="work" implementation="\${environment.services.work}" />
    <exclusiveGateway id="big" default="small" />
    <scriptTask id="double" scriptFormat="javascript"><script>environment.output.m = environment.output.n * 2; next();</script></scriptTask>
    <endEvent id="end" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <sequenceFlow id="f2" sourceRef="work" targetRef="big" />
    <sequenceFlow id="large" sourceRef="big" targetRef="double"><conditionExpression xsi:type="tFormalExpression" language="javascript">next(null, environment.output.n &gt; 10);</conditionExpression></sequenceFlow>
    <sequenceFlow id="small" sourceRef="big" targetRef="double" />
    <sequenceFlow id="f4" sourceRef="double" targetRef="end" />
  </process>
</definitions>`;

/** Scenarios 3, 4a, 4c, 5: start → service task → exclusive gateway → user task (parks) → end. */
export const parkedModel = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="${BPMN}" xmlns:zeebe="${ZEEBE}" xmlns:xsi="${XSI}" id="bench-parked" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="parked" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="work"><bpmn:extensionElements><zeebe:taskDefinition type="work" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:exclusiveGateway id="big" default="small" />
    <bpmn:userTask id="approve" name="Approve" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="big" />
    <bpmn:sequenceFlow id="large" sourceRef="big" targetRef="approve"><bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">=n &gt; 10</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="small" sourceRef="big" targetRef="approve" />
    <bpmn:sequenceFlow id="f4" sourceRef="approve" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;

export const peerParkedModel = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="${BPMN}" xmlns:xsi="${XSI}" id="bench-parked-peer" targetNamespace="http://bpmn.io/schema/bpmn">
  <process id="parked" isExecutable="true">
    <startEvent id="start" />
    <serviceTask id="work" implementation="\${environment.services.work}" />
    <exclusiveGateway id="big" default="small" />
    <userTask id="approve" name="Approve" />
    <endEvent id="end" />
    <sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <sequenceFlow id="f2" sourceRef="work" targetRef="big" />
    <sequenceFlow id="large" sourceRef="big" targetRef="approve"><conditionExpression xsi:type="tFormalExpression" language="javascript">next(null, environment.output.n &gt; 10);</conditionExpression></sequenceFlow>
    <sequenceFlow id="small" sourceRef="big" targetRef="approve" />
    <sequenceFlow id="f4" sourceRef="approve" targetRef="end" />
  </process>
</definitions>`;

/**
 * Scenario 4b's stand-in: a parallel gateway forking `branches` flows, each to a user task, joined again.
 * Plain BPMN (no extension elements), so one XML serves both engines.
 */
export function forkModel(branches) {
  const tasks = [];
  const flows = [];
  for (let i = 0; i < branches; i++) {
    tasks.push(`    <bpmn:userTask id="u${i}" />`);
    flows.push(`    <bpmn:sequenceFlow id="a${i}" sourceRef="fork" targetRef="u${i}" />`);
    flows.push(`    <bpmn:sequenceFlow id="b${i}" sourceRef="u${i}" targetRef="join" />`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="${BPMN}" id="bench-fork-${branches}" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="fork${branches}" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:parallelGateway id="fork" />
${tasks.join('\n')}
    <bpmn:parallelGateway id="join" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="s" sourceRef="start" targetRef="fork" />
${flows.join('\n')}
    <bpmn:sequenceFlow id="e" sourceRef="join" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;
}

/**
 * start → one `element` (id `activityId`) with a multi-instance over the input collection `items` (each body
 * sees its `item`) → end. Thresher's dialect only (zeebe:loopCharacteristics).
 */
function multiInstanceOver(definitionsId, processId, element, activityId, sequential) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="${BPMN}" xmlns:zeebe="${ZEEBE}" id="${definitionsId}" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="${processId}" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:${element} id="${activityId}">
      <bpmn:multiInstanceLoopCharacteristics${sequential ? ' isSequential="true"' : ''}>
        <bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="=items" inputElement="item" /></bpmn:extensionElements>
      </bpmn:multiInstanceLoopCharacteristics>
    </bpmn:${element}>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="${activityId}" />
    <bpmn:sequenceFlow id="f2" sourceRef="${activityId}" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;
}

/** Scenario 4b: a parallel multi-instance user task (plain, as in `forkModel`): a body per item, each parked. */
export const multiInstanceModel = multiInstanceOver('bench-multi-instance', 'multi', 'userTask', 'u', false);

/**
 * Scenario 8: a sequential multi-instance plain `bpmn:task` (no work of its own): what is measured is the
 * loop, one body entered, completed and left per item, one after the other.
 */
export const sequentialLoopModel = multiInstanceOver('bench-sequential-loop', 'loop', 'task', 'pass', true);

/** The input collection of scenarios 4b and 8: the numbers 1 … n. */
export function itemsOf(n) {
  return Array.from({ length: n }, (_, i) => i + 1);
}

/** Scenario 4c: `count` variables of `bytes` characters each (distinct content, so nothing is shared). */
export function bulkVariables(count = 100, bytes = 1024) {
  const variables = {};
  for (let i = 0; i < count; i++) {
    const seed = `v${String(i).padStart(3, '0')}:`;
    variables[`v${String(i).padStart(3, '0')}`] = (seed + 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(30)).slice(
      0,
      bytes,
    );
  }
  return variables;
}

/** Thresher's handler for the `work` task: n = i mod 20, so about half the instances take the condition. */
export const thresherHandlers = { work: (job) => ({ n: job.variables.i % 20 }) };

/** bpmn-engine's service for the `work` task: the same n, into the execution's output. */
export const peerServices = {
  work(scope, next) {
    scope.environment.output.n = scope.environment.variables.i % 20;
    next();
  },
};
