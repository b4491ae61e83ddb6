import { afterEach, describe, expect, it } from 'vitest';
import { actionToken, type Harness, serve } from './harness.js';
import { REVIEW_BPMN } from './models.js';

let view: Harness | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
});

/** v2 of the review: a named review task (a new digest, the same elements). */
const REVIEW_V2 = REVIEW_BPMN.replace('name="Payment received"', 'name="Payment in"');

describe('migrating the instances of a process version', () => {
  it('should propose each element its namesake in the target, and migrate the running instances as one batch', async () => {
    view = await serve({ taskList: true });
    const ids: string[] = [];
    for (const orderId of ['m-1', 'm-2']) {
      const id = await view.engine.start('review', { variables: { orderId } });
      await view.engine.settled(id);
      ids.push(id);
    }
    const v2 = await view.engine.deploy(REVIEW_V2);
    const { definitionId } = (await view.engine.deployment(v2.digest))!;

    const page = await view.page(`/processes/${definitionId}/1?migrateTo=2`);

    expect(page).toContain('Migrate 2 onto v2');
    expect(page).toMatch(/<option value="reviewTask=reviewTask" selected>reviewTask<\/option>/);
    const mapping = [...page.matchAll(/<option value="([^"]+)" selected>/g)]
      .map((match) => match[1]!)
      .filter((v) => v.includes('='));
    const posted = await view.post('/actions/migrate-instances', {
      _token: actionToken(page, 'migrate-instances'),
      instance: `migrate:${definitionId}:1`,
      definition: definitionId,
      from: '1',
      to: '2',
      map: mapping,
    });

    expect(posted.status).toBe(303);
    const batchPage = posted.headers.get('location')!;
    let shown = await view.page(batchPage);
    for (let n = 0; n < 500 && !shown.includes('data-state="COMPLETED"'); n++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      shown = await view.page(batchPage);
    }
    expect(shown).toContain('data-state="COMPLETED"');
    for (const id of ids) expect((await view.engine.instance(id))!.digest).toBe(v2.digest);
  });

  it('should offer no migration on a version without running instances, nor in read-only mode', async () => {
    view = await serve({ taskList: true, readOnly: true });
    await view.engine.start('review', { variables: { orderId: 'r-1' } });
    const v2 = await view.engine.deploy(REVIEW_V2);
    const { definitionId } = (await view.engine.deployment(v2.digest))!;

    expect(await view.page(`/processes/${definitionId}/1`)).not.toContain('id="migrate"');
    expect(await view.page(`/processes/${definitionId}/2`)).not.toContain('id="migrate"');
  });
});
