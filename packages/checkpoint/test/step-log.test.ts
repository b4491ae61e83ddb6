import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/codec.js';
import { CorruptLogError, FutureSchemaError } from '../src/errors.js';
import { openStepLog, STEP_LOG_SCHEMA, sealStepLog, type UnsealedStepLog } from '../src/step-log.js';

const where = { instanceId: 'i1', seq: 4 };

const unsealed = (extra: Partial<UnsealedStepLog> = {}): UnsealedStepLog => ({
  instanceId: 'i1',
  seq: 4,
  processId: 'poll',
  definitionDigest: 'abc',
  capturedAt: 1_700_000_000_000,
  completed: [{ node: 'ask', scope: '/', track: 't1' }],
  flows: [{ flow: 'f2', scope: '/' }],
  events: [':/:ask:3:t1:left', { id: ':x', type: 'job.completed', jobId: 'j4', elementId: 'ask' }],
  ...extra,
});

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('the step log codec', () => {
  it('should open what it sealed, digest and format included', () => {
    const { log, bytes } = sealStepLog(unsealed());

    const opened = openStepLog(bytes, where);

    expect(opened).toEqual(log);
    expect(opened.schema).toBe(STEP_LOG_SCHEMA);
    expect(opened.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('should write the canonical text of the sealed entry, each field encoded once', () => {
    const { log, bytes } = sealStepLog(unsealed({ decisions: [{ node: 'd', result: { b: 1, a: [2] } } as never] }));

    expect(text(bytes)).toBe(canonicalJson(log));
  });

  it('should leave out the lists a step has nothing in', () => {
    const { log } = sealStepLog(unsealed({ completed: [], flows: [], events: [], decisions: [] }));

    expect(Object.keys(log).sort()).toEqual([
      'capturedAt',
      'definitionDigest',
      'digest',
      'instanceId',
      'processId',
      'schema',
      'seq',
    ]);
  });

  it('should seal the same step to the same bytes whatever the order of its fields', () => {
    const { instanceId, seq, processId, definitionDigest, capturedAt, ...lists } = unsealed();

    expect(text(sealStepLog({ ...lists, capturedAt, definitionDigest, processId, seq, instanceId }).bytes)).toBe(
      text(sealStepLog(unsealed()).bytes),
    );
  });

  it('should refuse bytes changed after sealing as corrupt, naming the instance and seq', () => {
    const tampered = text(sealStepLog(unsealed()).bytes).replace('"ask"', '"asks"');

    const refusal = () => openStepLog(Buffer.from(tampered), where);

    expect(refusal).toThrow(CorruptLogError);
    expect(refusal).toThrow(/instance i1 at seq 4 is corrupt: the digest does not match/);
  });

  it('should refuse an entry read from another instance or seq than it names', () => {
    const { bytes } = sealStepLog(unsealed());

    expect(() => openStepLog(bytes, { instanceId: 'i2', seq: 4 })).toThrow(/belongs to instance i1/);
    expect(() => openStepLog(bytes, { instanceId: 'i1', seq: 5 })).toThrow(/the entry is seq 4/);
  });

  it('should refuse bytes that are not a JSON object, and an entry of a newer format', () => {
    expect(() => openStepLog(Buffer.from('not json'), where)).toThrow(/not a JSON document/);
    expect(() => openStepLog(Buffer.from('[1]'), where)).toThrow(/not an object/);
    const future = JSON.parse(text(sealStepLog(unsealed()).bytes)) as Record<string, unknown>;
    future.schema = STEP_LOG_SCHEMA + 1;
    expect(() => openStepLog(Buffer.from(JSON.stringify(future)), where)).toThrow(FutureSchemaError);
  });
});
