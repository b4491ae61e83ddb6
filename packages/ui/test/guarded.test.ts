import { afterEach, describe, expect, it } from 'vitest';
import { actionToken, decided, failedCharge, type Harness, serve, waitingTask } from './harness.js';

let view: Harness | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
});

const TOKEN = 's3cret-token';
const EVIL = '<img src=x onerror=alert(1)>';

/** Every kind of page the view has, each on a real subject: its processes, lists, an instance, a task, decisions. */
async function everyPage(h: Harness): Promise<string[]> {
  const decisionsOf = await decided(h);
  const incidentOf = await failedCharge(h);
  const task = await waitingTask(h);
  await h.projection!.caughtUp();
  const { digest } = (await h.engine.instance(decisionsOf))!.decisions[0]!;
  return [
    '/',
    '/processes/review-defs/1',
    '/instances',
    `/instances/${incidentOf}`,
    '/tasks',
    `/tasks/${encodeURIComponent(task)}`,
    '/incidents',
    `/instances/${decisionsOf}/decisions/0`,
    `/decisions/${digest}`,
  ];
}

describe('every page of the view', () => {
  it('is refused without the access token, and served with it under the content security policy', async () => {
    view = await serve({ token: TOKEN, taskList: true });
    const paths = await everyPage(view);
    const bearer = { headers: { Authorization: `Bearer ${TOKEN}` } };

    for (const path of [...paths, '/events']) expect([path, (await view.get(path)).status]).toEqual([path, 401]);
    for (const path of paths) {
      const served = await view.get(path, bearer);
      expect([path, served.status]).toEqual([path, 200]);
      const csp = served.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self'");
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('shows markup an assignee, a candidate group or an incident message carries as text, on the lists and the task', async () => {
    view = await serve({ taskList: true });
    view.charge.message = `declined ${EVIL}`;
    await failedCharge(view);
    const task = await waitingTask(view, { candidateGroups: [EVIL] });
    await view.engine.assignUserTask(task, EVIL);
    await view.projection!.caughtUp();

    const group = /data-group="([^"]+)"/.exec(await view.page('/incidents'))![1]!.replaceAll('&amp;', '&');
    for (const path of ['/tasks', `/tasks/${encodeURIComponent(task)}`, '/incidents', `/incidents?${group}`]) {
      const page = await view.page(path);
      expect([path, page.includes(EVIL)]).toEqual([path, false]);
      expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
  });

  it("refuses a claim or a retry from the lists without the page's token or from another origin, and does nothing", async () => {
    view = await serve({ taskList: true });
    const task = await waitingTask(view);
    const instance = task.slice(0, task.lastIndexOf('/'));
    const incidentOf = await failedCharge(view);
    await view.projection!.caughtUp();
    const claim = { _token: actionToken(await view.page('/tasks'), 'assign'), instance, task, assignee: 'mallory' };
    const { incidents } = (await view.engine.instance(incidentOf))!;
    const group = /data-group="([^"]+)"/.exec(await view.page('/incidents'))![1]!.replaceAll('&amp;', '&');
    const retry = {
      _token: actionToken(await view.page(`/incidents?${group}`), 'retry'),
      instance: incidentOf,
      incident: incidents[0]!.id,
    };

    const answers = [
      await view.post('/actions/assign', { ...claim, _token: 'forged' }),
      await view.post('/actions/assign', claim, { Origin: 'http://evil.example' }),
      await view.post('/actions/retry', { ...retry, _token: 'forged' }),
      await view.post('/actions/retry', retry, { Origin: 'http://evil.example' }),
    ];

    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403]);
    expect((await view.engine.instance(instance))!.userTasks[0]!.assignee).toBeNull();
    expect((await view.engine.instance(incidentOf))!.incidents).toEqual(incidents);
  });
});
