import { describe, expect, it } from 'vitest';
import { completeSpec, parseCompleteArgs } from '../src/commands/complete.js';
import { inspectSpec, parseInspectArgs } from '../src/commands/inspect.js';
import { instancesSpec, parseInstancesArgs } from '../src/commands/instances.js';
import { parseResumeArgs, resumeSpec } from '../src/commands/resume.js';
import { parseRetryArgs, retrySpec } from '../src/commands/retry.js';
import { parseRunArgs, runSpec } from '../src/commands/run.js';
import { parseSendArgs, sendSpec } from '../src/commands/send.js';
import { parseShowArgs, showSpec } from '../src/commands/show.js';
import { parseSignalArgs, signalSpec } from '../src/commands/signal.js';
import { parseWaitTimers } from '../src/drive-options.js';
import { UsageError } from '../src/errors.js';

/** Expects a UsageError whose message matches and which carries the command's usage line. */
function refuses(parse: () => unknown, message: RegExp, usage: string): void {
  let error: unknown;
  try {
    parse();
  } catch (thrown) {
    error = thrown;
  }
  expect(error).toBeInstanceOf(UsageError);
  expect((error as UsageError).message).toMatch(message);
  expect((error as UsageError).usage).toBe(usage);
}

describe('parseRunArgs', () => {
  const usage = runSpec.usage;

  it('should read the file and every flag', () => {
    expect(
      parseRunArgs([
        'order.bpmn',
        '--process',
        'order',
        '--var',
        'total=120',
        '--var=express=true',
        '--business-key',
        'A-1',
        '--handlers',
        'h.mjs',
        '--allow-missing-handlers',
        '--store',
        'memory:',
        '-y',
        '--choose',
        'approve=yes',
        '--otel',
        '--json',
      ]),
    ).toEqual({
      help: false,
      file: 'order.bpmn',
      files: ['order.bpmn'],
      process: 'order',
      variables: { total: 120, express: true },
      businessKey: 'A-1',
      handlers: 'h.mjs',
      store: 'memory:',
      yes: true,
      choose: new Map([['approve', 'yes']]),
      waitTimers: 60_000,
      json: true,
      allowMissingHandlers: true,
      otel: true,
    });
  });

  it('should default every flag', () => {
    expect(parseRunArgs(['order.bpmn'])).toEqual({
      help: false,
      file: 'order.bpmn',
      files: ['order.bpmn'],
      process: undefined,
      variables: {},
      businessKey: undefined,
      handlers: undefined,
      store: undefined,
      yes: false,
      choose: new Map(),
      waitTimers: 60_000,
      json: false,
      allowMissingHandlers: false,
      otel: false,
    });
  });

  it('should answer --help even without the file', () => {
    expect(parseRunArgs(['--help'])).toEqual({ help: true });
    expect(parseRunArgs(['-h'])).toEqual({ help: true });
  });

  it('should take a positional after "--" literally', () => {
    expect(parseRunArgs(['--', '--odd.bpmn'])).toMatchObject({ file: '--odd.bpmn' });
  });

  it('should refuse an unknown flag, naming it', () => {
    refuses(
      () => parseRunArgs(['order.bpmn', '--frobnicate']),
      /unknown option --frobnicate for "thresher run"/,
      usage,
    );
  });

  it('should refuse an unknown short flag, naming it', () => {
    refuses(() => parseRunArgs(['order.bpmn', '-q']), /unknown option -q/, usage);
  });

  it('should refuse a string flag without its value', () => {
    refuses(() => parseRunArgs(['order.bpmn', '--process']), /option --process needs a value: --process ID/, usage);
  });

  it('should refuse a string flag followed by another flag', () => {
    refuses(
      () => parseRunArgs(['order.bpmn', '--store', '--json']),
      /option --store needs a value but got the option --json; write --store=--json/,
      usage,
    );
  });

  it('should refuse a value on a boolean flag', () => {
    refuses(() => parseRunArgs(['order.bpmn', '--json=yes']), /option --json takes no value/, usage);
  });

  it('should refuse a single-valued flag given twice', () => {
    refuses(
      () => parseRunArgs(['order.bpmn', '--process', 'a', '--process', 'b']),
      /option --process given twice/,
      usage,
    );
  });

  it('should refuse a missing file', () => {
    refuses(() => parseRunArgs([]), /missing FILE/, usage);
  });

  it('should take the files after the first as the models it needs, in order', () => {
    expect(parseRunArgs(['a.bpmn', 'b.bpmn', 'rules.dmn'])).toMatchObject({
      file: 'a.bpmn',
      files: ['a.bpmn', 'b.bpmn', 'rules.dmn'],
    });
  });

  it('should refuse a --var without "=", naming it', () => {
    refuses(() => parseRunArgs(['a.bpmn', '--var', 'total']), /--var "total": expected NAME=VALUE/, usage);
  });

  it('should refuse a --var without a name', () => {
    refuses(
      () => parseRunArgs(['a.bpmn', '--var', '=1']),
      /--var "=1": the variable name before "=" is missing/,
      usage,
    );
  });
});

