import { describe, expect, it } from 'vitest';
import { digestInputs, receiptMatches, resultReceipt, stepIdentity } from '../src/identity.js';
import { decodeJournalEntry, encodeJournalEntry } from '../src/journal.js';

const input = {
  instanceId: 'i1',
  definitionDigest: 'd1',
  nodeId: 'validate',
  scopePath: '/',
  attempt: 0,
  inputDigest: digestInputs({ total: 120 }),
};

describe('step identity and receipts', () => {
  it('should give the same identity for the same invocation', () => {
    expect(stepIdentity(input)).toBe(stepIdentity({ ...input }));
  });

  it.each([
    ['instance', { instanceId: 'i2' }],
    ['definition', { definitionDigest: 'd2' }],
    ['node', { nodeId: 'ship' }],
    ['scope path', { scopePath: '/sub' }],
    ['attempt', { attempt: 1 }],
    ['inputs', { inputDigest: digestInputs({ total: 121 }) }],
    ['listener (an execution listener’s job beside the element’s own)', { listener: 'start/0' }],
  ])('should give another identity when the %s differs', (_, change) => {
    expect(stepIdentity({ ...input, ...change })).not.toBe(stepIdentity(input));
  });

  it('should tell two listeners of one element apart by event and place', () => {
    const ids = ['start/0', 'start/1', 'end/0'].map((listener) => stepIdentity({ ...input, listener }));
    expect(new Set(ids).size).toBe(3);
  });

  it('should bind a receipt to its result by digest only', () => {
    const receipt = resultReceipt('id-1', { secret: 'hunter2' });
    expect(JSON.stringify(receipt)).not.toContain('hunter2');
    expect(receiptMatches(receipt, { secret: 'hunter2' })).toBe(true);
    expect(receiptMatches(receipt, { secret: 'hunter3' })).toBe(false);
  });

  it('should round-trip a journal entry through its bytes', () => {
    const entry = { jobId: 'j1', result: { at: new Date(3) }, receipt: resultReceipt('x', { at: new Date(3) }) };
    expect(decodeJournalEntry(encodeJournalEntry(entry))).toEqual(entry);
  });
});
