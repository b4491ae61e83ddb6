import { afterEach, describe, expect, it } from 'vitest';
import { dataOf, type Harness, serve } from './harness.js';
import { BARE_BPMN } from './models.js';

let view: Harness | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
});

/** Starts `review` and waits until it waits (at its user task). */
async function startReview(h: Harness, variables: Record<string, unknown> = {}, businessKey?: string): Promise<string> {
  const id = await h.engine.start('review', {
    variables: { orderId: 'o-1', ...variables },
    ...(businessKey ? { businessKey } : {}),
  });
  await h.engine.settled(id);
  return id;
}

async function completeReview(h: Harness, id: string): Promise<void> {
  const [task] = (await h.engine.instance(id))?.userTasks ?? [];
  if (!task) throw new Error(`instance ${id} has no open user task`);
  await h.engine.completeUserTask(task.id, { reviewer: 'ada', approved: true });
  await h.engine.settled(id);
}

describe('the processes page', () => {
  it('lists each deployed process and version with its instances by status and its open incidents', async () => {
    view = await serve();
    await startReview(view);
    await completeReview(view, await startReview(view)); // fails at charge: an incident

    const page = await view.page('/');

    expect(page).toContain('Order review');
    const row = /<tr data-process="review" data-version="1">([\s\S]*?)<\/tr>/.exec(page)?.[1] ?? '';
    expect(row).toMatch(/status=running">2</);
    expect(row).toContain('data-incidents="1"');
    expect(page).toMatch(/<tr data-process="bare" data-version="1">/);
    expect(page).toMatch(/<tr data-process="caller" data-version="1">/);
  });

  it('lists no deleted file', async () => {
    view = await serve();
    const bare = (await view.engine.deployments()).find((deployment) => deployment.definitionId === 'bare-defs');
    await view.engine.deleteDeployment(bare!.digest);

    const page = await view.page('/');

    expect(page).not.toMatch(/<tr data-process="bare"/);
    expect(page).toMatch(/<tr data-process="review" data-version="1">/);
  });

  it('says how to deploy when nothing is deployed, rather than showing an empty table', async () => {
    view = await serve();
    const engine = view.engine;
    // A second view on an empty store.
    const { createMemoryRepository } = await import('@thresher/checkpoint');
    const { Engine } = await import('@thresher/engine');
    const { startUiServer } = await import('@thresher/ui');
    const empty = new Engine({ repository: createMemoryRepository() });
    const server = await startUiServer({ engine: empty });
    try {
      const page = await (await fetch(server.url)).text();
      expect(page).toContain('No process is deployed in this store yet');
    } finally {
      await server.close();
      await empty.close();
    }
    expect(engine).toBeDefined();
  });
});

describe('a file with two processes', () => {
  it('counts each process apart, and its instance links and the list filter by process', async () => {
    view = await serve();
    const two = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="pair-defs">
  <bpmn:process id="left" isExecutable="true"><bpmn:startEvent id="ls" /><bpmn:sequenceFlow id="lf" sourceRef="ls" targetRef="lt" /><bpmn:userTask id="lt"><bpmn:extensionElements><zeebe:userTask /></bpmn:extensionElements></bpmn:userTask></bpmn:process>
  <bpmn:process id="right" isExecutable="true"><bpmn:startEvent id="rs" /><bpmn:sequenceFlow id="rf" sourceRef="rs" targetRef="rt" /><bpmn:userTask id="rt"><bpmn:extensionElements><zeebe:userTask /></bpmn:extensionElements></bpmn:userTask></bpmn:process>
</bpmn:definitions>`;
    await view.engine.deploy(two);
    const left = [await view.engine.start('left'), await view.engine.start('left')];
    const right = await view.engine.start('right');

    const page = await view.page('/');
    const row = (id: string) =>
      new RegExp(`<tr data-process="${id}" data-version="1">[\\s\\S]*?</tr>`).exec(page)?.[0] ?? '';
    expect(row('left')).toContain('processId=left&amp;status=running">2<');
    expect(row('right')).toContain('processId=right&amp;status=running">1<');

    const rows = (html: string) => [...html.matchAll(/<tr data-instance="([^"]+)"/g)].map((m) => m[1]);
    expect(rows(await view.page('/instances?processId=left'))).toEqual([...left].reverse());
    expect(rows(await view.page('/instances?processId=right&definition=pair-defs'))).toEqual([right]);
  });
});

describe('the process page', () => {
  it('gives the diagram the heat per element: waiting now, passed, holding incidents', async () => {
    view = await serve();
    await startReview(view);
    await startReview(view);
    await completeReview(view, await startReview(view));

    const data = dataOf(await view.page('/processes/review-defs/1'));

    expect(data.kind).toBe('process');
    expect(String(data.xml)).toContain('BPMNShape');
    expect(data.heat).toEqual({
      start: { waiting: 0, passed: 3, incidents: 0 },
      reviewTask: { waiting: 2, passed: 1, incidents: 0 },
      charge: { waiting: 1, passed: 0, incidents: 1 },
    });
  });

  it('lays out a model that has no diagram, and says it did', async () => {
    view = await serve();
    const page = await view.page('/processes/bare-defs/1');

    expect(page).toContain('data-laid-out="true"');
    expect(page).toContain('Thresher laid it out');
    expect(String(dataOf(page).xml)).toMatch(/BPMNShape[^>]*bpmnElement="approve"/);
    // The element table is there as well: never a blank page.
    expect(page).toMatch(/<tr data-element="approve">/);
  });

  it('answers 404 with a page naming what is missing for an unknown definition or version', async () => {
    view = await serve();
    const response = await view.get('/processes/review-defs/7');

    expect(response.status).toBe(404);
    const page = await response.text();
    expect(page).toContain('THRESHER_UI_NOT_FOUND');
    expect(page).toContain('no deployment of review-defs at version 7');
  });
});

describe('the instances page', () => {
  it('lists newest first and filters by status, definition and business key', async () => {
    view = await serve();
    const first = await startReview(view, {}, 'order-1');
    const second = await startReview(view, {}, 'order-2');
    const done = await view.engine.start('bare');
    await view.engine.settled(done);
    const [task] = (await view.engine.instance(done))?.userTasks ?? [];
    await view.engine.completeUserTask(task?.id ?? '', {});
    await view.engine.settled(done);

    const rows = (page: string) => [...page.matchAll(/<tr data-instance="([^"]+)"/g)].map((m) => m[1]);
    expect(rows(await view.page('/instances'))).toEqual([done, second, first]);
    expect(rows(await view.page('/instances?status=completed'))).toEqual([done]);
    expect(rows(await view.page('/instances?definition=review-defs'))).toEqual([second, first]);
    expect(rows(await view.page('/instances?businessKey=order-1'))).toEqual([first]);
  });

  it('pages by the last id shown', async () => {
    view = await serve();
    const ids: string[] = [];
    for (let i = 0; i < 52; i++) ids.push(await view.engine.start('bare'));
    const rows = (page: string) => [...page.matchAll(/<tr data-instance="([^"]+)"/g)].map((m) => m[1]);

    const first = await view.page('/instances');
    expect(rows(first)).toEqual([...ids].reverse().slice(0, 50));
    const older = /<a id="older" href="([^"]+)"/.exec(first)?.[1]?.replace(/&amp;/g, '&');
    expect(older).toBeDefined();
    expect(rows(await view.page(older ?? ''))).toEqual([ids[1], ids[0]]);
  });

  it('nests a call tree under its root', async () => {
    view = await serve();
    const root = await view.engine.start('caller');
    await view.engine.settled(root);
    const [child] = await view.engine.instances({ parentId: root });

    const page = await view.page(`/instances?root=${root}`);

    expect(child).toBeDefined();
    const nested = new RegExp(
      `<li data-instance="${root}">[\\s\\S]*<ul class="tree"><li data-instance="${child?.instanceId}">`,
    );
    expect(page).toMatch(nested);
  });

  it('refuses a status it does not know, by name', async () => {
    view = await serve();
    const response = await view.get('/instances?status=sleeping');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      'status must be one of running, completed, terminated, got &quot;sleeping&quot;',
    );
  });
});

describe('the instance page', () => {
  it('marks the active element, the completed path and incidents, and shows variables per scope', async () => {
    view = await serve();
    const id = await startReview(view, { total: 120 });
    await completeReview(view, id);

    const page = await view.page(`/instances/${id}`);

    expect(dataOf(page)).toMatchObject({
      kind: 'instance',
      markers: { active: ['charge'], completed: ['start', 'reviewTask'], incidents: ['charge'], taken: ['f1', 'f2'] },
    });
    expect(page).toMatch(
      /<tr data-incident="[^"]+"><td>charge<\/td><td>job-failed<\/td><td class="message">handler failed: card declined/,
    );
    expect(page).toMatch(/<tr data-variable="total"><td><code>total<\/code><\/td><td><pre>120<\/pre>/);
    expect(page).toMatch(/<tr data-variable="reviewer">/);
  });

  it('renders a user task with its Camunda Form for the client, and one without a form with a JSON editor', async () => {
    view = await serve();
    const withForm = await startReview(view);
    const bare = await view.engine.start('bare');

    const formPage = await view.page(`/instances/${withForm}`);
    const forms = dataOf(formPage).forms as Record<string, { schema: { id: string } }>;
    expect(Object.values(forms).map((form) => form.schema.id)).toEqual(['review-form']);
    expect(formPage).toContain('class="camunda-form"');
    expect(formPage).toContain('form-viewer.js');

    const barePage = await view.page(`/instances/${bare}`);
    expect(barePage).toContain('<textarea name="variables"');
    expect(barePage).not.toContain('form-viewer.js');
  });

  it('renders a linked Camunda Form it is given by form id, and a JSON editor for one it is not given', async () => {
    const linked = BARE_BPMN.replace('id="bare-defs"', 'id="linked-defs"')
      .replace('id="bare" name="Bare approval"', 'id="linked" name="Linked approval"')
      .replace('<zeebe:userTask />', '<zeebe:userTask /><zeebe:formDefinition formId="approval-form" />');
    const schema = { id: 'approval-form', type: 'default', components: [{ type: 'checkbox', key: 'ok', label: 'OK' }] };
    view = await serve({ forms: new Map([['approval-form', schema]]) });
    await view.engine.deploy(linked);
    const id = await view.engine.start('linked');

    const page = await view.page(`/instances/${id}`);
    expect(Object.values(dataOf(page).forms as Record<string, { schema: unknown }>)).toEqual([{ schema, data: {} }]);

    const without = await serve();
    try {
      await without.engine.deploy(linked);
      const other = await without.engine.start('linked');
      const bare = await without.page(`/instances/${other}`);
      expect(dataOf(bare).forms).toEqual({});
      expect(bare).toContain('<textarea name="variables"');
    } finally {
      await without.close();
    }
  });

  it('lists what it waits to receive, with a form to correlate it', async () => {
    view = await serve();
    view.charge.fails = false;
    const id = await startReview(view);
    await completeReview(view, id);

    const page = await view.page(`/instances/${id}`);

    expect(page).toMatch(
      /<tr data-subscription="awaitPayment"><td>awaitPayment<\/td><td>message<\/td><td>payment-received<\/td><td>o-1<\/td>/,
    );
    expect(page).toContain('data-action="correlate"');
  });

  it('links a called child to its parent and the parent to the call tree', async () => {
    view = await serve();
    const root = await view.engine.start('caller');
    await view.engine.settled(root);
    const [child] = await view.engine.instances({ parentId: root });

    const childPage = await view.page(`/instances/${child?.instanceId}`);
    expect(childPage).toContain(
      `<dt>Called by</dt><dd><a href="/instances/${root}"><code>${root}</code></a> at callBare</dd>`,
    );
    expect(childPage).toContain(`<a id="call-tree" href="/instances?root=${root}">`);
    const rootPage = await view.page(`/instances/${root}`);
    expect(rootPage).toContain(`href="/instances/${child?.instanceId}"`);
    expect(rootPage).toContain(`<a id="call-tree" href="/instances?root=${root}">`);
  });

  it('nests the instances an instance called, at any depth, under it: its part of the call tree', async () => {
    view = await serve();
    await view.engine.deploy(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="grand-defs">
  <bpmn:process id="grand" isExecutable="true">
    <bpmn:startEvent id="gs" /><bpmn:sequenceFlow id="g1" sourceRef="gs" targetRef="callCaller" />
    <bpmn:callActivity id="callCaller"><bpmn:extensionElements><zeebe:calledElement processId="caller" /></bpmn:extensionElements></bpmn:callActivity>
    <bpmn:sequenceFlow id="g2" sourceRef="callCaller" targetRef="ge" /><bpmn:endEvent id="ge" />
  </bpmn:process>
</bpmn:definitions>`);
    const root = await view.engine.start('grand');
    await view.engine.settled(root);
    const [caller] = await view.engine.instances({ parentId: root });
    const [bare] = await view.engine.instances({ parentId: caller!.instanceId });

    const rootPage = await view.page(`/instances/${root}`);
    const callerPage = await view.page(`/instances/${caller!.instanceId}`);

    const nested = new RegExp(
      `<li data-instance="${caller!.instanceId}">.*?<ul class="tree"><li data-instance="${bare!.instanceId}">`,
      's',
    );
    expect(rootPage).toMatch(nested);
    expect(callerPage).toContain(`<li data-instance="${bare!.instanceId}">`);
    expect(callerPage).not.toContain(`<li data-instance="${caller!.instanceId}">`);
  });

  it('nests its element instances as they ran, with when each began and ended: a sub-process holds its own', async () => {
    view = await serve();
    await view.engine.deploy(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="nest-defs">
  <bpmn:process id="nest" isExecutable="true">
    <bpmn:startEvent id="ns" /><bpmn:sequenceFlow id="n1" sourceRef="ns" targetRef="sub" />
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="in" /><bpmn:sequenceFlow id="n2" sourceRef="in" targetRef="check" />
      <bpmn:userTask id="check"><bpmn:extensionElements><zeebe:userTask /></bpmn:extensionElements></bpmn:userTask>
    </bpmn:subProcess>
  </bpmn:process>
</bpmn:definitions>`);
    const id = await view.engine.start('nest');
    await view.engine.settled(id);

    const page = await view.page(`/instances/${id}`);

    expect(page).toMatch(/<li data-activation="\/:ns:0">ns <span class="sub">[^<]+ – [^<]+Z<\/span><\/li>/);
    expect(page).toMatch(
      /<li data-activation="\/:sub:0">sub <span class="sub">[^<]+ – active<\/span><ul class="tree"><li data-activation="\/sub:in:0">in .*?<li data-activation="\/sub:check:0">check <span class="sub">[^<]+ – active/s,
    );
  });

  it('answers 404 for an instance the store does not have', async () => {
    view = await serve();
    const response = await view.get('/instances/nope');
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('no instance nope in this store');
  });
});
