import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, drawn, launch, until } from './browser.js';
import { failedCharge, type Harness, serve } from './harness.js';

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
  const page = await browser.newPage();
  // The view's forms ask before acting on many instances at once: a person says yes.
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(new URL(path, view!.server.url).href);
  return page;
}

describe.skipIf(!browserAvailable())('repairing instances in a browser', () => {
  it('retries a whole incident group as one batch operation, its progress shown until done, the instances going on', async () => {
    view = await serve({ taskList: true });
    const ids = [await failedCharge(view), await failedCharge(view), await failedCharge(view)];
    await view.projection!.caughtUp();
    view.charge.fails = false;
    const page = await open('/incidents');

    await Promise.all([
      page.waitForURL(/\/batches\/\d+$/),
      page.locator('form[data-action="retry-group"] button[type="submit"]').click(),
    ]);
    // The page reloads itself while the batch runs.
    await until(page, `document.querySelector('#batch')?.dataset.state === 'COMPLETED'`);

    expect(await page.locator('#batch progress').getAttribute('value')).toBe('3');
    expect(await page.locator('#batch').textContent()).toContain('3 of 3');
    for (const id of ids) {
      await view.engine.settled(id);
      expect((await view.engine.instance(id))!.incidents).toEqual([]);
    }
    const incidents = await open('/incidents');
    expect(await incidents.locator('#no-incidents').textContent()).toBe('No open incident.');
  });

  it('moves a token on the diagram: the target picked by a click, the instance continuing from there', async () => {
    view = await serve();
    const id = await view.engine.start('review', { variables: { orderId: 'o-9' } });
    await view.engine.settled(id);
    const page = await open(`/instances/${id}`);
    await drawn(page);
    const [source] = (await view.engine.instance(id))!.elementInstances;

    await page.locator('form[data-action="modify"] select[name="terminate"]').selectOption(source!.id);
    await page.locator('#diagram g.djs-element[data-element-id="awaitPayment"]').click();
    expect(await page.locator('form[data-action="modify"] select[name="activate"]').inputValue()).toBe('awaitPayment');
    await Promise.all([
      page.waitForURL(new RegExp(`/instances/${id}$`)),
      page.locator('form[data-action="modify"] button[type="submit"]').click(),
    ]);
    await drawn(page);

    expect(await page.locator('#done').textContent()).toBe(`token moved from ${source!.id} to awaitPayment`);
    expect(
      await page.locator('#diagram g.djs-element[data-element-id="awaitPayment"]').getAttribute('class'),
    ).toContain('thresher-active');
    const after = (await view.engine.instance(id))!;
    expect(after.userTasks).toEqual([]);
    expect(after.activeElements).toEqual(['awaitPayment']);
    await view.engine.correlateMessage('payment-received', { correlationKey: 'o-9' });
    expect((await view.engine.settled(id)).status).toBe('completed');
  });

  it('refuses a modification that says neither what to move nor where, by name, the instance as it was', async () => {
    view = await serve();
    const id = await view.engine.start('review', { variables: { orderId: 'o-10' } });
    await view.engine.settled(id);
    const page = await open(`/instances/${id}`);
    await drawn(page);

    await page.locator('form[data-action="modify"] button[type="submit"]').click();

    await until(
      page,
      `document.querySelector('#error')?.textContent.includes('choose an element instance to move or cancel')`,
    );
    expect((await view.engine.instance(id))!.activeElements).toEqual(['reviewTask']);
  });
});
