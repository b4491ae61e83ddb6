/** BPMN and DMN the REST tests deploy. */
export const ORDER_BPMN = (processId = 'order', name = 'Order') => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs-${processId}" targetNamespace="t">
  <bpmn:process id="${processId}" name="${name}" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="review" />
    <bpmn:userTask id="review" />
    <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

/** A gateway whose condition fails until `go` is set: a condition incident, resolved once it is. */
export const GATED = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs-gated" targetNamespace="t">
  <bpmn:process id="gated" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="gate" />
    <bpmn:exclusiveGateway id="gate" />
    <bpmn:sequenceFlow id="f2" sourceRef="gate" targetRef="e"><bpmn:conditionExpression>=go = true</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

export const DISH_DMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="dish-drd" name="Dishes" namespace="t">
  <decision id="dish" name="Dish">
    <decisionTable id="table">
      <input id="in" label="Season"><inputExpression id="ie" typeRef="string"><text>season</text></inputExpression></input>
      <output id="out" name="dish" typeRef="string" />
      <rule id="r1"><inputEntry id="e1"><text>"Winter"</text></inputEntry><outputEntry id="o1"><text>"Stew"</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`;

/** A multipart body of `files` (name → text) as `resources`, and any plain fields. */
export function resources(files: Record<string, string>, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, text] of Object.entries(files)) form.append('resources', new Blob([text]), name);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}
