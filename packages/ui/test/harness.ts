import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMemoryRepository } from '@thresher/checkpoint';
import { Engine } from '@thresher/engine';
import { BatchList, BatchRunner, IncidentList, SearchProjection, TaskList } from '@thresher/rest';
import { startUiServer, type UiServer, type UiServerOptions } from '@thresher/ui';
import { BARE_BPMN, CALLER_BPMN, REVIEW_BPMN } from './models.js';

export interface Harness {
  engine: Engine;
  /** The search projection of the task list and the incidents, when `serve` was asked for them (`taskList`). */
  projection: SearchProjection | undefined;
  server: UiServer;
  /** Whether the `charge` handler fails (it does until told otherwise), and with what message. */
  charge: { fails: boolean; message: string };
  get(path: string, init?: RequestInit): Promise<Response>;
  page(path: string): Promise<string>;
  /** POSTs an action form as a page of this view would (its origin). */
  post(path: string, fields: Record<string, string | string[]>, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/** An engine on a memory store with the test models deployed, and its view served on a free loopback port. */
export async function serve(options: Omit<UiServerOptions, 'engine'> & { taskList?: boolean } = {}): Promise<Harness> {
  const { taskList, ...uiOptions } = options;
  const charge = { fails: true, message: 'card declined' };
  const repository = createMemoryRepository();
  const engine = new Engine({
    repository,
    handlers: {
      charge: async () => {
        if (charge.fails) throw new Error(charge.message);
        return { charged: true };
      },
    },
    backoff: () => 0,
  });
  await engine.deploy(REVIEW_BPMN);
  await engine.deploy(BARE_BPMN);
  await engine.deploy(CALLER_BPMN);
  const projection = taskList ? new SearchProjection(engine, repository) : undefined;
  const batches = taskList ? new BatchRunner(engine, repository, { pollMs: 20, onError: () => {} }) : undefined;
  batches?.start();
  const server = await startUiServer({
    engine,
    onError: () => {},
    ...(projection === undefined
      ? {}
      : {
          tasks: new TaskList(engine, projection),
          incidents: new IncidentList(engine, projection),
          batches: batches!,
          batchList: new BatchList(engine, projection),
        }),
    ...uiOptions,
  });
  const origin = new URL(server.url).origin;
  const get = (path: string, init?: RequestInit) => fetch(new URL(path, server.url), { redirect: 'manual', ...init });
  return {
    engine,
    projection,
    server,
    charge,
    get,
    page: async (path) => {
      const response = await get(path);
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
      return response.text();
    },
    post: (path, fields, headers = {}) => {
      const body = new URLSearchParams();
      for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) body.append(name, one);
      return get(path, {
        method: 'POST',
        body,
        headers: { Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      });
    },
    close: async () => {
      await batches?.close();
      await server.close();
      await projection?.close();
      await engine.close();
    },
  };
}

/** The page's data block, parsed. */
export function dataOf(page: string): Record<string, unknown> {
  const match = /<script type="application\/json" id="thresher-data">(.*?)<\/script>/s.exec(page);
  if (!match?.[1]) throw new Error('the page has no data block');
  return JSON.parse(match[1]) as Record<string, unknown>;
}

/** The action token of the first form for `action` on the page. */
export function actionToken(page: string, action: string): string {
  const form = new RegExp(`data-action="${action}"[^>]*>\\s*<input type="hidden" name="_token" value="([^"]+)"`).exec(
    page,
  );
  if (!form?.[1]) throw new Error(`the page has no ${action} form`);
  return form[1];
}

const decisionFixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../fixtures/decisions/${name}`, import.meta.url)), 'utf8');

/** The requirements diagram (DMNDI) `decided` adds to the order rules when asked: shipping above the risk it needs. */
const ORDER_RULES_DRD = `<dmndi:DMNDI><dmndi:DMNDiagram id="order-rules-drd">
<dmndi:DMNShape id="shipping-di" dmnElementRef="shipping"><dc:Bounds x="160" y="80" width="180" height="80" /></dmndi:DMNShape>
<dmndi:DMNShape id="risk-di" dmnElementRef="risk"><dc:Bounds x="160" y="280" width="180" height="80" /></dmndi:DMNShape>
<dmndi:DMNEdge id="shipping-needs-risk-di" dmnElementRef="shipping-needs-risk"><di:waypoint x="250" y="280" /><di:waypoint x="250" y="160" /></dmndi:DMNEdge>
<dmndi:DMNShape id="discounts-di" dmnElementRef="discounts"><dc:Bounds x="420" y="80" width="180" height="80" /></dmndi:DMNShape>
<dmndi:DMNShape id="points-di" dmnElementRef="points"><dc:Bounds x="680" y="80" width="180" height="80" /></dmndi:DMNShape>
<dmndi:DMNShape id="segment-rate-di" dmnElementRef="segment-rate"><dc:Bounds x="420" y="280" width="180" height="80" /></dmndi:DMNShape>
</dmndi:DMNDiagram></dmndi:DMNDI>`;

/** The order rules' DMN file, with a requirements diagram when `diagram`. */
function orderRules(diagram: boolean): string {
  const xml = decisionFixture('order-rules.dmn');
  if (!diagram) return xml;
  return xml
    .replace(
      '<definitions ',
      '<definitions xmlns:dmndi="https://www.omg.org/spec/DMN/20191111/DMNDI/" xmlns:dc="http://www.omg.org/spec/DMN/20180521/DC/" xmlns:di="http://www.omg.org/spec/DMN/20180521/DI/" ',
    )
    .replace('</definitions>', `${ORDER_RULES_DRD}\n</definitions>`);
}

/**
 * An order-rules instance past its first decisions (shipping, with the risk it requires): its id. With `diagram`,
 * its DMN file carries a requirements diagram.
 */
export async function decided(h: Harness, options: { diagram?: boolean } = {}): Promise<string> {
  await h.engine.deployTogether([decisionFixture('order-rules.bpmn'), orderRules(options.diagram ?? false)]);
  const id = await h.engine.start('order-rules', {
    variables: { total: 1200, customerYears: 6, express: true, rulebook: 'discounts', items: [{ price: 40 }] },
  });
  await h.engine.settled(id);
  return id;
}

/** A review instance waiting at its user task, the task changed as given; the task's id. */
export async function waitingTask(h: Harness, changes: Record<string, unknown> = {}): Promise<string> {
  const id = await h.engine.start('review', { variables: { orderId: `o-${Math.random()}` } });
  await h.engine.settled(id);
  const [task] = (await h.engine.instance(id))?.userTasks ?? [];
  if (Object.keys(changes).length > 0) await h.engine.updateUserTask(task!.id, changes);
  return task!.id;
}

/** A review instance at its charge incident (the card declined); its id. */
export async function failedCharge(h: Harness): Promise<string> {
  const id = await h.engine.start('review', { variables: { orderId: `o-${Math.random()}` } });
  await h.engine.settled(id);
  const [task] = (await h.engine.instance(id))?.userTasks ?? [];
  await h.engine.completeUserTask(task!.id, { reviewer: 'bob' });
  await h.engine.settled(id);
  return id;
}
