import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Harness, serve } from './harness.js';

// A model bpmn-auto-layout cannot lay out: here, every one.
vi.mock('bpmn-auto-layout', () => ({
  layoutProcess: async () => {
    throw new Error('the layout gave up');
  },
}));

let view: Harness | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
});

describe('a model that has no diagram and cannot be laid out', () => {
  it('gets pages that say why and list its elements, with their counts or the state of the instance', async () => {
    view = await serve();
    const id = await view.engine.start('bare');
    await view.engine.settled(id);

    const process = await view.page('/processes/bare-defs/1');
    expect(process).toContain('No diagram: it has no diagram and laying one out failed: the layout gave up.');
    expect(process).not.toContain('id="diagram"');
    expect(process).toMatch(
      /<tr data-element="approve"><td>Approve<div class="sub">approve<\/div><\/td><td>userTask<\/td><td class="num">1<\/td>/,
    );

    const instance = await view.page(`/instances/${id}`);
    expect(instance).toContain('No diagram: it has no diagram and laying one out failed');
    expect(instance).toMatch(/<tr data-element="approve">.*<td>active<\/td><\/tr>/);
    expect(instance).toMatch(/<tr data-element="s">.*<td>completed<\/td><\/tr>/);
    expect(instance).toMatch(/<tr data-element="e">.*<td><\/td><\/tr>/);
  });
});
