import { describe, expect, it } from 'vitest';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';
import { engineWith } from './fixtures/runtime.js';

/** A user task inside a sub-process that maps `n` in as `inner`, then a user task at the root. */
const MODEL = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:subProcess id="sub">
    ${ext('<zeebe:ioMapping><zeebe:input source="=n" target="inner" /></zeebe:ioMapping>')}
    <bpmn:startEvent id="sub-start" />
    <bpmn:userTask id="review">${ext('<zeebe:ioMapping><zeebe:input source="=n + 1" target="own" /></zeebe:ioMapping>')}</bpmn:userTask>
    <bpmn:endEvent id="sub-end" />
    ${chain('sub-start', 'review', 'sub-end')}
  </bpmn:subProcess>
  <bpmn:userTask id="last" />
  <bpmn:endEvent id="end" />
  ${chain('start', 'sub', 'last', 'end')}`);

async function waitingAtReview() {
  const engine = await engineWith(MODEL);
  const id = await engine.start('p', { variables: { n: 1 } });
  await engine.settled(id);
  const view = (await engine.instance(id))!;
  const review = view.elementInstances.find((activation) => activation.elementId === 'review')!;
  const sub = view.elementInstances.find((activation) => activation.elementId === 'sub')!;
  return { engine, id, review, sub };
}

describe('engine.setVariables', () => {
  it('should set each variable where it is held from the activation outwards, else in the root', async () => {
    const { engine, id, review } = await waitingAtReview();

    await engine.setVariables(id, { own: 10, inner: 20, n: 30, fresh: 40 }, { elementInstanceId: review.id });

    const view = (await engine.instance(id))!;
    expect(view.userTasks[0]!.variables).toMatchObject({ own: 10, inner: 20, n: 30, fresh: 40 });
    expect(view.variables).toEqual({ n: 30, fresh: 40 });
    expect(Object.values(view.scopes).find((scope) => 'inner' in scope)).toEqual({ inner: 20 });
  });

  it('should set them on the activation alone when local: a task its locals, a sub-process its scope', async () => {
    const { engine, id, review, sub } = await waitingAtReview();

    await engine.setVariables(id, { n: 5 }, { elementInstanceId: review.id, local: true });
    await engine.setVariables(id, { scoped: true }, { elementInstanceId: sub.id, local: true });

    const view = (await engine.instance(id))!;
    expect(view.userTasks[0]!.variables).toMatchObject({ n: 5, scoped: true, own: 2 });
    expect(view.variables).toEqual({ n: 1 });
    await engine.completeUserTask(view.userTasks[0]!.id);
    await engine.settled(id);
    // The task's locals and the sub-process's scope went with them.
    expect((await engine.instance(id))!.variables).toEqual({ n: 1 });
  });

  it('should set them in a scope as its own when the scope is named, the root or a sub-process', async () => {
    const { engine, id } = await waitingAtReview();
    const subScope = Object.keys((await engine.instance(id))!.scopes).find((path) => path !== '/')!;

    await engine.setVariables(id, { inner: 9, added: 'here' }, { scope: subScope });
    await engine.setVariables(id, { rooted: true }, { scope: '/' });

    const view = (await engine.instance(id))!;
    expect(view.scopes[subScope]).toEqual({ inner: 9, added: 'here' });
    expect(view.variables).toEqual({ n: 1, rooted: true });
    await expect(engine.setVariables(id, { x: 1 }, { scope: '/nowhere' })).rejects.toMatchObject({
      code: 'THRESHER_NOT_FOUND',
      kind: 'scope',
    });
    await expect(engine.setVariables(id, { x: 1 }, { scope: '/', local: true })).rejects.toMatchObject({
      code: 'THRESHER_INVALID_ARGUMENT',
    });
  });

  it('should set root variables when no activation is named, in a step of their own', async () => {
    const { engine, id } = await waitingAtReview();
    const before = await engine.headSeq(id);

    await engine.setVariables(id, { n: 7, extra: 'x' });

    expect((await engine.instance(id))!.variables).toEqual({ n: 7, extra: 'x' });
    expect(await engine.headSeq(id)).toBe(before! + 1);
  });

  it('should refuse an activation that is gone, an ended instance and values it cannot keep, changing nothing', async () => {
    const { engine, id, review } = await waitingAtReview();
    const before = await engine.headSeq(id);

    await expect(engine.setVariables(id, { a: 1 }, { elementInstanceId: '/:nowhere:0' })).rejects.toMatchObject({
      code: 'THRESHER_NOT_FOUND',
    });
    await expect(engine.setVariables(id, { a: () => 1 } as never)).rejects.toThrow();
    await expect(engine.setVariables(id, [1] as never)).rejects.toThrow(/object/);
    expect(await engine.headSeq(id)).toBe(before);

    await engine.cancel(id);
    await expect(engine.setVariables(id, { a: 1 }, { elementInstanceId: review.id })).rejects.toMatchObject({
      code: 'THRESHER_NOT_FOUND',
    });
  });
});
