import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';

const TIMER_BPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <bpmn:process id="wait" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t" />
    <bpmn:intermediateCatchEvent id="t">
      <bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

let api: Api;
beforeEach(async () => {
  api = await serveApi();
});
afterEach(async () => {
  await api.close();
});

describe('cluster', () => {
  it('should answer the topology as one broker leading one partition, as an 8.8 gateway', async () => {
    // when the topology is asked for
    const response = await api.call('GET', '/topology');

    // then it is one healthy leader
    expect(response.status).toBe(200);
    const topology = (await response.json()) as { brokers: unknown[] };
    expect(topology).toMatchObject({
      clusterSize: 1,
      partitionsCount: 1,
      replicationFactor: 1,
      gatewayVersion: '8.8.0',
    });
    expect(topology.brokers).toEqual([
      expect.objectContaining({ nodeId: 0, partitions: [{ partitionId: 1, role: 'leader', health: 'healthy' }] }),
    ]);
  });

  it('should answer status 204 while the store answers, and 503 once it does not', async () => {
    // given a serving engine
    expect((await api.call('GET', '/status')).status).toBe(204);

    // when its store stops answering
    await api.repository.close();

    // then the status is down
    const response = await api.call('GET', '/status');
    expect(response.status).toBe(503);
    expect((await problemOf(response)).detail).toMatch(/store does not answer/);
  });

  it('should say it carries no Camunda license', async () => {
    const response = await api.call('GET', '/license');
    expect(await response.json()).toEqual({
      validLicense: false,
      licenseType: 'unknown',
      isCommercial: false,
      expiresAt: null,
    });
  });
});

describe('clock', () => {
  it('should pin the clock every timer is judged by, fire what falls due, and run again once reset', async () => {
    // given an instance waiting on a one-hour timer
    await api.engine.deploy(TIMER_BPMN);
    const start = Date.now();
    const id = await api.engine.start('wait');
    expect((await api.engine.settled(id)).status).toBe('waiting');

    // when the clock is pinned half an hour on
    expect((await api.call('PUT', '/clock', { timestamp: start + 30 * 60_000 })).status).toBe(204);

    // then the engine reads the pinned time and the timer still waits
    expect(api.clock.now()).toBe(start + 30 * 60_000);
    expect((await api.engine.settled(id)).status).toBe('waiting');

    // and pinned past its due time, the timer fires
    expect((await api.call('PUT', '/clock', { timestamp: start + 61 * 60_000 })).status).toBe(204);
    expect((await api.engine.settled(id)).status).toBe('completed');

    // and reset, the clock runs with the system's time again
    expect((await api.call('POST', '/clock/reset')).status).toBe(204);
    expect(Math.abs(api.clock.now() - Date.now())).toBeLessThan(1000);
    expect(api.clock.pinned).toBeUndefined();
  });

  it('should refuse a pin without a timestamp, with one that is not an integer, or with a field it does not know', async () => {
    for (const body of [{}, { timestamp: 'soon' }, { timestamp: 1.5 }, { timestamp: 1, zone: 'UTC' }]) {
      // when the clock is pinned with it
      const response = await api.call('PUT', '/clock', body);

      // then it is a 400 naming the field, and the clock still runs
      expect(response.status, JSON.stringify(body)).toBe(400);
      const problem = await problemOf(response);
      expect(problem).toMatchObject({ title: 'INVALID_ARGUMENT', status: 400, instance: '/v2/clock' });
      expect(problem.detail).toMatch(/\$(\.timestamp)?:/);
      expect(api.clock.pinned).toBeUndefined();
    }
  });
});
