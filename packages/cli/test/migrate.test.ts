import { readFileSync } from 'node:fs';
import { CURRENT_SCHEMA } from '@thresher/checkpoint';
import { createSqliteRepository } from '@thresher/store-sqlite';
import stringify from 'fast-json-stable-stringify';
import { afterEach, describe, expect, it } from 'vitest';
import { Workspace } from './helpers.js';

const root = new URL('../../../', import.meta.url);
const frozen = JSON.parse(readFileSync(new URL('fixtures/checkpoints/v1/parked-at-approve.json', root), 'utf8')) as {
  deployment: { definitionId: string; digest: string; version: number; xml: string };
  checkpoint: {
    instanceId: string;
    seq: number;
    schema: number;
    definitionDigest: string;
    digest: string;
    document: unknown;
  };
};
const handlers = new URL('fixtures/order-fulfilment/handlers.mjs', root).pathname;

let workspace: Workspace;
afterEach(() => workspace.remove());

/** A store an older Thresher left behind: one instance parked at approval, written at schema 1. */
async function schema1Store(): Promise<string> {
  workspace = new Workspace();
  const path = workspace.path('old.db');
  const repository = createSqliteRepository({ path });
  const { checkpoint, deployment } = frozen;
  await repository.putDeployment({ ...deployment, deployedAt: 0 });
  await repository.put({
    instanceId: checkpoint.instanceId,
    seq: checkpoint.seq,
    parentSeq: null,
    schema: checkpoint.schema,
    definitionDigest: checkpoint.definitionDigest,
    digest: checkpoint.digest,
    bytes: new Uint8Array(Buffer.from(stringify(checkpoint.document))),
    meta: {
      status: 'running',
      processId: 'order-fulfilment',
      definitionId: deployment.definitionId,
      businessKey: null,
      parentId: null,
      callNodeId: null,
      dueAt: null,
      subscriptions: [],
    },
  });
  await repository.close();
  return `sqlite:${path}`;
}

describe('thresher migrate', () => {
  it('should report what a dry run would migrate without changing the store', async () => {
    const store = await schema1Store();
    const dry = await workspace.thresher(['migrate', '--dry-run', '--store', store, '--json']);
    expect(dry.code).toBe(0);
    expect(dry.json()).toMatchObject({
      dryRun: true,
      migrated: 1,
      current: 0,
      bySchema: { 1: 1 },
      schema: CURRENT_SCHEMA,
    });
    const again = await workspace.thresher(['migrate', '--dry-run', '--store', store, '--json']);
    expect(again.json()).toMatchObject({ migrated: 1 });
  });

  it('should rewrite a schema-1 store to the current schema, after which the instance resumes to completion', async () => {
    const store = await schema1Store();
    const migrated = await workspace.thresher(['migrate', '--store', store]);
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain('migrated:  1 (found 1 at schema 1)');
    const second = await workspace.thresher(['migrate', '--store', store, '--json']);
    expect(second.json()).toMatchObject({ migrated: 0, current: 1 });

    const id = frozen.checkpoint.instanceId;
    const args = ['--handlers', handlers, '--store', store, '--json'];
    const completed = await workspace.thresher(['complete', id, 'approve', '--var', 'approved=true', ...args]);
    expect(completed.code, completed.stderr).toBe(0);
    expect(completed.json()).toMatchObject({ status: 'completed', variables: { trackingNumber: 'TRK-F-1' } });
  });

  it('should refuse unknown flags as usage errors', async () => {
    workspace = new Workspace();
    const run = await workspace.thresher(['migrate', '--dryrun']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--dryrun');
  });
});