describe('parseInspectArgs', () => {
  it('should read the file and --json', () => {
    expect(parseInspectArgs(['a.bpmn', '--json'])).toEqual({
      help: false,
      file: 'a.bpmn',
      json: true,
      touchpoints: false,
    });
  });

  it('should refuse run-only flags', () => {
    refuses(
      () => parseInspectArgs(['a.bpmn', '--store', 'x.db']),
      /unknown option --store for "thresher inspect"/,
      inspectSpec.usage,
    );
  });
});

describe('parseInstancesArgs', () => {
  const usage = instancesSpec.usage;

  it('should read the filters', () => {
    expect(parseInstancesArgs(['--roots', '--status', 'running'])).toEqual({
      help: false,
      roots: true,
      children: false,
      status: 'running',
      store: undefined,
      json: false,
    });
  });

  it('should refuse --roots with --children', () => {
    refuses(() => parseInstancesArgs(['--roots', '--children']), /--roots and --children exclude each other/, usage);
  });

  it('should refuse an unknown status, naming the choices', () => {
    refuses(
      () => parseInstancesArgs(['--status', 'paused']),
      /option --status "paused": expected one of running, completed, terminated/,
      usage,
    );
  });

  it('should refuse a positional argument', () => {
    refuses(() => parseInstancesArgs(['abc']), /unexpected argument "abc"/, usage);
  });
});

describe('parseShowArgs', () => {
  it('should read the id and --history', () => {
    expect(parseShowArgs(['id-1', '--history'])).toEqual({
      help: false,
      id: 'id-1',
      history: true,
      store: undefined,
      json: false,
    });
  });

  it('should refuse a missing id', () => {
    refuses(() => parseShowArgs([]), /missing ID/, showSpec.usage);
  });
});

describe('parseCompleteArgs', () => {
  const usage = completeSpec.usage;

  it('should read the id, the task and the variables', () => {
    expect(parseCompleteArgs(['id-1', 'approve', '--var', 'approved=true'])).toEqual({
      help: false,
      id: 'id-1',
      task: 'approve',
      variables: { approved: true },
      handlers: undefined,
      store: undefined,
      waitTimers: 60_000,
      json: false,
    });
  });

  it('should refuse a missing task', () => {
    refuses(() => parseCompleteArgs(['id-1']), /missing TASK/, usage);
  });

  it('should refuse --yes, which only run, resume and retry take', () => {
    refuses(() => parseCompleteArgs(['id-1', 'approve', '--yes']), /unknown option --yes/, usage);
  });
});

describe('parseResumeArgs', () => {
  const usage = resumeSpec.usage;

  it('should read one id', () => {
    expect(parseResumeArgs(['id-1'])).toMatchObject({ help: false, id: 'id-1', yes: false });
  });

  it('should read --all', () => {
    expect(parseResumeArgs(['--all', '--yes'])).toMatchObject({ help: false, id: undefined, yes: true });
  });

  it('should refuse neither an id nor --all', () => {
    refuses(() => parseResumeArgs([]), /missing ID \(or --all\)/, usage);
  });

  it('should refuse both an id and --all', () => {
    refuses(() => parseResumeArgs(['id-1', '--all']), /give an instance ID or --all, not both/, usage);
  });
});

