import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryRepository } from '@thresher/checkpoint';
import { Engine } from '@thresher/engine';
import { createUiHandler, startUiServer, UiError } from '@thresher/ui';
import { afterEach, describe, expect, it } from 'vitest';
import { actionToken, dataOf, type Harness, serve } from './harness.js';
import { BARE_BPMN } from './models.js';

let view: Harness | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
});

async function waitingBare(h: Harness, variables: Record<string, unknown> = {}, businessKey?: string) {
  const id = await h.engine.start('bare', { variables, ...(businessKey ? { businessKey } : {}) });
  await h.engine.settled(id);
  const [task] = (await h.engine.instance(id))?.userTasks ?? [];
  if (!task) throw new Error('no task');
  return { id, taskId: task.id };
}

/** A waiting `bare` instance, its task, and the action token its page gives the task's Complete form. */
async function completable(h: Harness) {
  const waiting = await waitingBare(h);
  return { ...waiting, token: actionToken(await h.page(`/instances/${waiting.id}`), 'complete') };
}

/** POSTs the Complete form of `completable`'s task, as its page would. */
function postComplete(h: Harness, task: { id: string; taskId: string; token: string }, variables: string) {
  return h.post('/actions/complete', { _token: task.token, instance: task.id, task: task.taskId, variables });
}

describe('escaping', () => {
  it('renders a variable, a business key and a model name holding markup as text', async () => {
    view = await serve();
    const evil = '<script>alert(1)</script>';
    const { id } = await waitingBare(view, { note: evil, [`k${evil}`]: 1 }, `key${evil}`);

    const page = await view.page(`/instances/${id}`);

    expect(page).not.toContain(evil);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('keeps a model whose names hold </script> inside the page data block', async () => {
    view = await serve();
    const xml = BARE_BPMN.replace('id="bare-defs"', 'id="evil-defs"').replace(
      'id="bare" name="Bare approval"',
      'id="evil" name="&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"',
    );
    await view.engine.deploy(xml);

    const page = await view.page('/processes/evil-defs/1');

    // One closing tag per script element, and the data parses back to the model as deployed.
    expect(page.match(/<\/script>/g)?.length).toBe(page.match(/<script/g)?.length);
    expect(String(dataOf(page).xml)).toContain('name="&#60;/script&#62;&#60;script&#62;alert(1)&#60;/script&#62;"');
    expect(page).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; <span class="sub">evil-defs');
  });
});

describe('actions', () => {
  it('completes a user task from a POST carrying its page token and origin', async () => {
    view = await serve();
    const { id, taskId, token } = await completable(view);

    const response = await postComplete(view, { id, taskId, token }, '{"ok":true}');

    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(new RegExp(`^/instances/${id}\\?done=`));
    await view.engine.settled(id);
    const after = await view.engine.instance(id);
    expect(after?.status).toBe('completed');
    expect(after?.variables).toMatchObject({ ok: true });
    // The page it leads to says what was done; the same words without the view's signature are not shown.
    expect(await view.page(response.headers.get('location') ?? '')).toContain(
      `<p class="notice done" id="done">user task ${taskId} completed</p>`,
    );
    expect(await view.page(`/instances/${id}?done=Session+expired%3A+log+in+at+evil.example`)).not.toContain(
      'id="done"',
    );
  });

  it('refuses a POST without the page token, with another instance token, or from another origin, and acts on nothing', async () => {
    view = await serve();
    const { id, taskId } = await waitingBare(view);
    const other = await waitingBare(view);
    const token = actionToken(await view.page(`/instances/${id}`), 'complete');
    const otherToken = actionToken(await view.page(`/instances/${other.id}`), 'complete');
    const fields = { instance: id, task: taskId, variables: '{}' };

    const refusals = [
      await view.post('/actions/complete', fields),
      await view.post('/actions/complete', { ...fields, _token: otherToken }),
      await view.post('/actions/complete', { ...fields, _token: token }, { Origin: 'http://evil.example' }),
      // A token for this instance does not act on another instance's task.
      await view.post('/actions/complete', { _token: otherToken, instance: other.id, task: taskId, variables: '{}' }),
    ];

    expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 400]);
    expect(await refusals[0]?.text()).toContain('THRESHER_UI_FORBIDDEN');
    expect(await refusals[3]?.text()).toContain(`user task ${taskId} is not of instance ${other.id}`);
    expect((await view.engine.instance(id))?.userTasks).toHaveLength(1);
  });

  it('refuses variables that are not a JSON object by name, leaving the task open', async () => {
    view = await serve();
    const { id, taskId, token } = await completable(view);

    const response = await postComplete(view, { id, taskId, token }, '[1]');

    expect(response.status).toBe(400);
    expect(await response.text()).toContain('variables must be a JSON object');
    expect((await view.engine.instance(id))?.userTasks).toHaveLength(1);
  });

  it('shows an engine refusal by its class, code and message, with no stack', async () => {
    view = await serve();
    const { id, taskId, token } = await completable(view);
    await view.engine.completeUserTask(taskId, {});

    const response = await postComplete(view, { id, taskId, token }, '{}');

    expect(response.status).toBe(404);
    const page = await response.text();
    expect(page).toContain('<strong>NotFoundError</strong> <code>THRESHER_NOT_FOUND</code>');
    expect(page).not.toMatch(/\n\s+at /);
    expect(page).not.toContain('.ts:');
  });

  it('retries an incident and cancels an instance', async () => {
    view = await serve();
    const id = await view.engine.start('review', { variables: { orderId: 'o-9' } });
    await view.engine.settled(id);
    const [task] = (await view.engine.instance(id))?.userTasks ?? [];
    await view.engine.completeUserTask(task?.id ?? '', { reviewer: 'x' });
    await view.engine.settled(id);
    const [incident] = (await view.engine.instance(id))?.incidents ?? [];
    view.charge.fails = false;
    const page = await view.page(`/instances/${id}`);

    const retried = await view.post('/actions/retry', {
      _token: actionToken(page, 'retry'),
      instance: id,
      incident: incident?.id ?? '',
    });
    expect(retried.status).toBe(303);
    await view.engine.settled(id);
    expect((await view.engine.instance(id))?.incidents).toEqual([]);

    const cancelled = await view.post('/actions/cancel', { _token: actionToken(page, 'cancel'), instance: id });
    expect(cancelled.status).toBe(303);
    expect((await view.engine.instance(id))?.status).toBe('terminated');
  });

  it('shows no actions and refuses every POST in read-only mode', async () => {
    view = await serve({ readOnly: true });
    const { id, taskId } = await waitingBare(view);
    const page = await view.page(`/instances/${id}`);

    expect(page).not.toContain('<form class="action');
    expect(page).toContain('read-only');
    const response = await view.post('/actions/complete', { _token: 'x', instance: id, task: taskId });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('this view is read-only');
  });

  it('takes actions only as POSTs', async () => {
    view = await serve();
    expect((await view.get('/actions/cancel')).status).toBe(405);
    expect((await view.get('/', { method: 'DELETE' })).status).toBe(405);
  });
});

