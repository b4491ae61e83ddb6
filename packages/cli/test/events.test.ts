import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, type ParkedOutcome } from '../src/index.js';
import { humanDuration, isoDuration } from '../src/output.js';
import { definitions, type RunOptions, TestClock, Workspace } from './helpers.js';

const ws = new Workspace();
const events = (name: string) => fileURLToPath(new URL(`../../../fixtures/events/${name}`, import.meta.url));

/** start → timer catch event `wait` (DURATION) → end. */
const timerProcess = (id: string, duration: string) => `  <bpmn:process id="${id}" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:intermediateCatchEvent id="wait">
      <bpmn:timerEventDefinition><bpmn:timeDuration xsi:type="bpmn:tFormalExpression">${duration}</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:intermediateCatchEvent>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="wait" />
    <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="end" />
  </bpmn:process>`;

/** start → catch signal CATCH → (throw signal THROW →) end. */
const signalProcess = (
  id: string,
  caught: string,
  thrown?: string,
) => `  <bpmn:signal id="${caught}-signal" name="${caught}" />
  ${thrown ? `<bpmn:signal id="${thrown}-signal" name="${thrown}" />` : ''}
  <bpmn:process id="${id}" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:intermediateCatchEvent id="catch"><bpmn:signalEventDefinition signalRef="${caught}-signal" /></bpmn:intermediateCatchEvent>
    ${thrown ? `<bpmn:intermediateThrowEvent id="throw"><bpmn:signalEventDefinition signalRef="${thrown}-signal" /></bpmn:intermediateThrowEvent>` : ''}
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="catch" />
    ${
      thrown
        ? '<bpmn:sequenceFlow id="f2" sourceRef="catch" targetRef="throw" /><bpmn:sequenceFlow id="f3" sourceRef="throw" targetRef="end" />'
        : '<bpmn:sequenceFlow id="f2" sourceRef="catch" targetRef="end" />'
    }
  </bpmn:process>`;

interface Completed {
  status: 'completed';
  instanceId: string;
  variables: Record<string, unknown>;
}

beforeAll(() => {
  ws.write('short-timer.bpmn', definitions('short-timer-defs', timerProcess('short-timer', 'PT0.1S')));
  ws.write('minute-timer.bpmn', definitions('minute-timer-defs', timerProcess('minute-timer', 'PT1M')));
  ws.write('long-timer.bpmn', definitions('long-timer-defs', timerProcess('long-timer', 'PT1H')));
  ws.write('thrower.bpmn', definitions('thrower-defs', signalProcess('thrower', 'open-up', 'ping')));
  ws.write('listener.bpmn', definitions('listener-defs', signalProcess('listener', 'ping')));
  ws.write(
    'signals.mjs',
    [
      'export default {',
      '  charge: () => ({ charged: true }),',
      '  invoice: () => ({ invoiced: true }),',
      '  prepare: () => ({ prepared: true }),',
      '  pack: () => ({ packed: true }),',
      '  crate: () => ({ crated: true }),',
      '};',
      '',
    ].join('\n'),
  );
});

afterAll(() => ws.remove());

