import { Engine } from '@thresher/engine';
import { createSqliteRepository } from '@thresher/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { definitions, Workspace } from './helpers.js';

const workspaces: Workspace[] = [];
afterEach(() => {
  for (const workspace of workspaces.splice(0)) workspace.remove();
});

/** A review asked again until it passes: start → review (user task) → passed? → again, or end. */
const reviewLoop = `  <bpmn:process id="review-loop" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:userTask id="review"><bpmn:incoming>f1</bpmn:incoming><bpmn:incoming>again</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing></bpmn:userTask>
    <bpmn:exclusiveGateway id="passed" default="again"><bpmn:incoming>f2</bpmn:incoming><bpmn:outgoing>again</bpmn:outgoing><bpmn:outgoing>done</bpmn:outgoing></bpmn:exclusiveGateway>
    <bpmn:endEvent id="end"><bpmn:incoming>done</bpmn:incoming></bpmn:endEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="review" />
    <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="passed" />
    <bpmn:sequenceFlow id="again" sourceRef="passed" targetRef="review" />
    <bpmn:sequenceFlow id="done" sourceRef="passed" targetRef="end"><bpmn:conditionExpression>=ok</bpmn:conditionExpression></bpmn:sequenceFlow>
  </bpmn:process>`;

describe('thresher show', () => {
  it('should list an element entered past --loop-warning as a loop warning, not an incident', async () => {
    // given an instance whose review was asked five times
    const workspace = new Workspace();
    workspaces.push(workspace);
    const path = workspace.path('app.db');
    const repository = createSqliteRepository({ path });
    const engine = new Engine({ repository, handlers: {} });
    await engine.deploy(definitions('review-loop-defs', reviewLoop));
    const id = await engine.start('review-loop');
    for (let ask = 1; ask < 5; ask++) {
      const waiting = await engine.settled(id);
      if (waiting.status !== 'waiting') throw new Error('expected the review');
      await engine.completeUserTask(waiting.userTasks[0]!.id, { ok: false });
    }
    await engine.settled(id);
    await engine.close();
    await repository.close();

    // when it is shown with a loop warning of 3, and with the default
    const warned = await workspace.thresher(['show', id, '--loop-warning', '3', '--store', path]);
    const json = await workspace.thresher(['show', id, '--loop-warning', '3', '--store', path, '--json']);
    const quiet = await workspace.thresher(['show', id, '--store', path]);

    // then the review is listed as a loop, past the warning, and nothing else is
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stdout).toContain('Loop warnings (not incidents');
    expect(warned.stdout).toContain('  review entered 5 times in scope / (the warning is at 3)');
    expect(json.json()).toMatchObject({
      looping: [
        { elementId: 'review', scope: '/', turns: 5, threshold: 3 },
        { elementId: 'passed', scope: '/', turns: 4, threshold: 3 },
      ],
      incidents: [],
    });
    expect(quiet.stdout).not.toContain('Loop warnings');
    const refused = await workspace.thresher(['show', id, '--loop-warning', '0', '--store', path]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--loop-warning');
  });
});
