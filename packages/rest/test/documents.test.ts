import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocumentStore } from '@thresher/rest';
import { afterEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';

let api: Api;
let dir: string | undefined;
afterEach(async () => {
  await api.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  expect(api.failures).toEqual([]);
});

function upload(content: string, metadata?: unknown, fileName = 'invoice.txt'): FormData {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), fileName);
  if (metadata !== undefined)
    form.append('metadata', new Blob([JSON.stringify(metadata)], { type: 'application/json' }));
  return form;
}

interface Reference {
  'camunda.document.type': string;
  storeId: string;
  documentId: string;
  contentHash: string;
  metadata: Record<string, unknown>;
}

describe('documents in a local directory', () => {
  it('should keep an uploaded file, answer it by id with its content type, and delete it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'thresher-documents-'));
    api = await serveApi({}, { documents: new DocumentStore(dir) });
    const created = await api.call(
      'POST',
      '/documents?documentId=invoice-1',
      upload('total: 42', { customProperties: { a: 1 } }),
    );
    expect(created.status).toBe(201);
    const reference = (await created.json()) as Reference;
    expect(reference).toEqual({
      'camunda.document.type': 'camunda',
      storeId: 'local',
      documentId: 'invoice-1',
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      metadata: { contentType: 'text/plain', fileName: 'invoice.txt', size: 9, customProperties: { a: 1 } },
    });
    expect(readdirSync(dir).sort()).toEqual(['invoice-1', 'invoice-1.json']);

    const read = await api.call('GET', `/documents/invoice-1?contentHash=${reference.contentHash}`);
    expect(read.headers.get('content-type')).toBe('text/plain');
    expect(await read.text()).toBe('total: 42');
    expect((await problemOf(await api.call('GET', '/documents/invoice-1?contentHash=00'))).status).toBe(404);
    const again = await api.call('POST', '/documents?documentId=invoice-1', upload('other'));
    expect(await problemOf(again)).toMatchObject({ status: 409, title: 'ALREADY_EXISTS' });

    expect((await api.call('DELETE', '/documents/invoice-1')).status).toBe(204);
    expect((await problemOf(await api.call('GET', '/documents/invoice-1'))).status).toBe(404);
    expect((await problemOf(await api.call('DELETE', '/documents/invoice-1'))).status).toBe(404);
  });
});

describe('documents in memory', () => {
  it('should keep several files at once, each with its metadata by index', async () => {
    api = await serveApi();
    const form = new FormData();
    form.append('files', new Blob(['a']), 'a.txt');
    form.append('files', new Blob(['bb']), 'b.txt');
    form.append(
      'metadataList',
      new Blob([JSON.stringify([{ fileName: 'first.txt' }, { processInstanceKey: '16777216' }])]),
    );
    const created = await api.call('POST', '/documents/batch?storeId=in-memory', form);
    expect(created.status).toBe(201);
    const { createdDocuments, failedDocuments } = (await created.json()) as {
      createdDocuments: Reference[];
      failedDocuments: unknown[];
    };
    expect(failedDocuments).toEqual([]);
    expect(createdDocuments.map((document) => document.metadata)).toEqual([
      { fileName: 'first.txt', contentType: 'application/octet-stream', size: 1 },
      { fileName: 'b.txt', contentType: 'application/octet-stream', processInstanceKey: '16777216', size: 2 },
    ]);
    const second = await api.call('GET', `/documents/${createdDocuments[1]!.documentId}`);
    expect(await second.text()).toBe('bb');
  });

  it('should not answer a document past its expiry, and refuse links, another store and bad input by name', async () => {
    api = await serveApi();
    const past = await api.call('POST', '/documents', upload('old', { expiresAt: '2000-01-01T00:00:00Z' }));
    const { documentId } = (await past.json()) as Reference;
    expect((await problemOf(await api.call('GET', `/documents/${documentId}`))).status).toBe(404);

    const kept = (await (await api.call('POST', '/documents', upload('now'))).json()) as Reference;
    const link = await problemOf(await api.call('POST', `/documents/${kept.documentId}/links`, { timeToLive: 1000 }));
    expect(link).toMatchObject({ status: 400, detail: expect.stringContaining('makes no links') });
    const elsewhere = await problemOf(await api.call('POST', '/documents?storeId=aws', upload('x')));
    expect(elsewhere).toMatchObject({ status: 400, detail: expect.stringContaining('no document store "aws"') });
    const badId = await problemOf(await api.call('POST', '/documents?documentId=../etc', upload('x')));
    expect(badId).toMatchObject({ status: 400, detail: expect.stringContaining('query parameter documentId') });
    const badMeta = await problemOf(await api.call('POST', '/documents', upload('x', { color: 'red' })));
    expect(badMeta).toMatchObject({ status: 400, detail: expect.stringContaining('part metadata') });
    const json = await problemOf(await api.call('POST', '/documents', { file: 'x' }));
    expect(json.status).toBe(415);
  });
});