const HOUR = 3_600_000;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('messages (fixtures/events/messages.bpmn)', () => {
  /** Runs an order into `store`: it parks at the receive task, waiting for payment-received with key `orderId`. */
  async function parkAtPayment(store: string, orderId: string, options: RunOptions = {}): Promise<string> {
    const run = await ws.thresher(
      ['run', events('messages.bpmn'), '--var', `orderId=${orderId}`, '--store', store, '--json'],
      options,
    );
    expect(run.code).toBe(ExitCode.Parked);
    return run.json<ParkedOutcome>().instanceId;
  }

  /** …then pays it (amount=5): it parks at the event-based gateway, waiting for shipped or a day to pass. */
  async function parkAtGateway(store: string, orderId: string, options: RunOptions = {}): Promise<string> {
    const instanceId = await parkAtPayment(store, orderId, options);
    const send = await ws.thresher(
      ['send', 'payment-received', '--key', orderId, '--var', 'amount=5', '--store', store],
      options,
    );
    expect(send.code).toBe(ExitCode.Parked);
    return instanceId;
  }

  it('should park at the receive task, naming the message, its key and the send command', async () => {
    const run = await ws.thresher([
      'run',
      events('messages.bpmn'),
      '--var',
      'orderId=M-9',
      '--store',
      'sqlite:messages-park.db',
    ]);
    expect(run.code).toBe(ExitCode.Parked);
    expect(run.stdout).toMatch(/is parked \(process messages\): it waits for .*message payment-received \(key M-9\)/);
    expect(run.stdout).toContain(
      'waiting for message payment-received (key M-9) at await-payment — send it with: thresher send payment-received --key M-9 --store sqlite:messages-park.db',
    );
    expect(run.stdout).toContain('waiting for message order-cancelled (key M-9) at cancelled');
    expect(run.stdout).not.toContain('It waits for something the CLI cannot give');
    expect(run.stdout).toMatch(/Instance \S+ is parked/);
  });

  it('should take the message in a second thresher run and park again at the event-based gateway', async () => {
    const store = 'sqlite:messages-take.db';
    const clock = new TestClock();
    const instanceId = await parkAtPayment(store, 'M-9', { clock });
    clock.advance(5_000);

    const send = await ws.thresher(
      ['send', 'payment-received', '--key', 'M-9', '--var', 'amount=5', '--store', store, '--json'],
      { clock },
    );

    expect(send.code).toBe(ExitCode.Parked);
    const outcome = send.json<ParkedOutcome & { correlated: boolean; message: unknown }>();
    expect(outcome).toMatchObject({
      status: 'parked',
      instanceId,
      correlated: true,
      message: { name: 'payment-received', correlationKey: 'M-9' },
      variables: { orderId: 'M-9', amount: 5 },
      userTasks: [],
      subscriptions: [
        {
          elementId: 'shipment-notice',
          kind: 'message',
          name: 'shipped',
          correlationKey: 'M-9',
          command: `thresher send shipped --key M-9 --store ${store}`,
        },
      ],
    });
    // The day starts when the message was taken, by the clock the command ran on.
    const dueAt = clock.now() + DAY;
    expect(outcome.timers).toEqual([
      {
        elementId: 'a-day-passes',
        dueAt,
        due: iso(dueAt),
        waitCommand: `thresher resume ${instanceId} --wait-timers P1D --store ${store}`,
      },
    ]);
    expect(outcome.commands).toEqual([
      `thresher send shipped --key M-9 --store ${store}`,
      `thresher resume ${instanceId} --store ${store}`,
    ]);
  });

  it('should print the timer of the gateway with when it is due and the resume command', async () => {
    const store = 'sqlite:messages-timer.db';
    const clock = new TestClock();
    const instanceId = await parkAtGateway(store, 'M-9', { clock });
    const dueAt = clock.now() + DAY;
    const show = await ws.thresher(['show', instanceId, '--store', store, '--json'], { clock });
    expect(show.json<{ status: string }>().status).toBe('running');

    // The same park, as text: a run that does nothing but settle and report it.
    const resume = await ws.thresher(['resume', instanceId, '--store', store], { clock });

    expect(resume.code).toBe(ExitCode.Parked);
    expect(resume.stdout).toContain(
      `waiting for message shipped (key M-9) at shipment-notice — send it with: thresher send shipped --key M-9 --store ${store}`,
    );
    expect(resume.stdout).toContain(`waiting for timer a-day-passes, due ${iso(dueAt)} (in 1d)`);
    expect(resume.stdout).toContain(`once it is due, resume it with: thresher resume ${instanceId} --store ${store}`);
    expect(resume.stdout).toContain(
      `or wait for it now: thresher resume ${instanceId} --wait-timers P1D --store ${store}`,
    );
    expect(resume.stdout).toContain(
      'it waits for message shipped (key M-9), timer a-day-passes due in 1d (later than --wait-timers PT1M)',
    );

    // An hour later, the same timer is due in 23 hours.
    clock.advance(HOUR);
    const later = await ws.thresher(['resume', instanceId, '--store', store], { clock });
    expect(later.code).toBe(ExitCode.Parked);
    expect(later.stdout).toContain(`waiting for timer a-day-passes, due ${iso(dueAt)} (in 23h)`);
    expect(later.stdout).toContain(
      `or wait for it now: thresher resume ${instanceId} --wait-timers PT23H --store ${store}`,
    );
  });

  it('should complete the instance when the shipment notice is sent', async () => {
    const store = 'sqlite:messages-shipped.db';
    const instanceId = await parkAtGateway(store, 'M-9');

    const send = await ws.thresher(['send', 'shipped', '--key', 'M-9', '--var', 'carrier=DHL', '--store', store]);

    expect(send.code).toBe(ExitCode.Ok);
    expect(send.stdout).toContain(`Instance ${instanceId} completed (process messages).`);
    expect(send.stdout).toContain('carrier = "DHL"');
    expect(send.stderr).toContain('shipment-notice: took message shipped (key M-9)');
  });

  it('should exit 1 when no instance waits for the message, and keep nothing', async () => {
    const store = ['--store', 'sqlite:messages-nobody.db'];
    // given an instance that waits for payment-received, not shipped
    await parkAtPayment('sqlite:messages-nobody.db', 'M-9');

    const send = await ws.thresher(['send', 'unknown', '--key', 'x', ...store]);
    expect(send.code).toBe(ExitCode.Failed);
    expect(send.stderr).toContain('no instance waits for message unknown with key x');
    expect(send.stderr).toContain('not kept');
    expect(send.stdout).toBe('');

    const json = await ws.thresher(['send', 'shipped', '--key', 'M-9', ...store, '--json']);
    expect(json.code).toBe(ExitCode.Failed);
    expect(json.json()).toEqual({
      status: 'not-correlated',
      correlated: false,
      message: { name: 'shipped', correlationKey: 'M-9' },
    });
  });

  it('should say so when a message without a key finds nobody, and on an absent store', async () => {
    const send = await ws.thresher(['send', 'payment-received', '--store', 'sqlite:absent.db']);
    expect(send.code).toBe(ExitCode.Failed);
    expect(send.stderr).toContain('no instance waits for message payment-received without a key');
  });

  it('should pick the instance by correlation key', async () => {
    const store = ['--store', 'sqlite:messages-keys.db'];
    const a = await ws.thresher(['run', events('messages.bpmn'), '--var', 'orderId=K-1', ...store, '--json']);
    const b = await ws.thresher(['run', events('messages.bpmn'), '--var', 'orderId=K-2', ...store, '--json']);
    const idB = b.json<ParkedOutcome>().instanceId;
    const cancel = await ws.thresher([
      'send',
      'order-cancelled',
      '--key',
      'K-2',
      '--message-id',
      'cancel-1',
      ...store,
      '--json',
    ]);
    // refund has no handler: its retries run out into an incident, so the cancellation reached K-2.
    expect(cancel.code).toBe(ExitCode.Failed);
    expect(cancel.json()).toMatchObject({
      status: 'incident',
      instanceId: idB,
      message: { name: 'order-cancelled', correlationKey: 'K-2', messageId: 'cancel-1' },
      incidents: [{ elementId: 'refund' }],
    });
    expect(a.json<ParkedOutcome>().status).toBe('parked');
  }, 20_000);
});

