/**
 * The document store the Camunda API's document operations keep files in, as Camunda's local store does: a
 * directory (each document its content file and a `.json` of its metadata beside it), or memory. A document's
 * `contentHash` is the SHA-256 of its content; one past its `expiresAt` is gone.
 *
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What Camunda keeps of a document beside its content (`DocumentMetadata`). */
export interface DocumentMetadata {
  contentType?: string;
  fileName?: string;
  expiresAt?: string;
  size?: number;
  processDefinitionId?: string;
  processInstanceKey?: string;
  customProperties?: Record<string, unknown>;
}

export interface StoredDocument {
  documentId: string;
  contentHash: string;
  metadata: DocumentMetadata;
}

/** A document id a caller may choose: letters, digits, `.`, `_` and `-`, up to 200 (it names a file). */
export const DOCUMENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export class DocumentStore {
  /** The id Camunda's clients name this store by (`storeId`): `local` on disk, `in-memory` in memory. */
  readonly storeId: string;
  readonly #dir: string | null;
  readonly #memory = new Map<string, { document: StoredDocument; content: Buffer }>();

  /** Files under `dir` (made when first written), or in memory when `dir` is null. */
  constructor(dir: string | null) {
    this.#dir = dir;
    this.storeId = dir === null ? 'in-memory' : 'local';
  }

  /** Keep `content` under `documentId` (a new id when none); false when a document of that id exists. */
  async create(
    content: Buffer,
    metadata: DocumentMetadata,
    documentId: string = randomUUID(),
  ): Promise<StoredDocument | false> {
    if (!DOCUMENT_ID.test(documentId)) throw new RangeError(`"${documentId}" is not a document id Thresher keeps`);
    if ((await this.#read(documentId)) !== undefined) return false;
    const contentHash = createHash('sha256').update(content).digest('hex');
    const document = { documentId, contentHash, metadata: { ...metadata, size: content.length } };
    if (this.#dir === null) {
      this.#memory.set(documentId, { document, content });
      return document;
    }
    await mkdir(this.#dir, { recursive: true });
    // The content first, then its metadata: a document is there once its metadata is (a crash between leaves none).
    const path = join(this.#dir, documentId);
    await writeFile(`${path}.part`, content);
    await rename(`${path}.part`, path);
    await writeFile(`${path}.json.part`, JSON.stringify(document));
    await rename(`${path}.json.part`, `${path}.json`);
    return document;
  }

  /** The document and its content, or undefined when there is none (or it expired). */
  async get(documentId: string): Promise<{ document: StoredDocument; content: Buffer } | undefined> {
    const document = await this.#read(documentId);
    if (document === undefined) return undefined;
    if (this.#dir === null) return this.#memory.get(documentId);
    return { document, content: await readFile(join(this.#dir, documentId)) };
  }

  /** Delete a document; false when there was none. */
  async delete(documentId: string): Promise<boolean> {
    if ((await this.#read(documentId)) === undefined) return false;
    await this.#remove(documentId);
    return true;
  }

  async #read(documentId: string): Promise<StoredDocument | undefined> {
    if (!DOCUMENT_ID.test(documentId)) return undefined;
    let document: StoredDocument | undefined;
    if (this.#dir === null) document = this.#memory.get(documentId)?.document;
    else {
      try {
        document = JSON.parse(await readFile(join(this.#dir, `${documentId}.json`), 'utf8')) as StoredDocument;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    const expiresAt = document?.metadata.expiresAt;
    if (document !== undefined && expiresAt !== undefined && Date.parse(expiresAt) <= Date.now()) {
      await this.#remove(documentId);
      return undefined;
    }
    return document;
  }

  async #remove(documentId: string): Promise<void> {
    if (this.#dir === null) {
      this.#memory.delete(documentId);
      return;
    }
    const path = join(this.#dir, documentId);
    await rm(`${path}.json`, { force: true });
    await rm(path, { force: true });
  }
}
