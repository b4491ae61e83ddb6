/**
 * Models the view's tests run: a review with a Camunda Form on its user task, a service task that fails into
 * an incident, a message wait and a call activity; and one with no diagram at all.
 */

const FORM = JSON.stringify({
  id: 'review-form',
  type: 'default',
  schemaVersion: 16,
  components: [
    { type: 'textfield', key: 'reviewer', label: 'Reviewer', validate: { required: true } },
    { type: 'checkbox', key: 'approved', label: 'Approved' },
  ],
});

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** start → review (user task with an embedded form) → charge (service task `charge`) → await-payment (message) → end. */
export const REVIEW_BPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI"
  xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:di="http://www.omg.org/spec/DD/20100524/DI"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="review-defs" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:message id="msg" name="payment-received"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId" /></bpmn:extensionElements></bpmn:message>
  <bpmn:process id="review" name="Order review" isExecutable="true">
    <bpmn:extensionElements><zeebe:userTaskForm id="reviewForm">${escapeXml(FORM)}</zeebe:userTaskForm></bpmn:extensionElements>
    <bpmn:startEvent id="start" name="Order in"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="reviewTask" />
    <bpmn:userTask id="reviewTask" name="Review order">
      <bpmn:extensionElements><zeebe:userTask /><zeebe:formDefinition formKey="camunda-forms:bpmn:reviewForm" /></bpmn:extensionElements>
      <bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing>
    </bpmn:userTask>
    <bpmn:sequenceFlow id="f2" sourceRef="reviewTask" targetRef="charge" />
    <bpmn:serviceTask id="charge" name="Charge card">
      <bpmn:extensionElements><zeebe:taskDefinition type="charge" retries="1" /></bpmn:extensionElements>
      <bpmn:incoming>f2</bpmn:incoming><bpmn:outgoing>f3</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f3" sourceRef="charge" targetRef="awaitPayment" />
    <bpmn:intermediateCatchEvent id="awaitPayment" name="Payment received">
      <bpmn:incoming>f3</bpmn:incoming><bpmn:outgoing>f4</bpmn:outgoing>
      <bpmn:messageEventDefinition messageRef="msg" />
    </bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f4" sourceRef="awaitPayment" targetRef="end" />
    <bpmn:endEvent id="end" name="Done"><bpmn:incoming>f4</bpmn:incoming></bpmn:endEvent>
  </bpmn:process>
  <bpmndi:BPMNDiagram id="d1"><bpmndi:BPMNPlane id="pl1" bpmnElement="review">
    <bpmndi:BPMNShape id="start_di" bpmnElement="start"><dc:Bounds x="152" y="102" width="36" height="36" /></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="reviewTask_di" bpmnElement="reviewTask"><dc:Bounds x="240" y="80" width="100" height="80" /></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="charge_di" bpmnElement="charge"><dc:Bounds x="400" y="80" width="100" height="80" /></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="awaitPayment_di" bpmnElement="awaitPayment"><dc:Bounds x="562" y="102" width="36" height="36" /></bpmndi:BPMNShape>
    <bpmndi:BPMNShape id="end_di" bpmnElement="end"><dc:Bounds x="662" y="102" width="36" height="36" /></bpmndi:BPMNShape>
    <bpmndi:BPMNEdge id="f1_di" bpmnElement="f1"><di:waypoint x="188" y="120" /><di:waypoint x="240" y="120" /></bpmndi:BPMNEdge>
    <bpmndi:BPMNEdge id="f2_di" bpmnElement="f2"><di:waypoint x="340" y="120" /><di:waypoint x="400" y="120" /></bpmndi:BPMNEdge>
    <bpmndi:BPMNEdge id="f3_di" bpmnElement="f3"><di:waypoint x="500" y="120" /><di:waypoint x="562" y="120" /></bpmndi:BPMNEdge>
    <bpmndi:BPMNEdge id="f4_di" bpmnElement="f4"><di:waypoint x="598" y="120" /><di:waypoint x="662" y="120" /></bpmndi:BPMNEdge>
  </bpmndi:BPMNPlane></bpmndi:BPMNDiagram>
</bpmn:definitions>`;

/** start → approve (user task, no form) → end, with no diagram interchange at all. */
export const BARE_BPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="bare-defs">
  <bpmn:process id="bare" name="Bare approval" isExecutable="true">
    <bpmn:startEvent id="s" /><bpmn:sequenceFlow id="a" sourceRef="s" targetRef="approve" />
    <bpmn:userTask id="approve" name="Approve"><bpmn:extensionElements><zeebe:userTask /></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="b" sourceRef="approve" targetRef="e" /><bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

/** parent → call activity of `bare` → end (no diagram). */
export const CALLER_BPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="caller-defs">
  <bpmn:process id="caller" name="Caller" isExecutable="true">
    <bpmn:startEvent id="cs" /><bpmn:sequenceFlow id="c1" sourceRef="cs" targetRef="callBare" />
    <bpmn:callActivity id="callBare"><bpmn:extensionElements><zeebe:calledElement processId="bare" /></bpmn:extensionElements></bpmn:callActivity>
    <bpmn:sequenceFlow id="c2" sourceRef="callBare" targetRef="ce" /><bpmn:endEvent id="ce" />
  </bpmn:process>
</bpmn:definitions>`;
