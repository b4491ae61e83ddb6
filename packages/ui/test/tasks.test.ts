import { afterEach, describe, expect, it } from 'vitest';
import { actionToken, dataOf, type Harness, serve, waitingTask } from './harness.js';

let view: Harness | undefined;
afterEach(async () => {
  await view?.close();
  view = undefined;
});

/** The task ids the list shows, in order. */
function listed(page: string): string[] {
  return [...page.matchAll(/<tr data-task="([^"]+)">/g)].map((match) => match[1]!);
}

describe('the task list', () => {
  it('should list the open user tasks of every instance from the search projection, highest priority first', async () => {
    view = await serve({ taskList: true });
    const low = await waitingTask(view, { priority: 10 });
    const high = await waitingTask(view, { priority: 90 });
    const middle = await waitingTask(view);
    await view.projection!.caughtUp();

    const page = await view.page('/tasks');

    expect(listed(page)).toEqual([high, middle, low]);
    expect(page).toContain('3 open tasks match');
  });

  it('should filter by candidate group, priority and due date, and sort by due date, soonest first', async () => {
    view = await serve({ taskList: true });
    const later = await waitingTask(view, { candidateGroups: ['sales'], dueDate: '2027-03-01T00:00:00.000Z' });
    const sooner = await waitingTask(view, { candidateGroups: ['sales'], dueDate: '2027-01-15T00:00:00.000Z' });
    const undated = await waitingTask(view, { candidateGroups: ['sales'], priority: 70 });
    await waitingTask(view, { candidateGroups: ['finance'], dueDate: '2027-01-01T00:00:00.000Z' });
    await view.projection!.caughtUp();

    const sales = await view.page('/tasks?candidateGroup=sales&sort=dueDate');
    const dueSoon = await view.page('/tasks?candidateGroup=sales&dueBefore=2027-02-01');
    const urgent = await view.page('/tasks?minPriority=60');

    expect(listed(sales)).toEqual([sooner, later, undated]);
    expect(listed(dueSoon)).toEqual([sooner]);
    expect(listed(urgent)).toEqual([undated]);
    // Dates print as the rest of the view prints times, to the second.
    expect(dueSoon).toContain('<td>2027-01-15T00:00:00Z</td>');
  });

  it('should claim a task as the name given and unclaim it, back on the list with its filters', async () => {
    view = await serve({ taskList: true });
    const task = await waitingTask(view);
    const instance = task.slice(0, task.lastIndexOf('/'));
    await view.projection!.caughtUp();
    const page = await view.page('/tasks?sort=priority');

    const claimed = await view.post('/actions/assign', {
      _token: actionToken(page, 'assign'),
      instance,
      task,
      assignee: 'kim',
      back: 'tasks?sort=priority',
    });
    await view.projection!.caughtUp();
    const kims = await view.page('/tasks?assignee=kim');
    const unclaimed = await view.post('/actions/assign', {
      _token: actionToken(kims, 'assign'),
      instance,
      task,
      assignee: '',
      back: 'tasks',
    });
    await view.projection!.caughtUp();

    expect(claimed.status).toBe(303);
    expect(claimed.headers.get('location')).toBe('/tasks?sort=priority');
    expect(listed(kims)).toEqual([task]);
    expect(kims).toContain('>Unclaim</button>');
    expect(unclaimed.headers.get('location')).toBe('/tasks');
    expect((await view.engine.instance(instance))?.userTasks[0]?.assignee).toBeNull();
    expect(listed(await view.page('/tasks?unassigned=on'))).toEqual([task]);
  });

  it('should refuse a filter it cannot read, naming it, and say what it needs when made without a task list', async () => {
    view = await serve({ taskList: true });
    const bad = await view.get('/tasks?minPriority=high');
    const badDate = await view.get('/tasks?dueBefore=soon');
    await view.close();
    view = await serve();
    const without = await view.page('/tasks');

    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('minPriority must be a whole number from 0 to 100');
    expect(badDate.status).toBe(400);
    expect(await badDate.text()).toContain('dueBefore must be a date');
    expect(without).toContain('The task list reads the search projection of the Camunda API');
  });

  it('should show one open task on its own page, with its form, its actions going back to the list; gone, a 404', async () => {
    view = await serve({ taskList: true });
    const task = await waitingTask(view);

    const page = await view.page(`/tasks/${encodeURIComponent(task)}`);
    await view.engine.completeUserTask(task, { reviewer: 'ada' });
    const gone = await view.get(`/tasks/${encodeURIComponent(task)}`);

    expect(page).toContain(`data-form-for="${task}"`);
    expect(page).toContain('<input type="hidden" name="back" value="tasks">');
    expect(dataOf(page)).toMatchObject({ kind: 'task', forms: { [task]: { schema: { id: 'review-form' } } } });
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain(`no open user task ${task}`);
  });

  it('should not send an action back anywhere but the task list', async () => {
    view = await serve({ taskList: true });
    const task = await waitingTask(view);
    const instance = task.slice(0, task.lastIndexOf('/'));
    await view.projection!.caughtUp();
    const page = await view.page('/tasks');

    const response = await view.post('/actions/assign', {
      _token: actionToken(page, 'assign'),
      instance,
      task,
      assignee: 'kim',
      back: '//evil.example/tasks',
    });

    expect(response.headers.get('location')).toMatch(/^\/instances\//);
  });
});
