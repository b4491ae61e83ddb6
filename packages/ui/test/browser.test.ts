import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, drawn, launch, until } from './browser.js';
import { decided, type Harness, serve } from './harness.js';

let browser: Browser;
let view: Harness | undefined;

beforeAll(async () => {
  if (browserAvailable()) browser = await launch();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await view?.close();
  view = undefined;
});

async function open(path: string): Promise<Page> {
  if (!view) throw new Error('no view');
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  (page as Page & { errors?: string[] }).errors = errors;
  await page.goto(new URL(path, view.server.url).href);
  return page;
}

function errorsOf(page: Page): string[] {
  return (page as Page & { errors?: string[] }).errors ?? [];
}

/** The classes of an element's shape on the drawn diagram. */
async function markerClasses(page: Page, elementId: string): Promise<string[]> {
  const shape = page.locator(`#diagram g.djs-element[data-element-id="${elementId}"]`);
  return ((await shape.getAttribute('class')) ?? '').split(/\s+/);
}

async function reviewAt(h: Harness, stage: 'task' | 'incident'): Promise<string> {
  const id = await h.engine.start('review', { variables: { orderId: `o-${Math.random()}` } });
  await h.engine.settled(id);
  if (stage === 'incident') {
    const [task] = (await h.engine.instance(id))?.userTasks ?? [];
    await h.engine.completeUserTask(task?.id ?? '', { reviewer: 'bob' });
    await h.engine.settled(id);
  }
  return id;
}

/** The stroke and fill the browser paints an element's shape, or a flow's line, with: what a person sees. */
async function paint(page: Page, elementId: string): Promise<{ stroke: string; fill: string }> {
  return page.evaluate(`(() => {
    // A flow's visual holds its arrowhead's definition first, then its line.
    const shape = document.querySelector('#diagram g.djs-element[data-element-id="${elementId}"] .djs-visual > :not(defs)');
    const style = getComputedStyle(shape);
    return { stroke: style.stroke, fill: style.fill };
  })()`);
}

/** The legend's colour of a marker kind: its border and background. */
async function legend(page: Page, kind: string): Promise<{ border: string; background: string }> {
  return page.evaluate(`(() => {
    const style = getComputedStyle(document.querySelector('.legend .mark-${kind}'));
    return { border: style.borderBottomColor, background: style.backgroundColor };
  })()`);
}

const ACTIVE = { stroke: 'rgb(31, 111, 208)', fill: 'rgb(227, 240, 255)' };
const COMPLETED = { stroke: 'rgb(46, 125, 50)', fill: 'rgb(237, 247, 238)' };
const INCIDENT = { stroke: 'rgb(198, 40, 40)', fill: 'rgb(253, 236, 234)' };
const MARKED = [ACTIVE.stroke, COMPLETED.stroke, INCIDENT.stroke];

/** start → charge (service task, one retry) → end, with no diagram: the view lays it out. */
const BARE_CHARGE = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="bare-charge-defs">
  <bpmn:process id="bare-charge" isExecutable="true">
    <bpmn:startEvent id="bs" /><bpmn:sequenceFlow id="bf1" sourceRef="bs" targetRef="bareCharge" />
    <bpmn:serviceTask id="bareCharge"><bpmn:extensionElements><zeebe:taskDefinition type="charge" retries="1" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="bf2" sourceRef="bareCharge" targetRef="be" /><bpmn:endEvent id="be" />
  </bpmn:process>