describe('signals (fixtures/events/signals-errors.bpmn)', () => {
  const handlers = ['--handlers', 'signals.mjs'];

  it('should park waiting for the signal, then complete when it is broadcast', async () => {
    const store = ['--store', 'sqlite:signals-one.db'];
    const run = await ws.thresher([
      'run',
      events('signals-errors.bpmn'),
      '--var',
      'fragile=false',
      ...handlers,
      ...store,
    ]);
    expect(run.code).toBe(ExitCode.Parked);
    expect(run.stdout).toContain(
      'waiting for signal open at wait-open — broadcast it with: thresher signal open --handlers signals.mjs --store sqlite:signals-one.db',
    );
    const instanceId = /Instance (\S+) is parked/.exec(run.stdout)?.[1];

    const signal = await ws.thresher(['signal', 'open', ...handlers, ...store, '--json']);
    expect(signal.code).toBe(ExitCode.Ok);
    expect(signal.json()).toMatchObject({
      signal: 'open',
      reached: [instanceId],
      outcomes: [
        {
          status: 'completed',
          instanceId,
          variables: { charged: true, prepared: true, packed: true },
        },
      ],
    });
  });

  it('should drive every reached instance and exit with the worst outcome', async () => {
    const store = ['--store', 'sqlite:signals-worst.db'];
    const one = await ws.thresher([
      'run',
      events('signals-errors.bpmn'),
      '--var',
      'fragile=false',
      ...handlers,
      ...store,
    ]);
    const two = await ws.thresher([
      'run',
      events('signals-errors.bpmn'),
      '--var',
      'fragile=true',
      ...handlers,
      ...store,
    ]);
    expect([one.code, two.code]).toEqual([ExitCode.Parked, ExitCode.Parked]);
    // Without handlers every service task fails into an incident: the worst outcome is 1.
    const signal = await ws.thresher(['signal', 'open', ...store, '--json']);
    expect(signal.code).toBe(ExitCode.Failed);
    const document = signal.json<{ reached: string[]; outcomes: { status: string }[] }>();
    expect(document.reached).toHaveLength(2);
    expect(document.outcomes.map((outcome) => outcome.status)).toEqual(['incident', 'incident']);
  }, 30_000);

  it('should also drive an instance reached by a signal a reached instance throws', async () => {
    const store = ['--store', 'sqlite:signals-thrown.db'];
    const thrower = await ws.thresher(['run', 'thrower.bpmn', ...store, '--json']);
    const listener = await ws.thresher(['run', 'listener.bpmn', ...store, '--json']);
    expect(listener.json<ParkedOutcome>().subscriptions).toMatchObject([{ kind: 'signal', name: 'ping' }]);
    const signal = await ws.thresher(['signal', 'open-up', ...store, '--json']);
    expect(signal.code).toBe(ExitCode.Ok);
    const document = signal.json<{ reached: string[]; outcomes: { status: string; instanceId: string }[] }>();
    expect(document.reached).toEqual([thrower.json<ParkedOutcome>().instanceId]);
    expect(document.outcomes).toMatchObject([
      { status: 'completed', instanceId: thrower.json<ParkedOutcome>().instanceId },
      { status: 'completed', instanceId: listener.json<ParkedOutcome>().instanceId },
    ]);
  });

  it('should exit 0 when no instance waits for the signal', async () => {
    const store = ['--store', 'sqlite:signals-nobody.db'];
    const signal = await ws.thresher(['signal', 'nobody-listens', ...store]);
    expect(signal.code).toBe(ExitCode.Ok);
    expect(signal.stdout).toContain('no instance waits for signal nobody-listens');
    const json = await ws.thresher(['signal', 'nobody-listens', ...store, '--json']);
    expect(json.code).toBe(ExitCode.Ok);
    expect(json.json()).toEqual({ signal: 'nobody-listens', reached: [], outcomes: [] });
  });
});

