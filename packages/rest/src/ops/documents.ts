/**
 * The document operations, as Camunda's local and in-memory document stores answer them: upload one or several
 * files (multipart), read one back (its content hash checked when given), delete one. Links are refused, as those
 * stores refuse them.
 */
import { z } from 'zod';
import { DOCUMENT_ID, type DocumentMetadata, type DocumentStore, type StoredDocument } from '../documents.js';
import { type FormPart, readMultipart } from '../multipart.js';
import type { Call, Operation } from '../operation.js';
import { Problem, ProblemKind } from '../problem.js';
import { readAs } from '../schemas/read.js';

const Metadata = z.strictObject({
  contentType: z.string().optional(),
  fileName: z.string().optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  size: z.int().min(0).optional(),
  processDefinitionId: z.string().optional(),
  processInstanceKey: z.string().regex(/^\d+$/).optional(),
  customProperties: z.record(z.string(), z.unknown()).optional(),
});

/** The store, with the `storeId` the request names checked against it. */
function storeOf(call: Call): DocumentStore {
  const store = call.documents;
  if (store === undefined) {
    throw new Problem(
      ProblemKind.NotImplemented,
      'documents need a document store: create the handler with options.documents (thresher serve keeps one)',
    );
  }
  const storeId = call.query.get('storeId');
  if (storeId !== null && storeId !== store.storeId) {
    throw new Problem(
      ProblemKind.InvalidArgument,
      `query parameter storeId: no document store "${storeId}" (this server keeps "${store.storeId}")`,
    );
  }
  return store;
}

/** A document as Camunda references it. */
function reference(store: DocumentStore, document: StoredDocument): Record<string, unknown> {
  return {
    'camunda.document.type': 'camunda',
    storeId: store.storeId,
    documentId: document.documentId,
    contentHash: document.contentHash,
    metadata: document.metadata,
  };
}

/** A file part's metadata: what the request says (`where` names it), over the part's own file name and type. */
function metadataOf(file: FormPart, given: unknown, where: string): DocumentMetadata {
  // The size is the content's, as the store measures it.
  const { size: _measured, ...said } = given === undefined ? {} : readAs(Metadata, given, where);
  return {
    ...(file.contentType === undefined ? {} : { contentType: file.contentType }),
    ...(file.filename === undefined ? {} : { fileName: file.filename }),
    ...said,
  };
}

function parsedJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Problem(ProblemKind.InvalidArgument, `${where}: not JSON`);
  }
}

/** `POST /documents`: one file (`file`), its `metadata` JSON, and the `documentId` it is to have, if chosen. */
const createDocument: Operation = async (call) => {
  const store = storeOf(call);
  const documentId = call.query.get('documentId') ?? undefined;
  if (documentId !== undefined && !DOCUMENT_ID.test(documentId)) {
    throw new Problem(
      ProblemKind.InvalidArgument,
      `query parameter documentId: "${documentId}" is not one Thresher keeps (letters, digits, ".", "_", "-"; up to 200)`,
    );
  }
  const parts = readMultipart(call.req.headers['content-type'], await call.bytes());
  const unknown = parts.find((part) => part.name !== 'file' && part.name !== 'metadata');
  if (unknown !== undefined)
    throw new Problem(ProblemKind.InvalidArgument, `part "${unknown.name}": not file or metadata`);
  const files = parts.filter((part) => part.name === 'file');
  if (files.length !== 1) throw new Problem(ProblemKind.InvalidArgument, 'the body must hold one part "file"');
  const given = parts.find((part) => part.name === 'metadata');
  const metadata = metadataOf(
    files[0]!,
    given && parsedJson(given.data.toString('utf8'), 'part metadata'),
    'part metadata',
  );
  const created = await store.create(files[0]!.data, metadata, documentId);
  if (created === false) {
    throw new Problem(ProblemKind.AlreadyExists, `a document with id "${documentId}" exists already`);
  }
  return { status: 201, body: reference(store, created) };
};

