/**
 * Compensation and transactions in the compiler: a compensation boundary event is linked to its handler by
 * an association, the handler is reached no other way, a throw names an activity of its own scope, and a
 * transaction's cancel end event needs the cancel boundary it leaves by. Each mistake is named.
 */
import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { compile } from '../src/model/index.js';
import type { BoundaryEventNode, SubProcessNode } from '../src/model/node-types.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';

const JOB = (type: string) => ext(`<zeebe:taskDefinition type="${type}" />`);

/** start → book → end, `book` compensable by `cancel` through boundary `undo` (with `extra` beside). */
function compensable(extra = '', association = '<bpmn:association id="a" sourceRef="undo" targetRef="cancel" />') {
  return bpmn(`<bpmn:startEvent id="start" />
    <bpmn:serviceTask id="book">${JOB('book')}</bpmn:serviceTask>
    <bpmn:endEvent id="end" />
    ${chain('start', 'book', 'end')}
    <bpmn:boundaryEvent id="undo" attachedToRef="book"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
    <bpmn:serviceTask id="cancel" isForCompensation="true">${JOB('cancel')}</bpmn:serviceTask>
    ${association}${extra}`);
}

async function issuesOf(xml: string): Promise<string[]> {
  const error = await compile(xml).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ModelError);
  return (error as ModelError).issues.map((issue) => `${issue.elementId}: ${issue.message}`);
}

describe('compensation in the compiler', () => {
  it('links a compensation boundary to its handler, and the process lists the activity as compensable', async () => {
    const process = (await compile(compensable())).processes.get('p')!;
    expect((process.nodes.get('undo') as BoundaryEventNode).handler).toBe('cancel');
    expect(process.nodes.get('cancel')?.forCompensation).toBe(true);
    expect([...(process.compensation ?? [])]).toEqual([['book', 'cancel']]);
  });

  it('reads an association drawn from the handler to the boundary too', async () => {
    const xml = compensable('', '<bpmn:association id="a" sourceRef="cancel" targetRef="undo" />');
    expect((await compile(xml)).processes.get('p')?.compensation?.get('book')).toBe('cancel');
  });

  it('refuses a compensation boundary with no association, and the handler nothing would run', async () => {
    expect(await issuesOf(compensable('', ''))).toEqual([
      'undo: a compensation boundary event needs a bpmn:association to its compensation handler (an activity with isForCompensation="true" in "p")',
      'cancel: no compensation boundary event is associated with this compensation handler (isForCompensation): nothing would run it',
    ]);
  });

  it('refuses a compensation handler with sequence flows', async () => {
    const xml = compensable('<bpmn:sequenceFlow id="f" sourceRef="cancel" targetRef="end" />');
    expect(await issuesOf(xml)).toContain(
      'cancel: a compensation handler (isForCompensation) cannot have sequence flows: a compensation boundary event runs it',
    );
  });

  it('refuses a throw naming an activity outside its scope, or a handler', async () => {
    const throwing = (ref: string) =>
      compensable(
        `<bpmn:intermediateThrowEvent id="t"><bpmn:compensateEventDefinition activityRef="${ref}" /></bpmn:intermediateThrowEvent>
         <bpmn:subProcess id="sub"><bpmn:startEvent id="s2" /><bpmn:task id="inner" /><bpmn:endEvent id="e2" />${chain('s2', 'inner', 'e2')}</bpmn:subProcess>`,
      );
    expect(await issuesOf(throwing('inner'))).toContain(
      't: activityRef "inner" is not an activity in the same scope "p" as the compensation throw "t"',
    );
    expect(await issuesOf(throwing('cancel'))).toContain(
      't: activityRef "cancel" is a compensation handler: name the activity it compensates',
    );
  });

  it('refuses an activityRef on a compensation boundary event', async () => {
    const xml = compensable().replace(
      '<bpmn:boundaryEvent id="undo" attachedToRef="book"><bpmn:compensateEventDefinition />',
      '<bpmn:boundaryEvent id="undo" attachedToRef="book"><bpmn:compensateEventDefinition activityRef="book" />',
    );
    expect(await issuesOf(xml)).toContain(
      'undo: a compensation boundary event compensates the activity it is attached to: remove its activityRef',
    );
  });

  it('refuses a compensation event sub-process of the process itself: a process is never compensated', async () => {
    const xml = compensable(
      '<bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="cs"><bpmn:compensateEventDefinition /></bpmn:startEvent><bpmn:endEvent id="ce" />' +
        `${chain('cs', 'ce')}</bpmn:subProcess>`,
    );
    expect(await issuesOf(xml)).toEqual([
      'esp: a compensation event sub-process belongs in an embedded sub-process: a process is never compensated as a whole',
    ]);
  });

  it("takes a sub-process's compensation event sub-process as its handler", async () => {
    const xml = bpmn(`<bpmn:startEvent id="start" />
      <bpmn:subProcess id="leg"><bpmn:startEvent id="ls" /><bpmn:endEvent id="le" />${chain('ls', 'le')}
        <bpmn:subProcess id="undo-leg" triggeredByEvent="true"><bpmn:startEvent id="us"><bpmn:compensateEventDefinition /></bpmn:startEvent><bpmn:endEvent id="ue" />${chain('us', 'ue')}</bpmn:subProcess>
      </bpmn:subProcess>
      <bpmn:endEvent id="end" />${chain('start', 'leg', 'end')}`);
    expect((await compile(xml)).processes.get('p')?.compensation?.get('leg')).toBe('undo-leg');
  });
});

describe('transactions in the compiler', () => {
  const transaction = (boundary: string) =>
    bpmn(`<bpmn:startEvent id="start" />
      <bpmn:transaction id="tx">
        <bpmn:startEvent id="ts" /><bpmn:task id="work" /><bpmn:endEvent id="te"><bpmn:cancelEventDefinition /></bpmn:endEvent>
        ${chain('ts', 'work', 'te')}
      </bpmn:transaction>
      <bpmn:endEvent id="end" />
      ${chain('start', 'tx', 'end')}
      ${boundary}`);

  it('compiles a transaction as a sub-process marked as one', async () => {
    const xml = transaction(
      '<bpmn:boundaryEvent id="c" attachedToRef="tx"><bpmn:cancelEventDefinition /></bpmn:boundaryEvent><bpmn:endEvent id="x" /><bpmn:sequenceFlow id="fc" sourceRef="c" targetRef="x" />',
    );
    expect((await compile(xml)).processes.get('p')?.nodes.get('tx') as SubProcessNode).toMatchObject({
      type: 'subProcess',
      transaction: true,
    });
  });

  it('refuses a transaction with a cancel end event but no cancel boundary to leave by', async () => {
    expect(await issuesOf(transaction(''))).toEqual([
      'tx: a bpmn:transaction with a cancel end event needs a cancel boundary event to leave by when it is cancelled',
    ]);
  });

  it('refuses a cancel boundary on anything but a transaction', async () => {
    const xml =
      bpmn(`<bpmn:startEvent id="start" /><bpmn:task id="t" /><bpmn:endEvent id="end" />${chain('start', 't', 'end')}
      <bpmn:boundaryEvent id="c" attachedToRef="t"><bpmn:cancelEventDefinition /></bpmn:boundaryEvent><bpmn:endEvent id="x" /><bpmn:sequenceFlow id="fc" sourceRef="c" targetRef="x" />`);
    expect(await issuesOf(xml)).toEqual(['c: a cancel boundary event belongs on a bpmn:transaction, not on "t"']);
  });
});
