import { Engine } from '@thresher/engine';
import { createSqliteRepository } from '@thresher/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalProcess, definitions, spawnThresher, Workspace } from './helpers.js';

let workspace: Workspace | undefined;
afterEach(() => {
  workspace?.remove();
  workspace = undefined;
});

/** A SQLite store with one instance of `approval` waiting at its user task. */
async function parkedApproval(ws: Workspace): Promise<{ store: string; id: string }> {
  const store = ws.path('ui.db');
  const repository = createSqliteRepository({ path: store });
  const engine = new Engine({ repository });
  try {
    await engine.deploy(definitions('approvals', approvalProcess));
    const id = await engine.start('approval', { businessKey: 'order-7' });
    await engine.settled(id);
    return { store, id };
  } finally {
    await engine.close();
    await repository.close();
  }
}

/** Waits for the address `thresher ui` prints. */
async function address(stdout: () => string, exited: Promise<unknown>): Promise<string> {
  for (;;) {
    const printed = /thresher ui: (http:\/\/\S+)/.exec(stdout())?.[1];
    if (printed) return printed;
    const ended = await Promise.race([
      exited.then(() => true),
      new Promise((resolve) => setTimeout(resolve, 20, false)),
    ]);
    if (ended) throw new Error(`thresher ui ended before printing its address:\n${stdout()}`);
  }
}

describe('thresher ui', () => {
  it('serves the store, acts through its engine, follows other engines by polling, and stops on SIGTERM', async () => {
    workspace = new Workspace();
    const { store, id } = await parkedApproval(workspace);
    let stdout = '';
    const ui = spawnThresher(['ui', '--store', store, '--poll', 'PT0.1S'], { cwd: workspace.dir });
    ui.child.stdout?.on('data', (chunk) => (stdout += chunk));
    const url = await address(() => stdout, ui.exit);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const processes = await (await fetch(url)).text();
    expect(processes).toContain('Approval');
    const list = await (await fetch(new URL('/instances?businessKey=order-7', url))).text();
    expect(list).toContain(`data-instance="${id}"`);
    // Its task list reads the projection this view keeps of the store's log: the parked approval is there.
    const tasks = await (await fetch(new URL('/tasks', url))).text();
    expect(tasks).toContain(`<tr data-task="${id}/`);

    // Another engine moves the instance: the page's stream reports it.
    const stream = await fetch(new URL(`/events?subject=instance:${id}`, url));
    const reader = stream.body?.getReader();
    let seen = '';
    const change = (async () => {
      while (!seen.includes('event: change')) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        seen += new TextDecoder().decode(chunk.value);
      }
    })();
    const otherStore = createSqliteRepository({ path: store });
    const other = new Engine({ repository: otherStore });
    try {
      const [task] = (await other.userTasks({ instanceId: id })) ?? [];
      await other.assignUserTask(task?.id ?? '', 'ada');
    } finally {
      await other.close();
      await otherStore.close();
    }
    await change;
    await reader?.cancel();
    expect(seen).toContain('event: change');

    // Completing the task through the view: its engine restores the instance and runs it to its end.
    const page = await (await fetch(new URL(`/instances/${id}`, url))).text();
    const token =
      /data-action="complete"[^>]*>\s*<input type="hidden" name="_token" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const task = /<input type="hidden" name="task" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const posted = await fetch(new URL('/actions/complete', url), {
      method: 'POST',
      redirect: 'manual',
      headers: { Origin: new URL(url).origin, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _token: token, instance: id, task, variables: '{"approved":true}' }),
    });
    expect(posted.status).toBe(303);
    const after = await (await fetch(new URL(`/instances/${id}`, url))).text();
    expect(after).toContain('status-completed');

    ui.child.kill('SIGTERM');
    const exit = await ui.exit;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain('thresher ui: SIGTERM, stopping');
  });

  it('gives user tasks the linked Camunda Forms of --form, by their id', async () => {
    workspace = new Workspace();
    const store = workspace.path('forms.db');
    const linked = approvalProcess.replace(
      '<bpmn:userTask id="approve" name="Approve order">',
      '<bpmn:userTask id="approve" name="Approve order"><bpmn:extensionElements><zeebe:formDefinition formId="approval-form" /></bpmn:extensionElements>',
    );
    const repository = createSqliteRepository({ path: store });
    const engine = new Engine({ repository });
    await engine.deploy(definitions('approvals', linked));
    const id = await engine.start('approval');
    await engine.close();
    await repository.close();
    workspace.write(
      'approval.form',
      JSON.stringify({ id: 'approval-form', components: [{ type: 'checkbox', key: 'approved', label: 'Approved' }] }),
    );
    let stdout = '';
    const ui = spawnThresher(['ui', '--store', store, '--form', 'approval.form'], { cwd: workspace.dir });
    ui.child.stdout?.on('data', (chunk) => (stdout += chunk));
    const url = await address(() => stdout, ui.exit);

    const page = await (await fetch(new URL(`/instances/${id}`, url))).text();

    expect(page).toContain('class="camunda-form"');
    expect(page).toContain('"schema":{"id":"approval-form"');
    ui.child.kill('SIGTERM');
    expect((await ui.exit).code).toBe(0);
  });

  it('refuses to listen beyond this machine without a token, saying why', async () => {
    workspace = new Workspace();
    const run = await workspace.thresher(['ui', '--store', workspace.path('x.db'), '--host', '0.0.0.0']);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('give an access token (--token or THRESHER_UI_TOKEN)');
  });

  it('refuses a form file without an id and a bad port by name', async () => {
    workspace = new Workspace();
    workspace.write('bad.form', '{"components":[]}');

    const noId = await workspace.thresher(['ui', '--form', 'bad.form']);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain('option --form: bad.form has no "id"');
    const port = await workspace.thresher(['ui', '--port', '70000']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('option --port: expected a port from 0 to 65535, got "70000"');
  });
});
