// Scenario 10 — decisions, in memory. Row a: a 100-rule decision table (two inputs, UNIQUE) evaluated in a
// loop with @thresher/dmn, parsed once: evaluations per second. Row b: instances per second of a process whose
// one activity is a business rule task calling that table, beside the same process with a service task
// (its handler returns at once), both on the memory repository, in alternating rounds in one process: the
// ratio is what a decision costs an instance.
import { WARMUP_MS, warmUp } from '../lib/warmup.mjs';

export const id = '10';
export const title = 'Decisions, in memory';

/** A UNIQUE table of 100 rules over `amount` (ranges of 10) and `region` (one of five per rule). */
export function tableModel() {
  const rules = Array.from(
    { length: 100 },
    (_, i) => `<rule id="r${i}">
      <inputEntry id="r${i}-a"><text>[${i * 10}..${(i + 1) * 10})</text></inputEntry>
      <inputEntry id="r${i}-b"><text>"r${i % 5}", "any"</text></inputEntry>
      <outputEntry id="r${i}-o"><text>${i}</text></outputEntry>
    </rule>`,
  ).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="bench-rules" name="bench" namespace="http://thresher.dev/bench">
  <decision id="band" name="Band">
    <decisionTable id="band-table" hitPolicy="UNIQUE">
      <input id="amount"><inputExpression id="amount-x" typeRef="number"><text>amount</text></inputExpression></input>
      <input id="region"><inputExpression id="region-x" typeRef="string"><text>region</text></inputExpression></input>
      <output id="band-out" name="band" typeRef="number" />
      ${rules}
    </decisionTable>
  </decision>
</definitions>`;
}

function processModel(task) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="bench-${task}" targetNamespace="http://thresher.dev/bench">
  <bpmn:process id="bench" isExecutable="true">
    <bpmn:startEvent id="start" />
    ${
      task === 'rule'
        ? '<bpmn:businessRuleTask id="work"><bpmn:extensionElements><zeebe:calledDecision decisionId="band" resultVariable="band" /></bpmn:extensionElements></bpmn:businessRuleTask>'
        : '<bpmn:serviceTask id="work"><bpmn:extensionElements><zeebe:taskDefinition type="band" /></bpmn:extensionElements></bpmn:serviceTask>'
    }
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;
}

/** The variables of evaluation/instance `i`: amounts across the whole table. */
const inputs = (i) => ({ amount: (i * 37) % 1000, region: `r${Math.floor(((i * 37) % 1000) / 10) % 5}` });

export const tasks = {
  async evaluate({ n, warmup }, { section }) {
    const { evaluateDecision, parseDmn } = await import('@thresher/dmn');
    const definitions = parseDmn(tableModel());
    const variables = Array.from({ length: n }, (_, i) => inputs(i));
    for (let i = 0; i < warmup; i++) {
      const outcome = evaluateDecision(definitions, 'band', inputs(i));
      if (!outcome.ok) throw new Error(outcome.failure.message);
    }
    const seconds = await section(async () => {
      const started = performance.now();
      for (const vars of variables) {
        if (!evaluateDecision(definitions, 'band', vars).ok) throw new Error('an evaluation failed');
      }
      return (performance.now() - started) / 1000;
    });
    return { n, evaluationsPerSecond: n / seconds, measuredMs: seconds * 1000 };
  },

  /**
   * Both processes in one child, each on an engine and memory repository of its own, measured in alternating
   * rounds (the order swapped each round) after both warm up: this machine's speed moves by a third from
   * process to process, which a ratio of two children's medians carried whole.
   */
  async instances({ n, rounds, warmup, warmupMs }, { section }) {
    const { Engine, forgetInstances, openStore } = await import('../lib/thresher.mjs');
    const side = async (task) => {
      const { repository } = await openStore('memory');
      const engine = new Engine({ repository, handlers: { band: () => ({ band: 1 }) } });
      if (task === 'rule') await engine.deploy(tableModel());
      await engine.deploy(processModel(task));
      const runMany = async (count, offset = 0) => {
        for (let i = 0; i < count; i++) {
          const instanceId = await engine.start('bench', { variables: inputs(offset + i) });
          const state = await engine.settled(instanceId);
          if (state.status !== 'completed') throw new Error(`instance ${instanceId} ended ${state.status}`);
        }
        // Untimed: the memory repository keeps every checkpoint, which every collection would walk.
        return () => forgetInstances(repository);
      };
      return { engine, runMany, ms: 0 };
    };
    const sides = { rule: await side('rule'), service: await side('service') };
    const warmed = {};
    for (const [task, { runMany }] of Object.entries(sides)) {
      warmed[task] = await warmUp(async (count, offset) => (await runMany(count, offset))(), {
        min: warmup,
        ms: warmupMs / 2,
      });
    }
    const perRound = Math.ceil(n / rounds);
    await section(async () => {
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? ['rule', 'service'] : ['service', 'rule'];
        for (const task of order) {
          const started = performance.now();
          const forget = await sides[task].runMany(perRound, round * perRound);
          sides[task].ms += performance.now() - started;
          await forget();
        }
      }
    });
    for (const { engine } of Object.values(sides)) await engine.close();
    const total = perRound * rounds;
    const rate = (task) => total / (sides[task].ms / 1000);
    return {
      n: total,
      ruleInstancesPerSecond: rate('rule'),
      serviceInstancesPerSecond: rate('service'),
      serviceOverRule: rate('service') / rate('rule'),
      measuredMs: sides.rule.ms + sides.service.ms,
      warmed,
    };
  },
};

export function plan(quick) {
  return quick
    ? { evaluations: 20_000, instances: 300, rounds: 2, warmup: 50, warmupMs: 0 }
    : { evaluations: 200_000, instances: 3000, rounds: 10, warmup: 300, warmupMs: WARMUP_MS };
}

export async function run(ctx) {
  const sizes = plan(ctx.quick);
  const { table, pair } = await ctx.measure({
    table: { scenario: 'decisions', task: 'evaluate', options: { n: sizes.evaluations, warmup: 2000 } },
    pair: {
      scenario: 'decisions',
      task: 'instances',
      options: { n: sizes.instances, rounds: sizes.rounds, warmup: sizes.warmup, warmupMs: sizes.warmupMs },
    },
  });
  return [
    {
      scenario: title,
      measure: '100-rule decision table (UNIQUE, two inputs), evaluated in a loop: evaluations/s',
      thresher: { value: table.evaluationsPerSecond, unit: '/s' },
      target: { text: '≥ 20,000 evaluations/s', on: 'thresher', holds: (v) => v >= 20_000 },
      note: `${sizes.evaluations.toLocaleString('en-US')} evaluations of one parsed table, inputs across all its rules`,
    },
    {
      scenario: title,
      measure: 'a business rule task (that table) vs a service task, instances/s in memory: service ÷ rule',
      thresher: { value: pair.serviceOverRule, unit: '×' },
      target: { text: '≤ 1.5×', on: 'thresher', holds: (v) => v <= 1.5 },
      note: `rule ${Math.round(pair.ruleInstancesPerSecond).toLocaleString('en-US')}/s, service ${Math.round(pair.serviceInstancesPerSecond).toLocaleString('en-US')}/s; ${pair.n.toLocaleString('en-US')} sequential instances each, in ${sizes.rounds} alternating rounds in one process (the ratio: the median of the processes')`,
    },
  ];
}
