/**
 * `thresher show` names a head that does not open and the checkpoint to go back to; `thresher rollback`
 * goes back to it, and the instance then continues; a rollback that would forget a checkpoint that opens
 * is refused with its code.
 */
import { createSqliteRepository } from '@thresher/store-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/exit-code.js';
import { approvalProcess, definitions, Workspace } from './helpers.js';

const ws = new Workspace();
afterAll(() => ws.remove());
/** Two user tasks in a row: completing the first leaves two good checkpoints. */
const twoSteps = `  <bpmn:process id="reviewed" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:userTask id="first" />
    <bpmn:userTask id="approve" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="first" />
    <bpmn:sequenceFlow id="f2" sourceRef="first" targetRef="approve" />
    <bpmn:sequenceFlow id="f3" sourceRef="approve" targetRef="end" />
  </bpmn:process>`;
ws.write('approval.bpmn', definitions('approval-defs', approvalProcess));
ws.write('reviewed.bpmn', definitions('reviewed-defs', twoSteps));

/** Parks an approval in its own SQLite file and seals a broken head on top of it; returns the seqs. */
async function brokenHead(
  file: string,
  model = 'approval.bpmn',
): Promise<{ instanceId: string; good: number; bad: number }> {
  const run = await ws.thresher(['run', model, '--store', ws.path(file), '--json']);
  expect(run.code).toBe(ExitCode.Parked);
  const { instanceId } = run.json<{ instanceId: string }>();
  if (model === 'reviewed.bpmn') {
    const first = await ws.thresher(['complete', instanceId, 'first', '--store', ws.path(file)]);
    expect(first.code).toBe(ExitCode.Parked);
  }
  const repository = createSqliteRepository({ path: ws.path(file) });
  try {
    const head = (await repository.get(instanceId))!;
    const summary = (await repository.instances()).find((instance) => instance.instanceId === instanceId)!;
    await repository.put({
      instanceId,
      seq: head.seq + 1,
      parentSeq: head.seq,
      schema: head.schema,
      definitionDigest: head.definitionDigest,
      digest: head.digest,
      bytes: head.bytes.slice(0, head.bytes.length - 1),
      meta: {
        status: summary.status,
        processId: summary.processId,
        definitionId: summary.definitionId,
        businessKey: summary.businessKey,
        parentId: summary.parentId,
        callNodeId: summary.callNodeId,
        dueAt: summary.dueAt,
        subscriptions: summary.subscriptions,
      },
    });
    return { instanceId, good: head.seq, bad: head.seq + 1 };
  } finally {
    await repository.close();
  }
}

describe('thresher show and rollback on a head that does not open', () => {
  it('show names the bad seq and the rollback; rollback makes the good state the head; the instance completes', async () => {
    const { instanceId, good, bad } = await brokenHead('broken.db');
    const show = await ws.thresher(['show', instanceId, '--store', ws.path('broken.db')]);
    expect(show.code).toBe(ExitCode.Failed);
    expect(show.stderr).toContain(`checkpoint of instance ${instanceId} at seq ${bad} is corrupt`);
    expect(show.stderr).toContain(
      `the latest checkpoint that opens is seq ${good}: thresher rollback ${instanceId} --to ${good}`,
    );

    const rollback = await ws.thresher([
      'rollback',
      instanceId,
      '--to',
      String(good),
      '--store',
      ws.path('broken.db'),
      '--json',
    ]);
    expect(rollback.code).toBe(ExitCode.Ok);
    expect(rollback.json()).toEqual({ status: 'ok', instanceId, from: bad, to: good, seq: bad + 1 });

    const shown = await ws.thresher(['show', instanceId, '--store', ws.path('broken.db'), '--json']);
    expect(shown.code).toBe(ExitCode.Ok);
    expect(shown.json()).toMatchObject({ status: 'running', seq: bad + 1 });
    const complete = await ws.thresher([
      'complete',
      instanceId,
      'approve',
      '--var',
      'approved=true',
      '--store',
      ws.path('broken.db'),
    ]);
    expect(complete.code).toBe(ExitCode.Ok);
  });

  it('rollback past a checkpoint that opens is refused with THRESHER_ROLLBACK_REFUSED, changing nothing', async () => {
    const { instanceId, good } = await brokenHead('refused.db', 'reviewed.bpmn');
    expect(good).toBeGreaterThan(0);
    const rollback = await ws.thresher([
      'rollback',
      instanceId,
      '--to',
      String(good - 1),
      '--store',
      ws.path('refused.db'),
      '--json',
    ]);
    expect(rollback.code).toBe(ExitCode.Failed);
    expect(rollback.json()).toMatchObject({ status: 'error', error: { code: 'THRESHER_ROLLBACK_REFUSED' } });
    expect(rollback.stderr).toMatch(new RegExp(`checkpoint ${good} after it opens`));
  });

  it('rollback without a whole-number --to is a usage error', async () => {
    const rollback = await ws.thresher(['rollback', 'some-id', '--to', 'latest']);
    expect(rollback.code).toBe(ExitCode.Usage);
    expect(rollback.stderr).toContain('--to needs the seq of a checkpoint');
  });
});
