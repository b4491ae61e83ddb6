import { afterEach, describe, expect, it } from 'vitest';
import { dataOf, decided, type Harness, serve } from './harness.js';

let view: Harness | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
});

describe('a decision evaluation of an instance', () => {
  it('should open on the DMN model it came from, with what each decision took, the rules that matched and what it gave', async () => {
    view = await serve();
    const id = await decided(view);
    const record = (await view.engine.instance(id))!.decisions[0]!;

    const instancePage = await view.page(`/instances/${id}`);
    const page = await view.page(`/instances/${id}/decisions/0`);

    expect(instancePage).toContain(`href="/instances/${id}/decisions/0"`);
    expect(dataOf(page)).toMatchObject({
      kind: 'decision',
      open: 'shipping',
      matched: record.evaluated.at(-1)!.matchedRules.map((rule) => rule.ruleId),
    });
    expect(page).toContain('<section class="evaluated" data-decision="risk">');
    expect(page).toContain('<li data-rule="risk-big">');
    expect(page).toContain(`href="/decisions/${record.digest}"`);
  });

  it('should list each deployed DMN file on the processes page, linked to its page', async () => {
    view = await serve();
    const id = await decided(view);
    const record = (await view.engine.instance(id))!.decisions[0]!;

    const page = await view.page('/');

    expect(page).toContain(
      `<tr data-dmn="dmn:order-rules" data-version="1"><td><a href="/decisions/${record.digest}">dmn:order-rules</a>`,
    );
  });

  it('should answer 404 for an evaluation the instance does not have, and for a requirements graph of no DMN file', async () => {
    view = await serve();
    const id = await decided(view);
    const bpmn = (await view.engine.instance(id))!.digest;

    expect((await view.get(`/instances/${id}/decisions/99`)).status).toBe(404);
    expect((await view.get(`/instances/${id}/decisions/x`)).status).toBe(404);
    expect((await view.get(`/decisions/${bpmn}`)).status).toBe(404);
  });
});
