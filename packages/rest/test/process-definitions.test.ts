import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { ORDER_BPMN, resources } from './models.js';

let api: Api;
beforeEach(async () => {
  api = await serveApi();
});
afterEach(async () => {
  await api.close();
});

async function deployOrder(): Promise<string> {
  const response = await fetch(`${api.server.url}/deployments`, {
    method: 'POST',
    body: resources({ 'order.bpmn': ORDER_BPMN() }),
  });
  const body = (await response.json()) as { deployments: { processDefinition: { processDefinitionKey: string } }[] };
  return body.deployments[0]!.processDefinition.processDefinitionKey;
}

describe('GET /process-definitions/{processDefinitionKey}', () => {
  it('should answer the definition, and its XML as deployed', async () => {
    const key = await deployOrder();

    const definition = await api.call('GET', `/process-definitions/${key}`);
    const xml = await api.call('GET', `/process-definitions/${key}/xml`);

    expect(await definition.json()).toEqual({
      name: 'Order',
      resourceName: 'defs-order.bpmn',
      version: 1,
      processDefinitionId: 'order',
      tenantId: '<default>',
      processDefinitionKey: key,
      hasStartForm: false,
    });
    expect(xml.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(await xml.text()).toBe(ORDER_BPMN());
  });

  it('should answer a key no definition has with a 404, on both', async () => {
    await deployOrder();
    for (const path of ['/process-definitions/4611686018427387905', '/process-definitions/4611686018427387905/xml']) {
      const response = await api.call('GET', path);
      expect(response.status).toBe(404);
      expect((await problemOf(response)).detail).toBe('no process definition with key 4611686018427387905 was found');
    }
  });
});

describe('POST /process-definitions/search', () => {
  it('should find definitions by key, id and latest version, and page them', async () => {
    const first = await deployOrder();
    const second = await fetch(`${api.server.url}/deployments`, {
      method: 'POST',
      body: resources({ 'order.bpmn': ORDER_BPMN('order', 'Order two') }),
    });
    expect(second.status).toBe(200);

    const byKey = await api.call('POST', '/process-definitions/search', { filter: { processDefinitionKey: first } });
    const latest = await api.call('POST', '/process-definitions/search', {
      filter: { processDefinitionId: 'order', isLatestVersion: true },
    });
    const paged = await api.call('POST', '/process-definitions/search', {
      sort: [{ field: 'version', order: 'DESC' }],
      page: { limit: 1 },
    });

    const keyBody = (await byKey.json()) as { items: { processDefinitionKey: string; version: number }[] };
    expect(keyBody.items).toEqual([expect.objectContaining({ processDefinitionKey: first, version: 1 })]);
    expect(((await latest.json()) as { items: { version: number; name: string }[] }).items).toEqual([
      expect.objectContaining({ version: 2, name: 'Order two' }),
    ]);
    const page = (await paged.json()) as { items: { version: number }[]; page: Record<string, unknown> };
    expect(page.items.map((item) => item.version)).toEqual([2]);
    expect(page.page).toEqual({
      totalItems: 2,
      hasMoreTotalItems: false,
      startCursor: expect.any(String),
      endCursor: expect.any(String),
    });
  });

  it('should refuse a filter it cannot apply with a 400 naming it', async () => {
    const response = await api.call('POST', '/process-definitions/search', { filter: { colour: 'red' } });

    expect((await problemOf(response)).detail).toMatch(/^\$\.filter\.colour: not a field/);
  });
});