describe('timers', () => {
  it('should wait for a timer due within --wait-timers and complete once it is due', async () => {
    const clock = new TestClock();
    const startedAt = clock.now();
    const store = ['--store', 'sqlite:timers-wait.db'];
    const cli = ws.start(['run', 'short-timer.bpmn', '--wait-timers', 'PT5S', ...store], { clock });
    // The command waits, in its own process, for the timer due in 0.1 s (not a real one: the test's clock).
    await cli.stderrMatches(/waiting for the timer/);
    expect(cli.stderr()).toContain(`wait: waiting for the timer due at ${iso(startedAt + 100)} (in 0.1s)`);
    expect(cli.stderr()).not.toContain('wait: timer fired');

    clock.advance(100);
    const run = await cli.done;

    expect(run.code).toBe(ExitCode.Ok);
    expect(run.stdout).toMatch(/completed \(process short-timer\)/);
    expect(run.stderr).toContain('wait: timer fired');
    // It ended when the timer was due, not before.
    const instanceId = /Instance (\S+) completed/.exec(run.stdout)?.[1] ?? '';
    const show = await ws.thresher(['show', instanceId, ...store, '--json'], { clock });
    expect(show.json()).toMatchObject({ status: 'completed', startedAt, endedAt: startedAt + 100 });
  });

  it('should wait by default (PT1M) for a timer due within a minute', async () => {
    const clock = new TestClock();
    const cli = ws.start(['run', 'minute-timer.bpmn', '--store', 'sqlite:timers-default.db'], { clock });
    await cli.stderrMatches(/waiting for the timer/);
    expect(cli.stderr()).toContain(`wait: waiting for the timer due at ${iso(clock.now() + 60_000)} (in 1m)`);

    clock.advance(60_000);
    const run = await cli.done;

    expect(run.code).toBe(ExitCode.Ok);
    expect(run.stdout).toMatch(/completed \(process minute-timer\)/);
  });

  it('should park on a timer due later than --wait-timers, naming when it is due', async () => {
    const clock = new TestClock();
    const dueAt = clock.now() + HOUR;
    const store = ['--store', 'sqlite:timers-park.db'];
    const run = await ws.thresher(['run', 'long-timer.bpmn', ...store], { clock });
    expect(run.code).toBe(ExitCode.Parked);
    const instanceId = /Instance (\S+) is parked/.exec(run.stdout)?.[1] ?? '';
    expect(run.stdout).toContain(`waiting for timer wait, due ${iso(dueAt)} (in 1h)`);
    expect(run.stdout).toContain('it waits for timer wait due in 1h (later than --wait-timers PT1M)');
    expect(run.stdout).toContain(
      `once it is due, resume it with: thresher resume ${instanceId} --store sqlite:timers-park.db`,
    );
    expect(run.stdout).toContain(
      `or wait for it now: thresher resume ${instanceId} --wait-timers PT1H --store sqlite:timers-park.db`,
    );

    const json = await ws.thresher(['run', 'long-timer.bpmn', ...store, '--wait-timers', 'PT30M', '--json'], { clock });
    expect(json.code).toBe(ExitCode.Parked);
    expect(json.json<ParkedOutcome>()).toMatchObject({
      status: 'parked',
      userTasks: [],
      subscriptions: [],
      timers: [{ elementId: 'wait', dueAt, due: iso(dueAt) }],
      reason: 'it waits for timer wait due in 1h (later than --wait-timers PT30M)',
    });
  });

  it('should fire an overdue timer on resume', async () => {
    const clock = new TestClock();
    const store = ['--store', 'sqlite:timers-overdue.db'];
    const run = await ws.thresher(['run', 'short-timer.bpmn', '--wait-timers', 'PT0S', ...store, '--json'], { clock });
    expect(run.code).toBe(ExitCode.Parked);
    const { instanceId, timers } = run.json<ParkedOutcome>();
    expect(timers[0]!.dueAt).toBe(clock.now() + 100);

    // Not due yet: a resume that waits for no timer parks again.
    const early = await ws.thresher(['resume', instanceId, '--wait-timers', 'PT0S', ...store, '--json'], { clock });
    expect(early.code).toBe(ExitCode.Parked);

    clock.advance(100);
    const resume = await ws.thresher(['resume', instanceId, '--wait-timers', 'PT0S', ...store, '--json'], { clock });
    expect(resume.code).toBe(ExitCode.Ok);
    expect(resume.json()).toMatchObject({ restored: [instanceId], outcomes: [{ status: 'completed', instanceId }] });
  });
});

