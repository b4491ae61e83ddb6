import { afterEach, describe, expect, it } from 'vitest';
import { actionToken, type Harness, serve } from './harness.js';

let view: Harness | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
});

describe("editing an instance's variables", () => {
  it('should set a variable of a scope to the JSON value given, new or changed, and say so', async () => {
    view = await serve();
    const id = await view.engine.start('review', { variables: { orderId: 'o-1' } });
    await view.engine.settled(id);
    const page = await view.page(`/instances/${id}`);
    const token = actionToken(page, 'set-variable');

    const changed = await view.post('/actions/set-variable', {
      _token: token,
      instance: id,
      scope: '/',
      name: 'orderId',
      value: '"o-2"',
    });
    const added = await view.post('/actions/set-variable', {
      _token: token,
      instance: id,
      scope: '/',
      name: 'limits',
      value: '{"max": 300, "currency": "EUR"}',
    });

    expect(page).toContain('data-scope-edit="/"');
    expect(changed.status).toBe(303);
    const done = new URL(added.headers.get('location') ?? '', 'http://view.invalid').searchParams.get('done');
    expect(done).toBe('variable limits set in scope /');
    expect((await view.engine.instance(id))?.variables).toEqual({
      orderId: 'o-2',
      limits: { max: 300, currency: 'EUR' },
    });
  });

  it('should refuse a value that is not JSON, a missing name or a scope not open, changing nothing', async () => {
    view = await serve();
    const id = await view.engine.start('review', { variables: { orderId: 'o-1' } });
    await view.engine.settled(id);
    const token = actionToken(await view.page(`/instances/${id}`), 'set-variable');
    const set = (fields: Record<string, string>) =>
      view!.post('/actions/set-variable', {
        _token: token,
        instance: id,
        scope: '/',
        name: 'n',
        value: '1',
        ...fields,
      });

    const notJson = await set({ value: "{'a': 1}" });
    const noName = await set({ name: '  ' });
    const noScope = await set({ scope: '/nowhere' });

    expect(notJson.status).toBe(400);
    expect(await notJson.text()).toContain('the value of n is not JSON');
    expect(noName.status).toBe(400);
    expect(await noName.text()).toContain('a variable needs a name');
    expect(noScope.status).toBe(404);
    expect((await view.engine.instance(id))?.variables).toEqual({ orderId: 'o-1' });
  });

  it('should offer no edit once the instance ended', async () => {
    view = await serve();
    const id = await view.engine.start('bare');
    await view.engine.settled(id);
    await view.engine.cancel(id);

    expect(await view.page(`/instances/${id}`)).not.toContain('data-scope-edit');
  });
});
