import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryRepository } from '@thresher/checkpoint';
import { Engine } from '@thresher/engine';
import {
  basicAuthenticator,
  type CamundaRestServer,
  hashPassword,
  readUsers,
  startCamundaRestServer,
} from '@thresher/rest';
import { createUiHandler } from '@thresher/ui';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, drawn, launch, until } from './browser.js';
import { BARE_BPMN } from './models.js';

let browser: Browser;
let engine: Engine | undefined;
let api: CamundaRestServer | undefined;
const elsewhere: Server[] = [];

beforeAll(async () => {
  if (browserAvailable()) browser = await launch();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const server of elsewhere.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
  await api?.close(100);
  await engine?.close();
  api = engine = undefined;
});

const ALICE = { username: 'alice', password: 's3cret' };

/** The view mounted at /ui beside the API behind Basic auth, as `thresher serve --ui --auth basic` mounts it. */
async function serveBehindBasicAuth(): Promise<{ engine: Engine; origin: string }> {
  engine = new Engine({ repository: createMemoryRepository() });
  await engine.deploy(BARE_BPMN);
  const ui = createUiHandler(engine, { basePath: '/ui' });
  api = await startCamundaRestServer({
    engine,
    port: 0,
    authenticate: basicAuthenticator(readUsers(`alice:${await hashPassword(ALICE.password)}\n`)),
    mounts: [{ path: '/ui', handler: ui }],
  });
  return { engine, origin: new URL(api.url).origin };
}

/** A page of another site (another port) whose form posts itself to `action` as soon as it loads. */
async function formElsewhere(action: string, fields: Record<string, string>): Promise<string> {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
    .join('');
  const page = `<!doctype html><form method="post" action="${action}">${inputs}</form><script>document.forms[0].submit()</script>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  elsewhere.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://localhost:${(server.address() as AddressInfo).port}/`;
}

describe.skipIf(!browserAvailable())('the view beside the Camunda API behind --auth basic, in a browser', () => {
  it('asks for a password, then serves the pages, their actions and live updates to the one who gave it', async () => {
    const { engine, origin } = await serveBehindBasicAuth();
    const id = await engine.start('bare');
    await engine.settled(id);

    // A browser without the password is asked for it (as is the live stream).
    const refused = await fetch(`${origin}/ui/instances/${id}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm="thresher"/);
    expect((await fetch(`${origin}/ui/events?subject=${id}`)).status).toBe(401);

    const alice = await browser.newContext({ httpCredentials: ALICE });
    const watcher = await alice.newPage();
    await watcher.goto(`${origin}/ui/instances/${id}`);
    await drawn(watcher);
    await watcher.evaluate('window.notReloaded = true');
    const page = await alice.newPage();
    await page.goto(`${origin}/ui/instances/${id}`);
    await drawn(page);
    await page.locator('form[data-action="complete"] textarea[name="variables"]').fill('{"approved":true}');
    await Promise.all([
      page.waitForURL(new RegExp(`/ui/instances/${id}$`)),
      page.locator('form[data-action="complete"] button[type="submit"]').click(),
    ]);

    expect(await page.locator('#done').textContent()).toContain('completed');
    expect(await engine.instance(id)).toMatchObject({ status: 'completed', variables: { approved: true } });
    // The other page follows over the live stream, which the same credentials opened.
    await until(
      watcher,
      `document.querySelector('#diagram g.djs-element[data-element-id="e"]')?.classList.contains('thresher-completed')`,
    );
    expect(await watcher.evaluate('window.notReloaded')).toBe(true);
    await alice.close();
  });

  it("refuses another site's form that the browser sends with the password it holds, to the API and to the view alike", async () => {
    const { engine, origin } = await serveBehindBasicAuth();
    const id = await engine.start('bare');
    await engine.settled(id);
    const alice = await browser.newContext({ httpCredentials: ALICE });
    const authorization = `Basic ${Buffer.from(`${ALICE.username}:${ALICE.password}`).toString('base64')}`;
    const created = (await (
      await fetch(`${origin}/v2/process-instances`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ processDefinitionId: 'bare' }),
      })
    ).json()) as { processInstanceKey: string };
    // alice has the view open: her browser holds the password.
    await (await alice.newPage()).goto(`${origin}/ui/instances/${id}`);

    const toApi = await alice.newPage();
    const apiAnswer = toApi.waitForResponse((response) => response.url().includes('/cancellation'));
    await toApi.goto(
      await formElsewhere(`${origin}/v2/process-instances/${created.processInstanceKey}/cancellation`, {}),
    );
    const answered = await apiAnswer;
    const toView = await alice.newPage();
    const viewAnswer = toView.waitForResponse((response) => response.url().endsWith('/ui/actions/cancel'));
    await toView.goto(await formElsewhere(`${origin}/ui/actions/cancel`, { instance: id }));
    const viewAnswered = await viewAnswer;

    // Each reached the server with her password, and each was refused for where it came from.
    expect(answered.status()).toBe(403);
    expect(await answered.text()).toContain("a browser's request from another site's page may not change anything");
    expect(viewAnswered.status()).toBe(403);
    const state = await fetch(`${origin}/v2/process-instances/${created.processInstanceKey}`, {
      headers: { authorization },
    });
    expect(((await state.json()) as { state: string }).state).toBe('ACTIVE');
    expect((await engine.instance(id))?.status).toBe('running');
    await alice.close();
  });
});