</bpmn:definitions>`;

describe.skipIf(!browserAvailable())('what a person sees on an instance diagram', () => {
  it('draws the active task, the completed elements and the path taken in their colours on a diagram of its own, the rest untouched', async () => {
    view = await serve();
    const id = await reviewAt(view, 'task');
    const page = await open(`/instances/${id}`);
    await drawn(page);

    expect(await paint(page, 'reviewTask')).toEqual(ACTIVE);
    expect(await paint(page, 'start')).toEqual(COMPLETED);
    expect((await paint(page, 'f1')).stroke).toBe(COMPLETED.stroke);
    const arrowhead = `getComputedStyle(document.querySelector('#diagram g.djs-element[data-element-id="f1"] marker path')).fill`;
    expect(await page.evaluate(arrowhead)).toBe(COMPLETED.stroke);
    for (const untouched of ['charge', 'awaitPayment', 'end', 'f2', 'f3']) {
      expect(MARKED).not.toContain((await paint(page, untouched)).stroke);
    }
    expect(await legend(page, 'active')).toEqual({ border: ACTIVE.stroke, background: ACTIVE.fill });
    expect(await legend(page, 'completed')).toEqual({ border: COMPLETED.stroke, background: COMPLETED.fill });
    expect((await legend(page, 'taken')).border).toBe(COMPLETED.stroke);
  });

  it('draws an incident in its colour over the active marker, and the path that led to it', async () => {
    view = await serve();
    const id = await reviewAt(view, 'incident');
    const page = await open(`/instances/${id}`);
    await drawn(page);

    expect(await paint(page, 'charge')).toEqual(INCIDENT);
    expect(await paint(page, 'reviewTask')).toEqual(COMPLETED);
    expect((await paint(page, 'f2')).stroke).toBe(COMPLETED.stroke);
    expect(MARKED).not.toContain((await paint(page, 'f3')).stroke);
    expect(await legend(page, 'incident')).toEqual({ border: INCIDENT.stroke, background: INCIDENT.fill });
  });

  it('draws every marker kind in its colour on a diagram the view laid out', async () => {
    view = await serve();
    await view.engine.deploy(BARE_CHARGE);
    const waiting = await view.engine.start('bare');
    const failed = await view.engine.start('bare-charge');
    await view.engine.settled(waiting);
    await view.engine.settled(failed);

    const approval = await open(`/instances/${waiting}`);
    await drawn(approval);
    expect(await paint(approval, 'approve')).toEqual(ACTIVE);
    expect(await paint(approval, 's')).toEqual(COMPLETED);
    expect((await paint(approval, 'a')).stroke).toBe(COMPLETED.stroke);
    expect(MARKED).not.toContain((await paint(approval, 'e')).stroke);
    const charge = await open(`/instances/${failed}`);
    await drawn(charge);
    expect(await paint(charge, 'bareCharge')).toEqual(INCIDENT);
    expect((await paint(charge, 'bf1')).stroke).toBe(COMPLETED.stroke);
    expect(errorsOf(approval)).toEqual([]);
    expect(errorsOf(charge)).toEqual([]);
  });
});

describe.skipIf(!browserAvailable())('a decision evaluation in a browser', () => {
  it("draws the called decision's table with the rules that matched marked; its DMN file's page offers each decision when the file has no requirements diagram", async () => {
    view = await serve();
    const id = await decided(view);
    const record = (await view.engine.instance(id))!.decisions[0]!;
    const matched = record.evaluated.at(-1)!.matchedRules.map((rule) => rule.ruleId);

    const page = await open(`/instances/${id}/decisions/0`);
    await page.waitForSelector('#dmn[data-drawn="true"]');
    const cells = (rule: string) =>
      page.evaluate(
        `[...document.querySelectorAll('#dmn [data-row-id="${rule}"]')].map((cell) => [cell.classList.contains('thresher-matched'), getComputedStyle(cell).backgroundColor])`,
      ) as Promise<[boolean, string][]>;

    expect(matched.length).toBeGreaterThan(0);
    for (const rule of matched) {
      const found = await cells(rule);
      expect(found.length).toBeGreaterThan(0);
      expect(found).toEqual(found.map(() => [true, COMPLETED.fill]));
    }
    const other = ['ship-high', 'ship-express', 'ship-standard'].find((rule) => !matched.includes(rule))!;
    expect((await cells(other)).some(([marked]) => marked)).toBe(false);
    // dmn-js's own bundle logs that its Inferno build is a development one; nothing of the view's.
    const ours = (errors: string[]) => errors.filter((error) => !error.includes('development build of Inferno'));
    expect(ours(errorsOf(page))).toEqual([]);

    // The fixture's DMN file has no diagram of its requirements: its decisions are offered one by one.
    const graph = await open(`/decisions/${record.digest}`);
    await graph.waitForSelector('#dmn[data-drawn="true"]');
    const offered = await graph
      .locator('#dmn-views button')
      .evaluateAll((buttons) =>
        buttons.map((button) => (button as unknown as { dataset: { decision: string } }).dataset.decision),
      );
    expect(offered).toEqual(expect.arrayContaining(['risk', 'shipping', 'discounts']));
    await graph.locator('#dmn-views button[data-decision="shipping"]').click();
    await until(graph, `document.querySelector('#dmn [data-row-id="ship-high"]') !== null`);
    expect(ours(errorsOf(graph))).toEqual([]);
  });
});

describe.skipIf(!browserAvailable())('a DMN file with a requirements diagram in a browser', () => {
  it('draws its decisions where its diagram places them, the requirement between them, and opens a decision from the graph and back', async () => {
    view = await serve();
    const id = await decided(view, { diagram: true });
    const record = (await view.engine.instance(id))!.decisions[0]!;

    const graph = await open(`/decisions/${record.digest}`);
    await graph.waitForSelector('#dmn[data-drawn="true"]');
    const box = (elementId: string) =>
      graph.locator(`#dmn .djs-element[data-element-id="${elementId}"] .djs-visual`).first().boundingBox();
    const shipping = (await box('shipping'))!;
    const risk = (await box('risk'))!;
    const discounts = (await box('discounts'))!;

    // Drawn at the diagram's sizes and places (the canvas is not zoomed; the 2px stroke straddles the outline):
    // shipping 200 above risk, discounts beside it.
    expect([shipping.width, shipping.height]).toEqual([182, 82]);
    expect(risk.y - shipping.y).toBe(200);
    expect(risk.x).toBe(shipping.x);
    expect(discounts.x - shipping.x).toBe(260);
    const requirement = (await box('shipping-needs-risk'))!;
    expect(requirement.height).toBeGreaterThanOrEqual(100);
    expect(await graph.locator('#dmn .djs-element[data-element-id="shipping"]').textContent()).toContain('Shipping');
    expect(await graph.locator('#no-drd').count()).toBe(0);

    // A decision's drill-down opens its table; the view's own button goes back to the graph.
    await graph.locator('#dmn .djs-overlays[data-container-id="shipping"] .drill-down-overlay button').click();
    await until(graph, `document.querySelector('#dmn [data-row-id="ship-high"]') !== null`);
    await graph.locator('#dmn-views button[data-drd="true"]').click();
    await until(graph, `document.querySelector('#dmn .djs-element[data-element-id="risk"]') !== null`);
    const ours = (errors: string[]) => errors.filter((error) => !error.includes('development build of Inferno'));
    expect(ours(errorsOf(graph))).toEqual([]);
  });
});

