import { afterEach, describe, expect, it } from 'vitest';
import { actionToken, failedCharge, type Harness, serve } from './harness.js';

let view: Harness | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
});

describe('the incidents across instances', () => {
  it('should group the open incidents of every instance by process, element and message, with their counts', async () => {
    view = await serve({ taskList: true });
    await failedCharge(view);
    await failedCharge(view);
    await view.projection!.caughtUp();

    const page = await view.page('/incidents');

    expect(page).toContain('2 open incidents in 1 group');
    expect(page).toMatch(
      /<tr data-group="processId=review&amp;elementId=charge&amp;errorMessage=[^"]+"><td>review<\/td><td>charge<\/td><td>JOB_NO_RETRIES<\/td>/,
    );
    expect(page).toMatch(/card declined<\/a><\/td><td class="num">2<\/td>/);
  });

  it("should list a group's incidents with links to their instances, and retry one there, back on the group", async () => {
    view = await serve({ taskList: true });
    const first = await failedCharge(view);
    const second = await failedCharge(view);
    await view.projection!.caughtUp();
    const [group] = [...(await view.page('/incidents')).matchAll(/data-group="([^"]+)"/g)].map((m) =>
      m[1]!.replaceAll('&amp;', '&'),
    );
    const listed = await view.page(`/incidents?${group}`);
    const [incident] = (await view.engine.instance(first))!.incidents;
    view.charge.fails = false;

    const retried = await view.post('/actions/retry', {
      _token: actionToken(listed, 'retry'),
      instance: first,
      incident: incident!.id,
      back: `incidents?${group}`,
    });
    await view.engine.settled(first);
    const after = await view.page(`/incidents?${group}`);

    expect(listed).toContain(`href="/instances/${first}"`);
    expect(listed).toContain(`href="/instances/${second}"`);
    expect(retried.status).toBe(303);
    expect(retried.headers.get('location')).toBe(`/incidents?${group}`);
    expect(after).toContain('1 open incident at charge of review');
    expect(after).not.toContain(`href="/instances/${first}"`);
  });

  it('should say there is none, and what it needs when made without the projection', async () => {
    view = await serve({ taskList: true });
    const none = await view.page('/incidents');
    await view.close();
    view = await serve();
    const without = await view.page('/incidents');

    expect(none).toContain('No open incident.');
    expect(without).toContain('The incidents across instances are read from the search projection');
  });

  it('should retry a whole group as one batch operation, showing its progress, the instances going on', async () => {
    view = await serve({ taskList: true });
    const ids = [await failedCharge(view), await failedCharge(view)];
    await view.projection!.caughtUp();
    const page = await view.page('/incidents');
    const group = /data-group="([^"]+)"/.exec(page)![1]!.replaceAll('&amp;', '&');
    const fields = Object.fromEntries(new URLSearchParams(group));
    view.charge.fails = false;

    const posted = await view.post('/actions/retry-group', {
      _token: actionToken(page, 'retry-group'),
      instance: 'incident-groups',
      ...fields,
    });

    expect(posted.status).toBe(303);
    const batchPage = posted.headers.get('location')!;
    expect(batchPage).toMatch(/^\/batches\/\d+$/);
    let shown = await view.page(batchPage);
    for (let n = 0; n < 500 && !shown.includes('data-state="COMPLETED"'); n++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      shown = await view.page(batchPage);
    }
    expect(shown).toContain('data-state="COMPLETED"');
    expect(shown).toContain('2 of 2');
    for (const id of ids) {
      await view.engine.settled(id);
      expect((await view.engine.instance(id))!.incidents).toEqual([]);
    }
  });

  it('should refuse a group retry without the page token', async () => {
    view = await serve({ taskList: true });
    await failedCharge(view);
    await view.projection!.caughtUp();

    const posted = await view.post('/actions/retry-group', { _token: 'forged', instance: 'incident-groups' });

    expect(posted.status).toBe(403);
  });
});