/**
 * `POST /documents/batch`: the `files` parts, each with its metadata from `metadataList` (a JSON array by index) or
 * its `X-Document-Metadata` header; `201` when all were kept, `207` with what failed and why otherwise.
 */
const createDocuments: Operation = async (call) => {
  const store = storeOf(call);
  const parts = readMultipart(call.req.headers['content-type'], await call.bytes());
  const files = parts.filter((part) => part.name === 'files');
  if (files.length === 0)
    throw new Problem(ProblemKind.InvalidArgument, 'the body must hold at least one part "files"');
  const lists = parts.filter((part) => part.name === 'metadataList');
  // Each metadata as a part of its own, or one part holding the whole array.
  let list: unknown[] | undefined;
  if (lists.length === 1) {
    const one = parsedJson(lists[0]!.data.toString('utf8'), 'part metadataList');
    list = Array.isArray(one) ? one : [one];
  } else if (lists.length > 1)
    list = lists.map((part, index) => parsedJson(part.data.toString('utf8'), `part metadataList[${index}]`));
  if (list !== undefined && list.length !== files.length) {
    throw new Problem(
      ProblemKind.InvalidArgument,
      `part metadataList: ${list.length} metadata for ${files.length} files (they go by index, one each)`,
    );
  }
  const metadata = files.map((file, index) => {
    const header = file.headers.get('x-document-metadata');
    const given =
      list?.[index] ??
      (header === undefined ? undefined : parsedJson(header, `files[${index}]: its X-Document-Metadata header`));
    return metadataOf(file, given, `metadataList[${index}]`);
  });
  const createdDocuments: Record<string, unknown>[] = [];
  const failedDocuments: Record<string, unknown>[] = [];
  for (const [index, file] of files.entries()) {
    const created = await store.create(file.data, metadata[index]!);
    if (created === false) {
      failedDocuments.push({ fileName: metadata[index]!.fileName ?? `file ${index + 1}`, detail: 'not kept' });
    } else createdDocuments.push(reference(store, created));
  }
  return { status: failedDocuments.length === 0 ? 201 : 207, body: { createdDocuments, failedDocuments } };
};

/** The document a path names, its content hash checked when the query gives one; a 404 otherwise. */
async function documentOf(call: Call) {
  const store = storeOf(call);
  const documentId = call.params.documentId!;
  const found = await store.get(documentId);
  const hash = call.query.get('contentHash');
  if (found === undefined || (hash !== null && hash !== found.document.contentHash)) {
    const which = hash === null ? '' : ` with content hash ${hash}`;
    throw new Problem(ProblemKind.NotFound, `no document "${documentId}"${which} is kept in store "${store.storeId}"`);
  }
  return { store, ...found };
}

/** `GET /documents/{documentId}`: its content, as its content type. */
const getDocument: Operation = async (call) => {
  const { document, content } = await documentOf(call);
  return { status: 200, text: { type: document.metadata.contentType ?? 'application/octet-stream', content } };
};

/** `DELETE /documents/{documentId}`. */
const deleteDocument: Operation = async (call) => {
  const store = storeOf(call);
  const documentId = call.params.documentId!;
  if (!(await store.delete(documentId))) {
    throw new Problem(ProblemKind.NotFound, `no document "${documentId}" is kept in store "${store.storeId}"`);
  }
  return { status: 204 };
};

/** `POST /documents/{documentId}/links`: refused, as Camunda's local and in-memory stores refuse it. */
const createDocumentLink: Operation = async (call) => {
  const { store } = await documentOf(call);
  throw new Problem(
    ProblemKind.InvalidArgument,
    `the document store "${store.storeId}" makes no links (as Camunda's local and in-memory stores): read the document with GET /documents/{documentId}`,
  );
};

export const documentOperations = {
  createDocument,
  createDocuments,
  getDocument,
  deleteDocument,
  createDocumentLink,
} satisfies Record<string, Operation>;
