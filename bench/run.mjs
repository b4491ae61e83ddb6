// Thresher's first benchmark: sequential instances of start → service task → exclusive gateway → script
// task → end, in memory and on SQLite (strict). The side-by-side peer and storage-limit scenarios come with
// the benchmark suite (issue 7). Medians of 3 runs after a warm-up; a figure, never a test.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryRepository } from '@thresher/checkpoint';
import { Engine } from '@thresher/engine';
import { createSqliteRepository } from '@thresher/store-sqlite';

const model = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="bench-definitions" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="bench" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="work"><bpmn:extensionElements><zeebe:taskDefinition type="work" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:exclusiveGateway id="big" default="small" />
    <bpmn:scriptTask id="double"><bpmn:extensionElements><zeebe:script expression="=n * 2" resultVariable="m" /></bpmn:extensionElements></bpmn:scriptTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="big" />
    <bpmn:sequenceFlow id="large" sourceRef="big" targetRef="double"><bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">=n &gt; 10</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="small" sourceRef="big" targetRef="double" />
    <bpmn:sequenceFlow id="f4" sourceRef="double" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;

const handlers = { work: async (job) => ({ n: job.variables.i % 20 }) };

async function instancesPerSecond(repository, count) {
  const engine = new Engine({ repository, handlers });
  await engine.deploy(model);
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const id = await engine.start('bench', { variables: { i } });
    await engine.settled(id);
  }
  const seconds = (performance.now() - started) / 1000;
  await engine.close();
  return count / seconds;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(name, open, count) {
  const runs = [];
  for (let run = 0; run < 4; run++) {
    const { repository, dispose } = open();
    const rate = await instancesPerSecond(repository, count);
    await repository.close();
    dispose();
    if (run > 0) runs.push(rate); // the first run warms up
  }
  return { scenario: name, instances: count, instancesPerSecond: Math.round(median(runs)) };
}

const rows = [
  await measure('in memory', () => ({ repository: createMemoryRepository(), dispose: () => {} }), 2000),
  await measure(
    'SQLite, strict',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'thresher-bench-'));
      return {
        repository: createSqliteRepository({ path: join(dir, 'bench.db') }),
        dispose: () => rmSync(dir, { recursive: true }),
      };
    },
    500,
  ),
];

if (process.argv.includes('--json')) {
  console.log(
    JSON.stringify({ machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version }, rows }),
  );
} else {
  console.log(`${cpus()[0]?.model} ×${cpus().length}, Node ${process.version}`);
  console.table(rows);
}
