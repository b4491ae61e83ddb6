import { Engine } from '@thresher/engine';
import { createSqliteRepository } from '@thresher/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalProcess, definitions, Workspace } from './helpers.js';

const workspaces: Workspace[] = [];
afterEach(() => {
  for (const workspace of workspaces.splice(0)) workspace.remove();
});

/** A SQLite store with an approval completed, one rejected (a terminate end), one parked at its task; their ids. */
async function storeWithHistory(): Promise<{
  workspace: Workspace;
  path: string;
  completed: string[];
  parked: string;
}> {
  const workspace = new Workspace();
  workspaces.push(workspace);
  const path = workspace.path('app.db');
  const repository = createSqliteRepository({ path });
  const engine = new Engine({ repository, handlers: {} });
  await engine.deploy(definitions('approval-defs', approvalProcess));
  const completed: string[] = [];
  for (const approved of [true, false]) {
    const id = await engine.start('approval');
    const waiting = await engine.settled(id);
    if (waiting.status !== 'waiting') throw new Error('expected the approval task');
    await engine.completeUserTask(waiting.userTasks[0]!.id, { approved });
    await engine.settled(id);
    completed.push(id);
  }
  // Parked, with a history of two checkpoints: its start, its task's assignment.
  const parked = await engine.start('approval');
  const waiting = await engine.settled(parked);
  if (waiting.status !== 'waiting') throw new Error('expected the approval task');
  await engine.assignUserTask(waiting.userTasks[0]!.id, 'ann');
  await engine.settled(parked);
  await engine.close();
  await repository.close();
  return { workspace, path, completed, parked };
}

async function historyLengths(path: string, ids: string[]): Promise<number[]> {
  const repository = createSqliteRepository({ path });
  try {
    return await Promise.all(ids.map(async (id) => (await repository.list(id)).length));
  } finally {
    await repository.close();
  }
}

describe('thresher prune', () => {
  it("should keep each ended instance's latest checkpoints and leave running ones whole unless asked", async () => {
    // given completed instances with a history of several checkpoints, and a parked one
    const { workspace, path, completed, parked } = await storeWithHistory();
    const before = await historyLengths(path, [...completed, parked]);
    expect(Math.min(...before)).toBeGreaterThan(1);

    // when the ended ones are pruned to their latest checkpoint
    const run = await workspace.thresher(['prune', '--keep-last', '1', '--store', path, '--json']);

    // then they keep one, the parked one all of its history, and the store still restores each
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toEqual({ keepLast: 1, instances: 2, byStatus: { completed: 1, terminated: 1 } });
    expect(await historyLengths(path, [...completed, parked])).toEqual([1, 1, before[2]]);

    const all = await workspace.thresher(['prune', '--keep-last', '1', '--running', '--store', path]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain(
      'pruned 3 instances to their latest 1 checkpoints (1 completed, 1 terminated, 1 running)',
    );
    expect(await historyLengths(path, [parked])).toEqual([1]);
    const repository = createSqliteRepository({ path });
    const engine = new Engine({ repository, handlers: {} });
    const waiting = await engine.settled(parked);
    expect(waiting.status).toBe('waiting');
    await engine.close();
    await repository.close();
  });

  it('should delete the instances that ended before --ended-before, but none a registered event reader has not read', async () => {
    // given two ended instances and a parked one, and an event reader that has read nothing yet
    const { workspace, path, completed, parked } = await storeWithHistory();
    const open = async () => {
      const repository = createSqliteRepository({ path });
      return { repository, engine: new Engine({ repository, handlers: {} }) };
    };
    let { repository, engine } = await open();
    await engine.eventReader('audit');
    await engine.close();
    await repository.close();

    // when ended instances are expired: none goes, the reader still needs their events
    const kept = await workspace.thresher(['prune', '--ended-before', 'PT0S', '--store', path, '--json']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.json()).toMatchObject({ expired: { instances: [], readers: [{ name: 'audit', position: null }] } });

    // and once it read and acknowledged every event, they go: checkpoints, log and all
    ({ repository, engine } = await open());
    const reader = await engine.eventReader('audit');
    const events = await reader.read({ limit: 10_000 });
    await reader.acknowledge(events.at(-1)!.position);
    await engine.close();
    await repository.close();
    const run = await workspace.thresher(['prune', '--ended-before', 'PT0S', '--store', path]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('deleted 2 instances that ended more than PT0S ago');
    expect(run.stdout).toContain('registered event readers have not read yet: audit');
    ({ repository, engine } = await open());
    expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual([parked]);
    expect(await repository.history({ instanceId: completed[0]! })).toEqual([]);
    await engine.close();
    await repository.close();
  });

  it('should refuse nothing to prune, a non-positive --keep-last, --running alone or a bad duration as usage errors', async () => {
    const workspace = new Workspace();
    workspaces.push(workspace);
    const refused = [
      [['prune'], '--keep-last N, --ended-before DURATION'],
      [['prune', '--keep-last', '0'], '--keep-last'],
      [['prune', '--keep-last', 'all'], '--keep-last'],
      [['prune', '--running', '--ended-before', 'P1D'], '--running'],
      [['prune', '--ended-before', '30 days'], '--ended-before'],
    ] as const;
    for (const [argv, named] of refused) {
      const run = await workspace.thresher([...argv, '--store', 'memory:']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(named);
    }
  });
});
