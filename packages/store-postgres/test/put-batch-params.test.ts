import type { PutCheckpoint } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { PUT_FIELDS, putBatchParams } from '../src/put-batch-statement.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

function put(instanceId: string, document: string, extra: Partial<PutCheckpoint> = {}): PutCheckpoint {
  return {
    instanceId,
    seq: 2,
    parentSeq: 1,
    schema: 8,
    definitionDigest: 'definition-digest',
    digest: `digest-${instanceId}`,
    bytes: utf8(document),
    meta: {
      status: 'running',
      processId: 'order_process',
      definitionId: 'order-fulfilment',
      businessKey: 'A-1',
      parentId: 'parent',
      callNodeId: 'call',
      dueAt: 12.5,
      subscriptions: [],
    },
    ...extra,
  };
}

describe('the batch statement parameters', () => {
  it('should lay each put out as the statement reads it: its row by PUT_FIELDS, its document and log entry by where each starts and its length', () => {
    const [rows, documents, subscriptions] = putBatchParams([
      put('a', 'first', { fence: { owner: 'node-a', token: 7 }, release: true, log: utf8('log-a'), keepLast: 3 }),
      put('b', 'second!', {
        claim: { owner: 'node-b', ttlMs: 1000, now: 5 },
        meta: { ...put('b', '').meta, subscriptions: [{ name: 'message:paid', key: 'A-1' }] },
      }),
    ]) as [string, Uint8Array, string];

    const named = (JSON.parse(rows) as unknown[][]).map((row) => {
      expect(row).toHaveLength(PUT_FIELDS.length);
      return Object.fromEntries(PUT_FIELDS.map(([name], i) => [name, row[i]]));
    });
    const common = {
      ended_at: null,
      seq: 2,
      parent_seq: 1,
      schema_no: 8,
      definition_digest: 'definition-digest',
      status: 'running',
      process_id: 'order_process',
      definition_id: 'order-fulfilment',
      business_key: 'A-1',
      parent_id: 'parent',
      call_node_id: 'call',
      due_at: 12.5,
    };
    expect(named).toEqual([
      {
        ...common,
        instance_id: 'a',
        digest: 'digest-a',
        document_from: 1,
        document_length: 5,
        subscription_count: 0,
        fence_owner: 'node-a',
        fence_token: 7,
        releasing: true,
        claim_owner: null,
        claim_expires_at: null,
        log_from: 13,
        log_length: 5,
        keep_last: 3,
      },
      {
        ...common,
        instance_id: 'b',
        digest: 'digest-b',
        document_from: 6,
        document_length: 7,
        subscription_count: 1,
        fence_owner: null,
        fence_token: null,
        releasing: false,
        claim_owner: 'node-b',
        claim_expires_at: 1005,
        log_from: null,
        log_length: null,
        keep_last: null,
      },
    ]);
    // The documents, then the log entries.
    expect(new TextDecoder().decode(documents)).toBe('firstsecond!log-a');
    expect(JSON.parse(subscriptions)).toEqual([['b', 0, 'message:paid', 'A-1']]);
  });
});
