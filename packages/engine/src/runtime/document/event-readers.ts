/**
 * Registered readers of the event feed: a name the store keeps with how far it has read (`Repository.putReader`),
 * so a consumer resumes where it acknowledged, across processes and restarts, and retention keeps every event
 * it has not read.
 *
 * @module
 */
import { CheckpointError, type Repository } from '@thresher/checkpoint';
import { InvalidArgumentError } from '../../common/errors.js';
import { decodeCursor, type LoggedEvent, type PlanOfEntry, readEvents, readWhole } from './event-log.js';

/** A durable reader of `engine.events`, registered in the store under its name. */
export interface EventReader {
  readonly name: string;
  /**
   * The events after the last one acknowledged (from the log's start at first), every instance's, at most
   * `limit` (1,000).
   */
  read(options?: { limit?: number }): Promise<LoggedEvent[]>;
  /**
   * Every event up to and including the one at `position` (a `position` `read` returned) is handled: the next
   * `read` goes on after it, and retention may delete what it read.
   */
  acknowledge(position: string): Promise<void>;
  /** Unregister the reader: retention stops keeping events for it. True when it was registered. */
  remove(): Promise<boolean>;
}

/**
 * The reader registered as `name`, registered now (at the log's start: it keeps every event until it reads it)
 * when it is new.
 */
export async function openEventReader(repository: Repository, planOf: PlanOfEntry, name: string): Promise<EventReader> {
  if (typeof name !== 'string' || name.length === 0) {
    throw new InvalidArgumentError(`an event reader's name must be a non-empty string, not ${JSON.stringify(name)}`);
  }
  const registered = async () => (await repository.readers()).find((reader) => reader.name === name);
  try {
    if ((await registered()) === undefined) await repository.putReader({ name, position: null, cursor: null });
  } catch (error) {
    if (CheckpointError.is(error) && error.code === 'THRESHER_UNENCODABLE_VALUE') {
      throw new InvalidArgumentError(`event reader name ${JSON.stringify(name)}: ${error.message}`);
    }
    throw error;
  }
  return {
    name,
    async read(options = {}) {
      const reader = await registered();
      if (reader === undefined) throw new InvalidArgumentError(`event reader ${JSON.stringify(name)} was removed`);
      return readEvents(repository, planOf, {
        ...(reader.cursor === null ? {} : { after: reader.cursor }),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
      });
    },
    async acknowledge(position) {
      await repository.putReader({ name, position: readWhole(decodeCursor(position)), cursor: position });
    },
    remove: () => repository.deleteReader(name),
  };
}