describe('send --ttl (messages buffered before anything waits)', () => {
  /** Buffers payment-received (amount=7, for an hour) and shipped (for a day) for key `key` in `store`. */
  async function buffer(store: string, key: string, options: RunOptions = {}): Promise<void> {
    const paid = ['send', 'payment-received', '--key', key, '--var', 'amount=7', '--ttl', 'PT1H', '--store', store];
    expect((await ws.thresher(paid, options)).code).toBe(ExitCode.Ok);
    const shipped = ['send', 'shipped', '--key', key, '--ttl', 'P1D', '--store', store];
    expect((await ws.thresher(shipped, options)).code).toBe(ExitCode.Ok);
  }

  it('should buffer a message nothing waits for, creating the store, and exit 0', async () => {
    const store = ['--store', 'sqlite:buffered-send.db'];
    const send = await ws.thresher([
      'send',
      'payment-received',
      '--key',
      'B-1',
      '--var',
      'amount=7',
      '--ttl',
      'PT1H',
      ...store,
    ]);
    expect(send.code).toBe(ExitCode.Ok);
    expect(send.stdout).toBe(
      'no instance waits for message payment-received with key B-1 yet; buffered for PT1H: the first instance to wait for it within that time takes it\n',
    );
    expect(send.stderr).toBe('');
    expect(existsSync(ws.path('buffered-send.db'))).toBe(true);

    const json = await ws.thresher(['send', 'shipped', '--key', 'B-1', '--ttl', 'P1D', ...store, '--json']);
    expect(json.code).toBe(ExitCode.Ok);
    expect(json.json()).toEqual({
      status: 'buffered',
      correlated: false,
      buffered: true,
      ttl: 'P1D',
      message: { name: 'shipped', correlationKey: 'B-1' },
    });
  });

  it('should give the buffered messages to the first instance that waits for them', async () => {
    const store = ['--store', 'sqlite:buffered-take.db'];
    await buffer('sqlite:buffered-take.db', 'B-1');

    const run = await ws.thresher(['run', events('messages.bpmn'), '--var', 'orderId=B-1', ...store, '--json']);
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.json<Completed>()).toMatchObject({
      status: 'completed',
      variables: { orderId: 'B-1', amount: 7 },
    });

    const second = await ws.thresher(['run', events('messages.bpmn'), '--var', 'orderId=B-1', ...store, '--json']);
    expect(second.code).toBe(ExitCode.Parked);
    expect(
      second
        .json<ParkedOutcome>()
        .subscriptions.map((entry) => entry.elementId)
        .sort(),
    ).toEqual(['await-payment', 'cancelled']);
  });

  it('should keep a buffered message for --ttl by the command’s clock, and no longer', async () => {
    const clock = new TestClock();
    const store = 'sqlite:buffered-ttl.db';
    await buffer(store, 'B-2', { clock });
    await buffer(store, 'B-3', { clock });
    const run = (orderId: string) =>
      ws.thresher(['run', events('messages.bpmn'), '--var', `orderId=${orderId}`, '--store', store, '--json'], {
        clock,
      });

    // A moment before the hour is up, payment-received is still there to take.
    clock.advance(HOUR - 1);
    const within = await run('B-2');
    expect(within.code).toBe(ExitCode.Ok);
    expect(within.json<Completed>().variables).toMatchObject({ orderId: 'B-2', amount: 7 });

    // Once it is up, the next instance finds no payment and waits for one.
    clock.advance(1);
    const after = await run('B-3');
    expect(after.code).toBe(ExitCode.Parked);
    expect(
      after
        .json<ParkedOutcome>()
        .subscriptions.map((entry) => entry.elementId)
        .sort(),
    ).toEqual(['await-payment', 'cancelled']);
  });

  it('should keep nothing without --ttl or with a zero one, and refuse a malformed one', async () => {
    const store = ['--store', 'sqlite:buffered-none.db'];
    for (const ttl of [[], ['--ttl', 'PT0S']]) {
      const send = await ws.thresher(['send', 'order-cancelled', '--key', 'B-9', ...ttl, ...store]);
      expect(send.code).toBe(ExitCode.Failed);
      expect(send.stderr).toContain('not kept (give --ttl DURATION to buffer it');
    }
    const usage = await ws.thresher(['send', 'm', '--ttl', '1h']);
    expect(usage.code).toBe(ExitCode.Usage);
    expect(usage.stderr).toMatch(/option --ttl: malformed duration "1h"/);
  });
});