describe('access token', () => {
  it('refuses to listen beyond loopback without a token, saying why', async () => {
    const engine = new Engine({ repository: createMemoryRepository() });
    try {
      const refused = await startUiServer({ engine, host: '0.0.0.0' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UiError);
      expect(refused).toMatchObject({ code: 'THRESHER_UI_TOKEN_REQUIRED' });
      expect((refused as Error).message).toContain('give an access token (--token or THRESHER_UI_TOKEN)');
    } finally {
      await engine.close();
    }
  });

  it('checks the token on every request: bearer, or ?token= once and then its cookie', async () => {
    view = await serve({ token: 's3cret-token' });

    expect((await view.get('/')).status).toBe(401);
    expect((await view.get('/', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await view.get('/assets/x/ui.js')).status).toBe(401);
    expect((await view.get('/', { headers: { Authorization: 'Bearer s3cret-token' } })).status).toBe(200);

    const entry = await view.get('/instances?token=s3cret-token&status=running');
    expect(entry.status).toBe(303);
    expect(entry.headers.get('location')).toBe('/instances?status=running');
    const cookie = entry.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^thresher_ui_token=s3cret-token; Path=\/; HttpOnly; SameSite=Strict$/);
    expect((await view.get('/instances', { headers: { Cookie: cookie.split(';')[0] ?? '' } })).status).toBe(200);
    expect((await view.get('/?token=wrong')).status).toBe(401);
  });
});

describe('assets', () => {
  it('serves the table assets under their digest, immutable, and nothing else', async () => {
    view = await serve();
    const page = await view.page('/');
    const viewerPath = /src="(\/assets\/[0-9a-f]{16}\/bpmn-viewer\.js)"/.exec(page)?.[1] ?? '';

    const viewer = await view.get(viewerPath);
    expect(viewer.status).toBe(200);
    expect(viewer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(viewer.headers.get('cache-control')).toContain('immutable');
    expect((await viewer.text()).length).toBeGreaterThan(100_000);

    const digest = viewerPath.split('/')[2];
    for (const path of [
      `/assets/${digest}/package.json`,
      `/assets/${digest}/..%2F..%2Fpackage.json`,
      `/assets/${digest}/%2e%2e/ui.js`,
      '/assets/0000000000000000/bpmn-viewer.js',
      '/assets/ui.js',
    ]) {
      expect((await view.get(path)).status, path).toBe(404);
    }
  });
});

describe('live updates', () => {
  it("streams a change to an instance's page when the engine moves it", async () => {
    view = await serve();
    const { id, taskId } = await waitingBare(view);
    const controller = new AbortController();
    const response = await view.get(`/events?subject=${encodeURIComponent(`instance:${id}`)}`, {
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const change = (async () => {
      while (!seen.includes('event: change')) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        seen += decoder.decode(chunk.value);
      }
    })();

    await view.engine.completeUserTask(taskId, {});
    await change;
    controller.abort();

    expect(seen).toContain(`event: change\ndata: {"subject":"instance:${id}"`);
  });
});

describe('mounted under a path', () => {
  it('serves under basePath, links within it, and answers 404 outside it', async () => {
    const engine = new Engine({ repository: createMemoryRepository() });
    await engine.deploy(BARE_BPMN);
    const handler = createUiHandler(engine, { basePath: '/ops/' });
    const server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const page = await (await fetch(`${base}/ops/`)).text();
      expect(page).toContain('href="/ops/processes/bare-defs/1"');
      expect(page).toMatch(/src="\/ops\/assets\/[0-9a-f]{16}\/ui\.js"/);
      expect((await fetch(`${base}/processes/bare-defs/1`)).status).toBe(404);
      expect((await fetch(`${base}/ops/processes/bare-defs/1`)).status).toBe(200);
    } finally {
      handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await engine.close();
    }
  });
});