describe.skipIf(!browserAvailable())('editing a variable in a browser', () => {
  it('refuses a value that is not JSON before sending it, sets a valid one, and the instance goes on with it', async () => {
    view = await serve();
    view.charge.fails = false;
    const id = await view.engine.start('review', { variables: { orderId: 'o-1' } });
    await view.engine.settled(id);
    const page = await open(`/instances/${id}`);
    await drawn(page);
    const edit = page.locator('[data-scope-edit="/"]');

    await edit.locator('input[name="name"]').fill('orderId');
    await edit.locator('input[name="value"]').fill("'o-2'");
    await edit.locator('button[type="submit"]').click();
    await until(
      page,
      `document.querySelector('[data-scope-edit="/"] .json-error')?.textContent.startsWith('not JSON')`,
    );
    expect((await view.engine.instance(id))?.variables).toEqual({ orderId: 'o-1' });

    await edit.locator('input[name="value"]').fill('"o-2"');
    await Promise.all([page.waitForURL(/done=/), edit.locator('button[type="submit"]').click()]);
    expect(await page.locator('#done').textContent()).toContain('variable orderId set in scope /');

    // The instance goes on with it: the payment it waits for next is correlated by the new order id.
    const [task] = (await view.engine.instance(id))!.userTasks;
    await view.engine.completeUserTask(task!.id, { reviewer: 'grace' });
    await view.engine.settled(id);
    expect((await view.engine.instance(id))?.subscriptions).toEqual([
      expect.objectContaining({ name: 'payment-received', correlationKey: 'o-2' }),
    ]);
    expect(errorsOf(page)).toEqual([]);
  });
});

