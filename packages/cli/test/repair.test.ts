import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/index.js';
import { approvalProcess, definitions, Workspace } from './helpers.js';

const ws = new Workspace();
const store = ['--store', 'sqlite:repair.db'];

beforeAll(() => ws.write('approval.bpmn', definitions('approval-defs', approvalProcess)));
afterAll(() => ws.remove());

async function parked(): Promise<string> {
  const run = await ws.thresher(['run', 'approval.bpmn', ...store, '--json']);
  expect(run.code).toBe(ExitCode.Parked);
  return run.json<{ instanceId: string }>().instanceId;
}

describe('thresher modify', () => {
  it('should move the token past the user task with a variable for the gateway, and drive the instance to its end', async () => {
    const id = await parked();

    const modified = await ws.thresher([
      'modify',
      id,
      '--terminate',
      'approve',
      '--activate',
      'is-approved',
      '--var',
      'approved=true',
      ...store,
      '--json',
    ]);

    expect(modified.code).toBe(ExitCode.Ok);
    const outcome = modified.json<{ status: string; variables: object; modified: object }>();
    expect(outcome.status).toBe('completed');
    expect(outcome.variables).toEqual({ approved: true });
    expect(outcome.modified).toEqual({
      activated: ['is-approved'],
      terminated: [expect.stringMatching(/^\/:approve:0$/)],
    });
  });

  it('should refuse what Zeebe refuses, by name, leaving the instance as it was', async () => {
    const id = await parked();

    const start = await ws.thresher(['modify', id, '--activate', 'start', ...store]);
    const absent = await ws.thresher(['modify', id, '--terminate', 'done', ...store]);
    const nothing = await ws.thresher(['modify', id, ...store]);

    expect(start.code).toBe(ExitCode.Failed);
    expect(start.stderr).toContain('cannot activate "start": a start event is where a scope begins');
    expect(absent.code).toBe(ExitCode.Failed);
    expect(absent.stderr).toContain(`instance ${id} has no active "done" to terminate; active: approve [/:approve:0]`);
    expect(nothing.code).toBe(ExitCode.Usage);
    expect(nothing.stderr).toContain('give --activate ELEMENT or --terminate ELEMENT (or both)');
    const shown = await ws.thresher(['show', id, ...store, '--json']);
    expect(shown.json<{ activeElements: string[] }>().activeElements).toEqual(['approve']);
  });
});

describe('thresher migrate-instance', () => {
  /** approval v2: a `notify` script task after approval, before the gateway. */
  const v2 = approvalProcess
    .replace('targetRef="is-approved" />', 'targetRef="notify" />')
    .replace(
      '<bpmn:exclusiveGateway id="is-approved"',
      '<bpmn:scriptTask id="notify"><bpmn:extensionElements><zeebe:script expression="=true" resultVariable="notified" /></bpmn:extensionElements></bpmn:scriptTask><bpmn:sequenceFlow id="f2b" sourceRef="notify" targetRef="is-approved" /><bpmn:exclusiveGateway id="is-approved"',
    );

  it('should move a parked instance onto the version named, then run it there', async () => {
    const id = await parked();
    ws.write('approval-v2.bpmn', definitions('approval-defs', v2));
    const deployed = await ws.thresher(['run', 'approval-v2.bpmn', ...store, '--json']);
    expect(deployed.code).toBe(ExitCode.Parked);

    const migrated = await ws.thresher([
      'migrate-instance',
      id,
      '--to',
      'approval:2',
      '--map',
      'approve=approve',
      ...store,
      '--json',
    ]);
    const completed = await ws.thresher(['complete', id, 'approve', '--var', 'approved=true', ...store, '--json']);

    expect(migrated.code).toBe(ExitCode.Parked);
    expect(migrated.json<{ migrated: { version: number } }>().migrated.version).toBe(2);
    expect(completed.code).toBe(ExitCode.Ok);
    expect(completed.json<{ variables: object }>().variables).toEqual({ approved: true, notified: true });
  });

  it('should refuse an unmapped element and a version not deployed, by name', async () => {
    const id = await parked();

    const unmapped = await ws.thresher(['migrate-instance', id, '--to', 'approval', ...store]);
    const absent = await ws.thresher([
      'migrate-instance',
      id,
      '--to',
      'approval:9',
      '--map',
      'approve=approve',
      ...store,
    ]);
    const bad = await ws.thresher(['migrate-instance', id, '--to', 'approval:x', ...store]);

    expect(unmapped.code).toBe(ExitCode.Failed);
    expect(unmapped.stderr).toContain('active element "approve" has no mapping instruction');
    expect(absent.code).toBe(ExitCode.Failed);
    expect(absent.stderr).toMatch(/no deployed process approval at version 9; its versions: 1, 2$/m);
    expect(bad.code).toBe(ExitCode.Usage);
  });
});

describe('thresher batch', () => {
  it('should cancel every instance the filter matches as one batch, reporting its counts', async () => {
    const batchStore = ['--store', 'sqlite:batch.db'];
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const run = await ws.thresher(['run', 'approval.bpmn', ...batchStore, '--json']);
      ids.push(run.json<{ instanceId: string }>().instanceId);
    }

    const batch = await ws.thresher([
      'batch',
      'cancel',
      '--filter',
      '{"processDefinitionId":"approval","state":"ACTIVE"}',
      ...batchStore,
      '--json',
    ]);

    expect(batch.code).toBe(ExitCode.Ok);
    expect(batch.json()).toMatchObject({
      batchOperationType: 'CANCEL_PROCESS_INSTANCE',
      state: 'COMPLETED',
      operationsTotalCount: 3,
      operationsCompletedCount: 3,
      failures: [],
    });
    for (const id of ids) {
      const shown = await ws.thresher(['show', id, ...batchStore, '--json']);
      expect(shown.json<{ status: string }>().status).toBe('terminated');
    }
  });

  it('should refuse a kind, a filter or flags that do not go together, by name', async () => {
    const refusals: [string[], string][] = [
      [['batch', 'explode', '--filter', '{}'], 'thresher batch explode: expected cancel, retry, modify, migrate'],
      [['batch', 'cancel'], '--filter JSON is required'],
      [['batch', 'cancel', '--filter', '{nope'], '--filter is not JSON'],
      [['batch', 'modify', '--filter', '{}'], 'thresher batch modify needs --move SOURCE=TARGET'],
      [['batch', 'cancel', '--filter', '{}', '--to', 'approval'], '--to and --map belong to thresher batch migrate'],
    ];
    for (const [argv, message] of refusals) {
      const run = await ws.thresher([...argv, ...store]);
      expect(run.code, argv.join(' ')).toBe(ExitCode.Usage);
      expect(run.stderr).toContain(message);
    }
    const unknown = await ws.thresher(['batch', 'cancel', '--filter', '{"colour":"red"}', ...store]);
    expect(unknown.code).toBe(ExitCode.Failed);
    expect(unknown.stderr).toContain('$.filter.colour: not a field this search filters by');
  });
});
