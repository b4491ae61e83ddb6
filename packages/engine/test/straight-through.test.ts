/**
 * Straight-through processing loops are refused at deploy, as Zeebe refuses them: a cycle of elements that run
 * without waiting, holding a task, a manual task or a call activity, names its elements; a loop that waits
 * somewhere, or one of gateways alone, deploys.
 */
import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { compile } from '../src/model/index.js';
import { bpmn, definitions, ext, flow, process } from './fixtures/bpmn/xml.js';

const f = (source: string, target: string) => flow(`f_${source}_${target}`, source, target);

async function refusal(xml: string): Promise<string[]> {
  const error = await compile(xml).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelError);
  return (error as ModelError).issues.map((issue) => `${issue.elementId}: ${issue.message}`);
}

/** start → a → gw; gw → a (back) and gw → end; `a` is given. */
const cycle = (a: string) =>
  bpmn(
    `<bpmn:startEvent id="start" />${a}<bpmn:exclusiveGateway id="gw" default="out" /><bpmn:endEvent id="end" />${f('start', 'a')}${f('a', 'gw')}<bpmn:sequenceFlow id="back" sourceRef="gw" targetRef="a"><bpmn:conditionExpression>=true</bpmn:conditionExpression></bpmn:sequenceFlow><bpmn:sequenceFlow id="out" sourceRef="gw" targetRef="end" />`,
  );

describe('straight-through processing loops', () => {
  it.each([
    ['an undefined task', '<bpmn:task id="a" />'],
    ['a manual task', '<bpmn:manualTask id="a" />'],
  ])('should refuse a loop through %s, naming its elements in order', async (_, a) => {
    expect(await refusal(cycle(a))).toEqual([
      expect.stringMatching(/^a: a straight-through processing loop: a > gw > a runs without ever waiting/),
    ]);
  });

  it.each([
    [
      'a service task (a job waits)',
      `<bpmn:serviceTask id="a">${ext('<zeebe:taskDefinition type="t" />')}</bpmn:serviceTask>`,
    ],
    ['a user task', '<bpmn:userTask id="a" />'],
  ])('should deploy a loop through %s', async (_, a) => {
    await expect(compile(cycle(a))).resolves.toBeDefined();
  });

  it('should deploy a loop of gateways alone, as Zeebe does', async () => {
    const xml = bpmn(
      `<bpmn:startEvent id="start" /><bpmn:exclusiveGateway id="g1" /><bpmn:exclusiveGateway id="g2" default="out" /><bpmn:endEvent id="end" />${f('start', 'g1')}${f('g1', 'g2')}<bpmn:sequenceFlow id="back" sourceRef="g2" targetRef="g1"><bpmn:conditionExpression>=true</bpmn:conditionExpression></bpmn:sequenceFlow><bpmn:sequenceFlow id="out" sourceRef="g2" targetRef="end" />`,
    );
    await expect(compile(xml)).resolves.toBeDefined();
  });

  it('should follow a loop into a sub-process and out of its end', async () => {
    const xml = bpmn(
      `<bpmn:startEvent id="start" /><bpmn:subProcess id="sub"><bpmn:startEvent id="s" /><bpmn:manualTask id="m" /><bpmn:endEvent id="e" />${f('s', 'm')}${f('m', 'e')}</bpmn:subProcess><bpmn:exclusiveGateway id="gw" default="out" /><bpmn:endEvent id="end" />${f('start', 'sub')}${f('sub', 'gw')}<bpmn:sequenceFlow id="back" sourceRef="gw" targetRef="sub"><bpmn:conditionExpression>=true</bpmn:conditionExpression></bpmn:sequenceFlow><bpmn:sequenceFlow id="out" sourceRef="gw" targetRef="end" />`,
    );
    expect(await refusal(xml)).toEqual([expect.stringMatching(/^m: .*: m > e > gw > sub > s > m runs/)]);
  });

  it('should refuse a process that calls itself straight through', async () => {
    const xml = definitions(
      process(
        `<bpmn:startEvent id="start" /><bpmn:callActivity id="again">${ext('<zeebe:calledElement processId="p" />')}</bpmn:callActivity><bpmn:endEvent id="end" />${f('start', 'again')}${f('again', 'end')}`,
      ),
      'self-defs',
    );
    expect(await refusal(xml)).toEqual([expect.stringMatching(/^again: .*: again > start > again runs/)]);
  });

  it('should decide a long chain of diamonds without trying every path', async () => {
    const diamonds = Array.from({ length: 60 }, (_, i) => i);
    const nodes = diamonds
      .map(
        (i) =>
          `<bpmn:parallelGateway id="split${i}" /><bpmn:manualTask id="l${i}" /><bpmn:manualTask id="r${i}" /><bpmn:exclusiveGateway id="join${i}" />`,
      )
      .join('');
    const flows = diamonds
      .map(
        (i) =>
          `${f(`split${i}`, `l${i}`)}${f(`split${i}`, `r${i}`)}${f(`l${i}`, `join${i}`)}${f(`r${i}`, `join${i}`)}${f(`join${i}`, i === 59 ? 'end' : `split${i + 1}`)}`,
      )
      .join('');
    const xml = bpmn(`<bpmn:startEvent id="start" />${nodes}<bpmn:endEvent id="end" />${f('start', 'split0')}${flows}`);
    await expect(compile(xml)).resolves.toBeDefined();
  });
});