describe.skipIf(!browserAvailable())('the task list in a browser', () => {
  it('claims a task from the list, completes it through its form on its page, and the instance page follows live', async () => {
    view = await serve({ taskList: true });
    view.charge.fails = false;
    const id = await reviewAt(view, 'task');
    const watcher = await open(`/instances/${id}`);
    await drawn(watcher);
    await watcher.evaluate('window.notReloaded = true');

    const list = await open('/tasks');
    const row = list.locator('#tasks tbody tr');
    await row.locator('input[name="assignee"]').fill('kim');
    await Promise.all([list.waitForURL(/\/tasks$/), row.locator('button[type="submit"]').click()]);
    expect(await list.locator('#tasks tbody tr td.assignee').textContent()).toBe('kim');
    await Promise.all([list.waitForURL(/\/tasks\/.+/), list.locator('a.open-task').click()]);
    const form = list.locator('.camunda-form[data-form-for]');
    await form.getByLabel('Reviewer').fill('grace');
    await form.getByLabel('Reviewer').press('Tab');
    await Promise.all([
      list.waitForURL(/\/tasks$/),
      list.locator('form[data-action="complete"] button[type="submit"]').click(),
    ]);

    expect(await list.locator('#tasks').count()).toBe(0);
    expect(await list.locator('#task-count').textContent()).toContain('0 open tasks');
    expect((await view.engine.instance(id))?.variables).toMatchObject({ reviewer: 'grace' });
    await until(
      watcher,
      `document.querySelector('#diagram g.djs-element[data-element-id="awaitPayment"]')?.classList.contains('thresher-active')`,
    );
    expect(await watcher.evaluate('window.notReloaded')).toBe(true);
    expect(errorsOf(list)).toEqual([]);
  });
});