describe('parseRetryArgs', () => {
  it('should read the id and an optional incident', () => {
    expect(parseRetryArgs(['id-1'])).toMatchObject({ id: 'id-1', incident: undefined });
    expect(parseRetryArgs(['id-1', 'i3'])).toMatchObject({ id: 'id-1', incident: 'i3' });
  });

  it('should refuse a missing id', () => {
    refuses(() => parseRetryArgs([]), /missing ID/, retrySpec.usage);
  });
});

describe('parseSendArgs', () => {
  const usage = sendSpec.usage;

  it('should read the message, the key, the variables and the message id', () => {
    expect(
      parseSendArgs(['paid', '--key', 'A-1', '--var', 'amount=5', '--message-id', 'm-1', '--wait-timers', 'PT5S']),
    ).toEqual({
      help: false,
      message: 'paid',
      key: 'A-1',
      variables: { amount: 5 },
      messageId: 'm-1',
      ttl: undefined,
      handlers: undefined,
      store: undefined,
      waitTimers: 5_000,
      json: false,
    });
  });

  it('should leave the key out when not given', () => {
    expect(parseSendArgs(['paid'])).toMatchObject({ key: undefined, variables: {}, waitTimers: 60_000 });
  });

  it('should read --ttl as an ISO 8601 duration, keeping the text, and refuse a malformed one', () => {
    expect(parseSendArgs(['paid', '--ttl', 'PT1H'])).toMatchObject({ ttl: { text: 'PT1H', ms: 3_600_000 } });
    expect(parseSendArgs(['paid', '--ttl', 'P1DT0.5S'])).toMatchObject({ ttl: { text: 'P1DT0.5S', ms: 86_400_500 } });
    expect(parseSendArgs(['paid'])).toMatchObject({ ttl: undefined });
    refuses(() => parseSendArgs(['paid', '--ttl', '1h']), /option --ttl: malformed duration "1h"/, usage);
    refuses(() => parseSendArgs(['paid', '--ttl', 'P1M']), /option --ttl: .*years and months/, usage);
    refuses(() => parseSendArgs(['paid', '--ttl']), /option --ttl needs a value/, usage);
  });

  it('should refuse a missing or empty message and --yes', () => {
    refuses(() => parseSendArgs([]), /missing MESSAGE/, usage);
    refuses(() => parseSendArgs(['  ']), /the message name is empty/, usage);
    refuses(() => parseSendArgs(['paid', '--yes']), /unknown option --yes/, usage);
  });
});

describe('parseSignalArgs', () => {
  it('should read the name and the variables', () => {
    expect(parseSignalArgs(['open', '--var', 'by=ops', '--json'])).toEqual({
      help: false,
      signal: 'open',
      variables: { by: 'ops' },
      handlers: undefined,
      store: undefined,
      waitTimers: 60_000,
      json: true,
    });
  });

  it('should refuse a missing name and --key', () => {
    refuses(() => parseSignalArgs([]), /missing NAME/, signalSpec.usage);
    refuses(() => parseSignalArgs(['open', '--key', 'k']), /unknown option --key/, signalSpec.usage);
  });
});

describe('parseWaitTimers', () => {
  it('should read ISO 8601 durations as BPMN timers do, PT1M by default', () => {
    expect(parseWaitTimers(undefined, 'u')).toBe(60_000);
    expect(parseWaitTimers('PT0S', 'u')).toBe(0);
    expect(parseWaitTimers('PT0.5S', 'u')).toBe(500);
    expect(parseWaitTimers('P1DT2H', 'u')).toBe(93_600_000);
  });

  it('should refuse what is not a duration, saying why', () => {
    refuses(() => parseWaitTimers('60', 'u'), /--wait-timers: malformed duration "60": .*starts with P/, 'u');
    refuses(() => parseWaitTimers('P1M', 'u'), /years and months/, 'u');
    refuses(() => parseRetryArgs(['id', '--wait-timers', 'soon']), /--wait-timers/, retrySpec.usage);
  });
});
