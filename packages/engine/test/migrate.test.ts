import type { Handler } from '@thresher/engine';
import { describe, expect, it } from 'vitest';
import { ext, flow, withRoots } from './fixtures/bpmn/xml.js';
import { engineWith } from './fixtures/runtime.js';

const MESSAGE = `<bpmn:message id="m" name="withdrawn"><bpmn:extensionElements><zeebe:subscription correlationKey="=id" /></bpmn:extensionElements></bpmn:message>`;
const task = (id: string, type: string) =>
  `<bpmn:serviceTask id="${id}">${ext(`<zeebe:taskDefinition type="${type}" />`)}</bpmn:serviceTask>`;

/** v1: start → charge (job `charge`) → approve (user task, a `withdrawn` message boundary) → end. */
const V1 = withRoots(
  MESSAGE,
  `<bpmn:startEvent id="start" />${task('charge', 'charge')}
  <bpmn:userTask id="approve">${ext('<zeebe:userTask />')}</bpmn:userTask>
  <bpmn:boundaryEvent id="withdrawn" attachedToRef="approve"><bpmn:messageEventDefinition messageRef="m" /></bpmn:boundaryEvent>
  <bpmn:endEvent id="end" /><bpmn:endEvent id="gone" />
  ${flow('f1', 'start', 'charge')}${flow('f2', 'charge', 'approve')}${flow('f3', 'approve', 'end')}${flow('f4', 'withdrawn', 'gone')}`,
);

/** v2: charge's job is `charge-v2`; approve has a timer boundary instead of the message one, and `notify` after it. */
const V2 = withRoots(
  MESSAGE,
  `<bpmn:startEvent id="start" />${task('charge', 'charge-v2')}
  <bpmn:userTask id="approve">${ext('<zeebe:userTask />')}</bpmn:userTask>
  <bpmn:boundaryEvent id="late" attachedToRef="approve" cancelActivity="false"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
  ${task('notify', 'notify')}<bpmn:endEvent id="end" /><bpmn:endEvent id="later" />
  ${flow('f1', 'start', 'charge')}${flow('f2', 'charge', 'approve')}${flow('f3', 'approve', 'notify')}${flow('f4', 'notify', 'end')}${flow('f5', 'late', 'later')}`,
).replace('id="p"', 'id="p" name="v2"');

async function onV1(charge: Handler = () => ({})) {
  const notified: string[] = [];
  const engine = await engineWith(V1, {
    charge,
    'charge-v2': () => ({ v2: true }),
    notify: (job) => void notified.push(job.instanceId),
  });
  const id = await engine.start('p', { variables: { id: 'o-1' } });
  await engine.settled(id);
  const v2 = await engine.deploy(V2);
  return { engine, id, v2, notified };
}

describe('engine.migrateInstance', () => {
  it('should move a waiting user task onto the next version, keeping the task, dropping an unmapped boundary and arming a new one', async () => {
    const { engine, id, v2, notified } = await onV1();
    const before = (await engine.instance(id))!;

    await engine.migrateInstance(id, {
      digest: v2.digest,
      mapping: [{ sourceElementId: 'approve', targetElementId: 'approve' }],
    });

    const after = (await engine.instance(id))!;
    expect(after.digest).toBe(v2.digest);
    expect(after.userTasks.map((t) => t.id)).toEqual(before.userTasks.map((t) => t.id));
    expect(after.subscriptions).toEqual([]);
    const settled = await engine.settled(id);
    expect(settled.status === 'waiting' && settled.timers.map((t) => t.elementId)).toEqual(['late']);
    // It goes on on v2: notify runs after approve.
    await engine.completeUserTask(after.userTasks[0]!.id);
    expect((await engine.settled(id)).status).toBe('completed');
    expect(notified).toEqual([id]);
  });

  it("should keep a failed job's incident, the job taking the target's type, so the retry runs v2's handler", async () => {
    const { engine, id, v2 } = await onV1(() => {
      throw new Error('card declined');
    });
    const [incident] = (await engine.instance(id))!.incidents;

    await engine.migrateInstance(id, {
      digest: v2.digest,
      mapping: [{ sourceElementId: 'charge', targetElementId: 'charge' }],
    });
    expect((await engine.instance(id))!.incidents.map((one) => one.id)).toEqual([incident!.id]);
    await engine.retryIncident(incident!.id);
    await engine.settled(id);

    const after = (await engine.instance(id))!;
    expect(after.variables).toMatchObject({ v2: true });
    expect(after.activeElements).toEqual(['approve']);
  });

  it('should refuse, naming the element and the rule, and change nothing', async () => {
    const { engine, id, v2 } = await onV1();
    const before = await engine.instance(id);
    const refusals: [Parameters<typeof engine.migrateInstance>[1], RegExp][] = [
      [{ digest: v2.digest, mapping: [] }, /active element "approve" has no mapping instruction/],
      [
        { digest: v2.digest, mapping: [{ sourceElementId: 'approve', targetElementId: 'notify' }] },
        /"approve" \(userTask\) is mapped to "notify" \(serviceTask\); elements must be mapped to elements of the same type/,
      ],
      [
        { digest: v2.digest, mapping: [{ sourceElementId: 'approve', targetElementId: 'nope' }] },
        /the target process has no element "nope"/,
      ],
      [
        { digest: v2.digest, mapping: [{ sourceElementId: 'nope', targetElementId: 'approve' }] },
        /the source process has no element "nope"/,
      ],
      [
        {
          digest: v2.digest,
          mapping: [
            { sourceElementId: 'approve', targetElementId: 'approve' },
            { sourceElementId: 'approve', targetElementId: 'approve' },
          ],
        },
        /names source element "approve" twice/,
      ],
      [
        {
          digest: v2.digest,
          mapping: [
            { sourceElementId: 'approve', targetElementId: 'approve' },
            { sourceElementId: 'withdrawn', targetElementId: 'late' },
          ],
        },
        /boundary event "withdrawn" \(message\) is mapped to "late" \(timer\); they must be of the same kind/,
      ],
    ];

    for (const [instructions, message] of refusals) {
      await expect(engine.migrateInstance(id, instructions), JSON.stringify(instructions)).rejects.toThrow(message);
    }
    expect(await engine.instance(id)).toEqual(before);
  });

  it('should change nothing when given again under the operation id it was applied with', async () => {
    const { engine, id, v2 } = await onV1();
    const mapping = [{ sourceElementId: 'approve', targetElementId: 'approve' }];

    await engine.migrateInstance(id, { digest: v2.digest, mapping, operationId: 'mig-1' });
    await engine.migrateInstance(id, { digest: v2.digest, mapping, operationId: 'mig-1' });

    const settled = await engine.settled(id);
    expect(settled.status === 'waiting' && settled.timers).toHaveLength(1);
  });
});