describe('usage errors', () => {
  const usage = async (argv: string[], message: RegExp) => {
    const result = await ws.thresher(argv);
    expect(result.code).toBe(ExitCode.Usage);
    expect(result.stderr).toMatch(message);
  };

  it('should exit 2 on an unusable send or signal command line', async () => {
    await usage(['send'], /missing MESSAGE/);
    await usage(['send', 'm', '--key'], /option --key needs a value/);
    await usage(['send', 'm', '--var', 'novalue'], /expected NAME=VALUE/);
    await usage(['send', 'm', 'extra'], /unexpected argument "extra"/);
    await usage(['send', 'm', '--yes'], /unknown option --yes/);
    await usage(['send', ''], /the message name is empty/);
    await usage(['signal'], /missing NAME/);
    await usage(['signal', 's', '--key', 'k'], /unknown option --key/);
    await usage(['signal', 's', '--store', 'mysql://x'], /unknown store/);
  });

  it('should exit 2 on a malformed --wait-timers', async () => {
    await usage(['run', 'short-timer.bpmn', '--wait-timers', '5m'], /option --wait-timers: malformed duration "5m"/);
    await usage(['resume', 'x', '--wait-timers', 'P1M'], /years and months are not supported/);
    await usage(['send', 'm', '--wait-timers', ''], /--wait-timers/);
    await usage(['signal', 's', '--wait-timers', 'PT'], /--wait-timers/);
  });

  it('should describe send and signal in help', async () => {
    const help = await ws.thresher(['--help']);
    expect(help.stdout).toMatch(/^ {2}send\s/m);
    expect(help.stdout).toMatch(/^ {2}signal\s/m);
    const send = await ws.thresher(['help', 'send']);
    expect(send.stdout).toMatch(/^Usage: thresher send MESSAGE \[--key K\]/);
    expect(send.stdout).toContain('--wait-timers DURATION');
    expect(send.stdout).toContain('--ttl DURATION');
    expect((await ws.thresher(['signal', '--help'])).stdout).toMatch(/^Usage: thresher signal NAME/);
  });
});

