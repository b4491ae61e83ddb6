/**
 * What a model says that Thresher will not do is said when it runs, not only by `inspect`: each compile
 * warning is a `warning:` line on stderr (in both output modes) and part of the deployment in `--json`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/exit-code.js';
import { scriptProcess, Workspace } from './helpers.js';

const ws = new Workspace();
afterAll(() => ws.remove());

const MODEL = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="warned" targetNamespace="http://bpmn.io/schema/bpmn">
${scriptProcess()}
  <bpmndi:BPMNDiagram id="diagram">
    <bpmndi:BPMNPlane id="plane" bpmnElement="doubler">
      <bpmndi:BPMNShape id="Shape_gone" bpmnElement="Gone_1"><dc:Bounds x="1" y="1" width="1" height="1" /></bpmndi:BPMNShape>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>
`;

describe('thresher run with a model that has warnings', () => {
  it('runs it, printing each warning on stderr, and reports them with the deployment under --json', async () => {
    ws.write('warned.bpmn', MODEL);
    const human = await ws.thresher(['run', 'warned.bpmn', '--var', 'a=2', '--store', 'memory:']);
    expect(human.code).toBe(ExitCode.Ok);
    expect(human.stderr).toMatch(
      /^warning: Shape_gone: diagram shape "Shape_gone" refers to "Gone_1", which does not exist/m,
    );
    const json = await ws.thresher(['run', 'warned.bpmn', '--var', 'a=2', '--store', 'memory:', '--json']);
    expect(json.code).toBe(ExitCode.Ok);
    expect(json.stderr).toMatch(/^warning: Shape_gone: /m);
    expect(json.json<{ deployment: { warnings: { elementId: string }[] } }>().deployment.warnings).toEqual([
      { elementId: 'Shape_gone', message: expect.stringContaining('Gone_1') },
    ]);
  });
});
