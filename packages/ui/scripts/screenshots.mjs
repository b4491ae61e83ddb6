#!/usr/bin/env node
// Writes the screenshots the README shows (docs/images/ui-*.png): a demo store of the order-fulfilment
// sample (some instances waiting for approval, one with an incident, some done, their tasks in the task list) seen
// through the web view in
// Debian's chromium. Run `pnpm --filter @thresher/ui screenshots` after `pnpm build`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMemoryRepository } from '@thresher/checkpoint';
import { Engine } from '@thresher/engine';
import { BatchList, BatchRunner, IncidentList, SearchProjection, TaskList } from '@thresher/rest';
import { startUiServer } from '@thresher/ui';
import { chromium } from 'playwright-core';

const root = (path) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const xml = readFileSync(root('fixtures/order-fulfilment/order-fulfilment.bpmn'), 'utf8');
const { default: handlers } = await import(root('fixtures/order-fulfilment/handlers.mjs'));

const REVIEW_FORM = JSON.stringify({
  id: 'refund-review',
  type: 'default',
  components: [
    { type: 'text', text: '### Refund review' },
    { type: 'textfield', key: 'reviewer', label: 'Reviewer', validate: { required: true } },
    { type: 'number', key: 'refund', label: 'Refund (EUR)' },
    {
      type: 'radio',
      key: 'decision',
      label: 'Decision',
      values: [
        { label: 'Refund', value: 'refund' },
        { label: 'Decline', value: 'decline' },
      ],
    },
  ],
})
  .replace(/&/g, '&amp;')
  .replace(/</g, '&lt;')
  .replace(/"/g, '&quot;');
const refunds = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="refunds">
  <bpmn:process id="refund" name="Refund" isExecutable="true">
    <bpmn:extensionElements><zeebe:userTaskForm id="reviewForm">${REVIEW_FORM}</zeebe:userTaskForm></bpmn:extensionElements>
    <bpmn:startEvent id="requested" name="Refund requested" /><bpmn:sequenceFlow id="a" sourceRef="requested" targetRef="review" />
    <bpmn:userTask id="review" name="Review refund"><bpmn:extensionElements><zeebe:userTask /><zeebe:formDefinition formKey="camunda-forms:bpmn:reviewForm" /></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="b" sourceRef="review" targetRef="refunded" /><bpmn:endEvent id="refunded" name="Refund decided" />
  </bpmn:process>
</bpmn:definitions>`;

const repository = createMemoryRepository();
const engine = new Engine({
  repository,
  handlers: {
    ...handlers,
    'charge-payment': async (job) => {
      if (job.variables.card === 'expired') throw new Error('card expired (issuer code 54)');
      return handlers['charge-payment'](job);
    },
  },
  backoff: () => 0,
  retries: 1,
});
await engine.deploy(xml);
await engine.deploy(refunds);
const orders = [
  { total: 40 },
  { total: 80, gift: true },
  { total: 60, express: true },
  { total: 240 },
  { total: 310, express: true },
  { total: 150 },
  { total: 90, card: 'expired' },
  { total: 55 },
  { total: 420, gift: true },
  { total: 75 },
];
const ids = [];
for (const [n, order] of orders.entries()) {
  const id = await engine.start('order-fulfilment', {
    variables: { orderId: `A-${1001 + n}`, ...order },
    businessKey: `A-${1001 + n}`,
  });
  await engine.settled(id);
  ids.push(id);
}
// One approval given: it runs on to the end.
const [approval] = (await engine.instance(ids[3])).userTasks;
await engine.completeUserTask(approval.id, { approved: true });
await engine.settled(ids[3]);
const refund = await engine.start('refund', { variables: { orderId: 'A-1004', amount: 240 } });
await engine.settled(refund);
// A decision evaluation: the order-rules fixture's shipping decision, with the risk it requires.
await engine.deployTogether([
  readFileSync(root('fixtures/decisions/order-rules.bpmn'), 'utf8'),
  readFileSync(root('fixtures/decisions/order-rules.dmn'), 'utf8'),
]);
const rules = await engine.start('order-rules', {
  variables: { total: 1200, customerYears: 6, express: true, rulebook: 'discounts', items: [{ price: 40 }] },
});
await engine.settled(rules);

// The task list reads the search projection; some tasks claimed, some with a priority or a due date.
for (const [n, id] of [ids[0], ids[5], ids[8]].entries()) {
  const [task] = (await engine.instance(id)).userTasks;
  if (!task) continue;
  await engine.updateUserTask(task.id, { priority: [80, 30, 65][n], dueDate: `2026-12-${10 + n}T17:00:00.000Z` });
  if (n === 1) await engine.assignUserTask(task.id, 'kim');
}
const projection = new SearchProjection(engine, repository);
await projection.caughtUp();
const batchList = new BatchList(engine, projection);
const server = await startUiServer({
  engine,
  tasks: new TaskList(engine, projection),
  incidents: new IncidentList(engine, projection),
  batchList,
});
const browser = await chromium.launch({
  executablePath: process.env.THRESHER_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
async function shot(path, name, { drawn = false, full = false, dmn = false } = {}) {
  await page.goto(new URL(path, server.url).href);
  if (drawn) await page.waitForSelector('#diagram[data-drawn="true"]');
  if (dmn) await page.waitForSelector('#dmn[data-drawn="true"]');
  await page.waitForTimeout(300); // fonts and the form settle before the picture
  await page.screenshot({ path: root(`docs/images/${name}.png`), fullPage: full });
  console.log(`docs/images/${name}.png`);
}
await shot('/', 'ui-processes');
await shot('/processes/order-fulfilment-definitions/1', 'ui-process-heat', { drawn: true });
await shot(`/instances/${ids[4]}`, 'ui-instance-task', { drawn: true });
await shot(`/instances/${ids[6]}`, 'ui-instance-incident', { drawn: true });
await shot(`/instances/${refund}`, 'ui-instance-form', { drawn: true, full: true });
await shot('/instances', 'ui-instances');
await shot('/tasks', 'ui-tasks');
await shot('/incidents', 'ui-incidents');
// A group of incidents retried as one batch operation (the card is still declined: its items fail, by name).
const [group] = await new IncidentList(engine, projection).groups();
if (group) {
  const key = await batchList.retryGroup(group);
  const runner = new BatchRunner(engine, repository);
  await runner.drain();
  await runner.close();
  await shot(`/batches/${key}`, 'ui-batch');
}
await shot(`/instances/${rules}/decisions/0`, 'ui-decision', { dmn: true });
await browser.close();
await server.close();
await projection.close();
await engine.close();