describe.skipIf(!browserAvailable())('in a browser', () => {
  it('draws the process diagram with the heat counts on the right elements', async () => {
    view = await serve();
    await reviewAt(view, 'task');
    await reviewAt(view, 'task');
    await reviewAt(view, 'incident');
    const page = await open('/processes/review-defs/1');
    await drawn(page);

    const heat = (id: string, kind: string) => page.locator(`.heat[data-element="${id}"] .heat-${kind}`).textContent();
    expect(await heat('reviewTask', 'waiting')).toBe('2');
    expect(await heat('reviewTask', 'passed')).toBe('1');
    expect(await heat('charge', 'waiting')).toBe('1');
    expect(await heat('charge', 'incidents')).toBe('1');
    expect(await heat('start', 'passed')).toBe('3');
    expect(await page.locator('.heat[data-element="end"]').count()).toBe(0);
    expect(errorsOf(page)).toEqual([]);
  });

  it('draws a laid-out diagram for a model without one', async () => {
    view = await serve();
    const page = await open('/processes/bare-defs/1');
    await drawn(page);
    expect(await page.locator('#diagram g.djs-element[data-element-id="approve"]').count()).toBe(1);
  });

  it('marks the waiting user task; completing it through its form moves the marker, and another open page follows live', async () => {
    view = await serve();
    view.charge.fails = false;
    const id = await reviewAt(view, 'task');
    const watcher = await open(`/instances/${id}`);
    await drawn(watcher);
    // Page code as text: these tests compile without the DOM's types.
    await watcher.evaluate('window.notReloaded = true');
    expect(await markerClasses(watcher, 'reviewTask')).toContain('thresher-active');

    const page = await open(`/instances/${id}`);
    await drawn(page);
    expect(await markerClasses(page, 'reviewTask')).toContain('thresher-active');
    const form = page.locator('.camunda-form[data-form-for]');
    // The rendered Camunda Form validates: an empty required field keeps the task open.
    await form.getByLabel('Reviewer').waitFor();
    await page.locator('form[data-action="complete"] button[type="submit"]').click();
    await form.locator('.fjs-form-field-error').first().waitFor();
    expect(page.url()).toBe(new URL(`/instances/${id}`, view.server.url).href);
    expect((await view.engine.instance(id))?.userTasks).toHaveLength(1);

    await form.getByLabel('Reviewer').fill('grace');
    // form-js applies typed text on blur (or after a debounce): leave the field as a person would.
    await form.getByLabel('Reviewer').press('Tab');
    await form.locator('input[type="checkbox"]').click();
    await until(page, `document.querySelector('.camunda-form input[type="checkbox"]')?.checked`);
    await Promise.all([
      page.waitForURL(new RegExp(`/instances/${id}$`)),
      page.locator('form[data-action="complete"] button[type="submit"]').click(),
    ]);
    await drawn(page);

    expect(await page.locator('#done').textContent()).toContain('completed');
    expect(await markerClasses(page, 'reviewTask')).toContain('thresher-completed');
    expect(await markerClasses(page, 'awaitPayment')).toContain('thresher-active');
    expect((await view.engine.instance(id))?.variables).toMatchObject({ reviewer: 'grace', approved: true });

    // The other page moved with it, without a reload.
    await until(
      watcher,
      `document.querySelector('#diagram g.djs-element[data-element-id="awaitPayment"]')?.classList.contains('thresher-active')`,
    );
    expect(await markerClasses(watcher, 'reviewTask')).toContain('thresher-completed');
    expect(await watcher.evaluate('window.notReloaded')).toBe(true);
    expect(await watcher.locator('#tasks').count()).toBe(0);
    expect(errorsOf(page)).toEqual([]);
    expect(errorsOf(watcher)).toEqual([]);
  });

  it('retrying an incident clears its marker', async () => {
    view = await serve();
    const id = await reviewAt(view, 'incident');
    const page = await open(`/instances/${id}`);
    await drawn(page);
    expect(await markerClasses(page, 'charge')).toContain('thresher-incident');
    expect(await page.locator('.badge-incident').count()).toBe(1);

    view.charge.fails = false;
    await Promise.all([page.waitForURL(/\/instances\//), page.locator('form[data-action="retry"] button').click()]);
    await drawn(page);

    expect(await markerClasses(page, 'charge')).not.toContain('thresher-incident');
    expect(await markerClasses(page, 'charge')).toContain('thresher-completed');
    expect(await page.locator('.badge-incident').count()).toBe(0);
    expect(await page.locator('#incidents').count()).toBe(0);
  });

  it('runs no script a variable or a business key carries', async () => {
    view = await serve();
    const evil = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';
    const id = await view.engine.start('bare', { variables: { note: evil }, businessKey: evil });
    await view.engine.settled(id);
    const page = await open(`/instances/${id}`);
    await drawn(page);

    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(await page.locator('tr[data-variable="note"] pre').textContent()).toBe(JSON.stringify(evil));
    expect(await page.locator('img[src="x"]').count()).toBe(0);
  });

  it('asks for the token, and takes it once from the address', async () => {
    view = await serve({ token: 'browser-token' });
    const refused = await open('/');
    expect(await refused.locator('#error').textContent()).toContain('THRESHER_UI_UNAUTHORIZED');

    const page = await open('/instances?token=browser-token');
    expect(new URL(page.url()).search).toBe('');
    expect(await page.locator('h1').textContent()).toBe('Instances');
    await page.goto(new URL('/', view.server.url).href);
    expect(await page.locator('h1').textContent()).toBe('Processes');
  });
});
