/**
 * A `via: api` fixture's outside world, through Camunda's REST API: its models deployed, its instance created, its
 * moves made as a client makes them, and the wait for the instance's end. Each move waits until what it acts on is
 * there (as searched), and a move a kill cut off is made again on the next server: by the key it had, so a
 * completion or correlation that landed before the kill is not made twice.
 */
import { basename } from 'node:path';
import type { Fixture, Move } from '@thresher/testing';
import { type ApiClient, sleep } from './served.js';

/** How long a move waits for what it acts on, and the run for its instance's end. */
const WAIT_LIMIT_MS = 60_000;

type ApiMove = Extract<Move, { kind: 'complete' | 'message' | 'wait' }>;

export class ApiMoves {
  /** The user tasks completed so far: a later complete move of the same element waits for a new one. */
  readonly #completed = new Set<string>();

  constructor(
    private readonly fixture: Fixture,
    private readonly client: ApiClient,
    /** Why the run cannot go on (a worker stopped), checked while waiting. */
    private readonly broken: () => Error | undefined,
  ) {}

  /** Deploy the fixture's models together, as one multipart `POST /v2/deployments`. */
  async deploy(): Promise<void> {
    const form = new FormData();
    for (const model of this.fixture.models) form.append('resources', new Blob([model.xml]), basename(model.path));
    await this.client.expect('POST', '/deployments', form, [200]);
  }

  /** Create the instance (the run's only one); its process instance key. */
  async create(): Promise<string> {
    const { body } = await this.client.expect(
      'POST',
      '/process-instances',
      { processDefinitionId: this.fixture.process, variables: this.fixture.start.variables },
      [200],
    );
    return (body as { processInstanceKey: string }).processInstanceKey;
  }

  async make(move: Move, instanceKey: string): Promise<void> {
    const api = move as ApiMove;
    if (api.kind === 'complete') return this.#complete(api);
    if (api.kind === 'message') return this.#correlate(api);
    if (api.kind === 'wait' && api.until === 'ended') {
      await this.ended(instanceKey);
      return;
    }
    throw new Error(`moves[${move.index}]: a ${move.kind} move is not driven through the API`);
  }

  /** Wait until the instance has ended; its state. */
  async ended(instanceKey: string): Promise<string> {
    return this.#until(`process instance ${instanceKey} to end`, async () => {
      const { body } = await this.client.expect('GET', `/process-instances/${instanceKey}`, undefined, [200]);
      const { state } = body as { state: string };
      return state === 'ACTIVE' ? undefined : state;
    });
  }

  async #complete(move: Extract<ApiMove, { kind: 'complete' }>): Promise<void> {
    const key = await this.#until(`an open user task at ${move.element} (moves[${move.index}])`, async () => {
      const { body } = await this.client.expect(
        'POST',
        '/user-tasks/search',
        { filter: { elementId: move.element, state: 'CREATED' } },
        [200],
      );
      const open = (body as { items: { userTaskKey: string }[] }).items.map((task) => task.userTaskKey);
      return open.find((one) => !this.#completed.has(one));
    });
    const completion = { variables: move.variables };
    await this.client.expect('POST', `/user-tasks/${key}/completion`, completion, [204], [404]);
    this.#completed.add(key);
  }

  async #correlate(move: Extract<ApiMove, { kind: 'message' }>): Promise<void> {
    const { name, correlationKey } = move;
    const filter = {
      messageName: name,
      messageSubscriptionState: 'CREATED',
      ...(correlationKey === null ? {} : { correlationKey }),
    };
    await this.#until(`a subscription to message ${name} (moves[${move.index}])`, async () => {
      const { body } = await this.client.expect('POST', '/message-subscriptions/search', { filter }, [200]);
      return (body as { items: unknown[] }).items.length > 0 ? true : undefined;
    });
    // Correlated, not published: nothing is buffered, so a correlation made again after a kill that had landed
    // finds no subscription (404) rather than reaching a later one.
    const message = { name, variables: move.variables, ...(correlationKey === null ? {} : { correlationKey }) };
    await this.client.expect('POST', '/messages/correlation', message, [200], [404]);
  }

  async #until<T>(what: string, look: () => Promise<T | undefined>): Promise<T> {
    const since = Date.now();
    for (;;) {
      const broken = this.broken();
      if (broken !== undefined) throw broken;
      const found = await look();
      if (found !== undefined) return found;
      if (Date.now() - since > WAIT_LIMIT_MS) throw new Error(`waited ${WAIT_LIMIT_MS} ms for ${what}`);
      await sleep(20);
    }
  }
}