describe('durations in messages', () => {
  it('should write ISO 8601 durations --wait-timers reads back', () => {
    expect(isoDuration(0)).toBe('PT0S');
    expect(isoDuration(100)).toBe('PT0.1S');
    expect(isoDuration(60_000)).toBe('PT1M');
    expect(isoDuration(86_400_000)).toBe('P1D');
    expect(isoDuration(93_784_000)).toBe('P1DT2H3M4S');
  });

  it('should write durations for people with their two largest units', () => {
    expect(humanDuration(100)).toBe('0.1s');
    expect(humanDuration(42_000)).toBe('42s');
    expect(humanDuration(3_600_000)).toBe('1h');
    expect(humanDuration(3_599_000)).toBe('59m 59s');
    expect(humanDuration(86_400_000 + 7_200_000 + 60_000)).toBe('1d 2h');
  });
});

describe('processes started by their events', () => {
  it('should drive the instance a timer start event scheduled, parked until it is due', async () => {
    const clock = new TestClock();
    const run = await ws.thresher(['run', events('timer-start.bpmn'), '--store', 'memory:', '--json'], { clock });
    expect(run.code).toBe(ExitCode.Parked);
    const outcome = run.json<ParkedOutcome>();
    expect(outcome.instanceId).toMatch(/^timer-start:[0-9a-f]{16}:at-night:0$/);
    // PT2H from the deployment, on the command's clock.
    expect(outcome.timers).toEqual([
      { elementId: 'at-night', dueAt: clock.now() + 2 * HOUR, due: iso(clock.now() + 2 * HOUR) },
    ]);
  });

  it('should refuse to run a process that starts by a message or signal, naming the commands that start it', async () => {
    const run = await ws.thresher(['run', events('event-starts.bpmn'), '--store', 'memory:']);
    expect(run.code).toBe(ExitCode.Usage);
    expect(run.stderr).toContain('thresher send order-placed or thresher signal alarm');
  });
});
