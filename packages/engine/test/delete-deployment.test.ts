import { createMemoryRepository } from '@thresher/checkpoint';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../src/common/errors.js';
import { deploymentKind, Engine } from '../src/index.js';
import { around, definitions, message, messageDefinition, process } from './fixtures/bpmn/xml.js';

/** Version `n` of process `p`: its task `x` is a user task when `waits`, else a plain task. */
const version = (n: number, waits = false) =>
  around(waits ? `<bpmn:userTask id="x" name="v${n}" />` : `<bpmn:task id="x" name="v${n}" />`);

const DISH = (output: string) => `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="dish-drd" name="Dishes" namespace="t">
  <decision id="dish" name="Dish">
    <decisionTable id="table">
      <output id="out" name="dish" typeRef="string" />
      <rule id="r1"><outputEntry id="o1"><text>${output}</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`;

let engine: Engine;
beforeEach(() => {
  engine = new Engine({ repository: createMemoryRepository() });
});
afterEach(async () => {
  await engine.close();
});

async function digestOf(instanceId: string): Promise<string | undefined> {
  return (await engine.instance(instanceId))?.digest;
}

describe('engine.deleteDeployment', () => {
  it('should make the version before the deleted one the latest, and start nothing on the deleted one', async () => {
    const first = await engine.deploy(version(1));
    const second = await engine.deploy(version(2));
    await engine.deleteDeployment(second.digest);

    expect(await digestOf(await engine.start('p'))).toBe(first.digest);
    await expect(engine.start('p', { digest: second.digest })).rejects.toBeInstanceOf(NotFoundError);
    await engine.deleteDeployment(first.digest);
    await expect(engine.start('p')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('should let the instances on it run to their end, on a fresh engine too, keeping their history', async () => {
    const repository = createMemoryRepository();
    const first = new Engine({ repository });
    const deployed = await first.deploy(version(1, true));
    const id = await first.start('p');
    await first.settled(id);
    await first.deleteDeployment(deployed.digest);
    await first.close();

    await engine.close();
    engine = new Engine({ repository });
    await engine.recover();
    const [task] = await engine.userTasks();
    await engine.completeUserTask(task!.id);
    expect(await engine.settled(id)).toMatchObject({ status: 'completed' });
    const ended = await engine.instance(id);
    expect(ended).toMatchObject({ status: 'completed', digest: deployed.digest });
    expect(ended!.history.map((entry) => entry.node)).toContain('x');
    expect((await engine.events()).some((logged) => logged.event.instanceId === id)).toBe(true);
  });

  it('should make a file deployed again after its deletion live again, as the same deployment', async () => {
    const deployed = await engine.deploy(version(1));
    await engine.deleteDeployment(deployed.digest);
    await expect(engine.start('p')).rejects.toBeInstanceOf(NotFoundError);
    const again = await engine.deploy(version(1));
    expect(again).toMatchObject({ digest: deployed.digest, version: deployed.version });
    expect(await digestOf(await engine.start('p'))).toBe(deployed.digest);
  });

  it('should refuse a digest nothing deployed, one deleted already, and a record that is no file', async () => {
    const deployed = await engine.deploy(version(1));
    await expect(engine.deleteDeployment('0'.repeat(64))).rejects.toBeInstanceOf(NotFoundError);
    await engine.deployTogether([version(2), DISH('"Stew"')]);
    const manifest = (await engine.deployments()).find((one) => deploymentKind(one) === 'manifest');
    await expect(engine.deleteDeployment(manifest!.digest)).rejects.toBeInstanceOf(NotFoundError);
    await engine.deleteDeployment(deployed.digest);
    await expect(engine.deleteDeployment(deployed.digest)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('should start no instance of a deleted process by a message start event', async () => {
    const starts = definitions(
      `${message('m', 'go')}\n${process(`<bpmn:startEvent id="s">${messageDefinition('m')}</bpmn:startEvent><bpmn:endEvent id="e" /><bpmn:sequenceFlow id="f" sourceRef="s" targetRef="e" />`, 'onGo')}`,
      'defs-go',
    );
    const deployed = await engine.deploy(starts);
    await engine.deleteDeployment(deployed.digest);
    expect(await engine.correlateMessage('go')).toMatchObject({ correlated: false });
  });

  it('should evaluate the version before a deleted DMN file, keeping each version its number', async () => {
    await engine.deploy(DISH('"Stew"'));
    const second = await engine.deploy(DISH('"Soup"'));
    await engine.deploy(DISH('"Salad"'));
    const third = (await engine.deployments()).at(-1)!;
    await engine.deleteDeployment(third.digest);
    expect(await engine.evaluateDecision('dish')).toMatchObject({ version: 2, result: 'Soup' });
    await engine.deleteDeployment(second.digest);
    expect(await engine.evaluateDecision('dish')).toMatchObject({ version: 1, result: 'Stew' });
  });
});
