import { describe, expect, it } from 'vitest';
import { compile, withFlowRefs } from '../src/model-api.js';

const WITHOUT_REFS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="refs" targetNamespace="t">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"><bpmn:outgoing>a</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="a" sourceRef="s" targetRef="sub" />
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="in" /><bpmn:sequenceFlow id="x" sourceRef="in" targetRef="work" />
      <bpmn:serviceTask id="work"><bpmn:extensionElements><zeebe:taskDefinition type="work" /></bpmn:extensionElements></bpmn:serviceTask>
      <bpmn:sequenceFlow id="y" sourceRef="work" targetRef="out" /><bpmn:endEvent id="out" />
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="b" sourceRef="sub" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

/** The flow ids an element lists under `property`, in the order written. */
function listed(xml: string, element: string, property: 'incoming' | 'outgoing'): string[] {
  const open = new RegExp(`<bpmn:(\\w+) id="${element}"[^>]*>([\\s\\S]*?)</bpmn:\\1>`).exec(xml)?.[2] ?? '';
  return [...open.matchAll(new RegExp(`<bpmn:${property}>([^<]+)</bpmn:${property}>`, 'g'))].map((m) => m[1]!);
}

describe('withFlowRefs', () => {
  it('should list every flow on its source and target, in sub-processes too, without listing one twice', async () => {
    const xml = await withFlowRefs(WITHOUT_REFS);

    expect(listed(xml, 's', 'outgoing')).toEqual(['a']);
    expect(listed(xml, 'in', 'outgoing')).toEqual(['x']);
    expect(listed(xml, 'work', 'incoming')).toEqual(['x']);
    expect(listed(xml, 'work', 'outgoing')).toEqual(['y']);
    expect(listed(xml, 'e', 'incoming')).toEqual(['b']);
  });

  it('should keep the model as it runs: its extensions and its compiled graph unchanged', async () => {
    const xml = await withFlowRefs(WITHOUT_REFS);

    expect(xml).toContain('<zeebe:taskDefinition type="work" />');
    const [before, after] = await Promise.all([compile(WITHOUT_REFS), compile(xml)]);
    expect([...after.processes.get('p')!.nodes.keys()]).toEqual([...before.processes.get('p')!.nodes.keys()]);
  });
});
