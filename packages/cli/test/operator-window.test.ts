import { describe, expect, it } from 'vitest';
import {
  briefingWindow,
  choiceWindow,
  colourWanted,
  countdown,
  cut,
  drawWindow,
  windowWidth,
  wrap,
} from '../src/operator/window.js';
import { question, touchpoint } from './operator-fixtures.js';

const plain = { width: 80, bold: false };
const rows = (text: string): string[] => text.trimEnd().split('\n');

describe('windowWidth', () => {
  it('should clamp a 40-column terminal to 60 columns', () => {
    expect(windowWidth(40)).toBe(60);
  });

  it('should clamp a 200-column terminal to 100 columns', () => {
    expect(windowWidth(200)).toBe(100);
  });

  it('should use the terminal width between the bounds', () => {
    expect(windowWidth(72)).toBe(72);
  });

  it('should draw 80 columns when the width is unknown or zero (a pty nobody sized)', () => {
    expect(windowWidth(undefined)).toBe(80);
    expect(windowWidth(0)).toBe(80);
  });
});

describe('colourWanted', () => {
  it('should be bold on a terminal', () => {
    expect(colourWanted({}, true)).toBe(true);
  });

  it('should not be bold off a terminal unless FORCE_COLOR is set', () => {
    expect(colourWanted({}, false)).toBe(false);
    expect(colourWanted({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colourWanted({ FORCE_COLOR: '0' }, true)).toBe(false);
  });

  it('should never be bold with NO_COLOR, whatever its value, even with FORCE_COLOR', () => {
    expect(colourWanted({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: '' }, true)).toBe(false);
    expect(colourWanted({ NO_COLOR: 'yes', FORCE_COLOR: '1' }, true)).toBe(false);
  });
});

describe('cut and wrap', () => {
  it('should keep a row that fits and cut one that does not with an ASCII ellipsis', () => {
    expect(cut('abcdef', 6)).toBe('abcdef');
    expect(cut('abcdefg', 6)).toBe('abc...');
  });

  it('should wrap a paragraph at word boundaries under its indent', () => {
    expect(wrap('one two three four', '  ', 11)).toEqual(['  one two', '  three', '  four']);
  });

  it('should cut a word longer than a row', () => {
    expect(wrap('abcdefghijkl', '  ', 8)).toEqual(['  abc...']);
  });
});

describe('countdown', () => {
  it('should show whole minutes with their seconds, as the briefing does', () => {
    expect(countdown(60_000)).toBe('1m 00s');
    expect(countdown(292_400)).toBe('4m 52s');
  });

  it('should show seconds alone below a minute and hours or days above', () => {
    expect(countdown(45_900)).toBe('45s');
    expect(countdown(2 * 3_600_000 + 5 * 60_000)).toBe('2h 05m');
    expect(countdown(3 * 86_400_000 + 4 * 3_600_000)).toBe('3d 04h');
    expect(countdown(-5)).toBe('0s');
  });
});

describe('drawWindow', () => {
  it('should frame the title with = rules and a - divider at the given width, in ASCII', () => {
    const lines = rows(drawWindow('TITLE', undefined, ['  body'], plain));
    expect(lines).toEqual(['='.repeat(80), '  TITLE', '-'.repeat(80), '  body', '='.repeat(80)]);
  });

  it('should put the right part of the title flush right, two columns short of the rule', () => {
    const head = rows(drawWindow('TITLE', '4m 52s left', [], plain))[1]!;
    expect(head).toHaveLength(78);
    expect(head.endsWith('4m 52s left')).toBe(true);
  });

  it('should cut a body row wider than the window with ...', () => {
    const lines = rows(drawWindow('T', undefined, [`  ${'x'.repeat(100)}`], { width: 60, bold: false }));
    expect(lines[3]).toHaveLength(60);
    expect(lines[3]!.endsWith('...')).toBe(true);
  });

  it('should make the title row bold only when asked to', () => {
    expect(drawWindow('T', undefined, [], { width: 60, bold: true })).toContain('\x1b[1m  T\x1b[0m');
    expect(drawWindow('T', undefined, [], plain)).not.toContain('\x1b[');
  });
});

describe('briefingWindow', () => {
  it('should list every touchpoint with its number, element, direction and who acts', () => {
    // given an inbound wait with a timeout and an internal choice on some paths that may repeat
    const text = briefingWindow(
      [
        touchpoint({
          index: 0,
          elementId: 'await_push',
          direction: 'inbound',
          kind: 'wait',
          via: 'message',
          label: 'Push the certificate',
          description: 'Push the certificate to the Test Suite',
          timeoutS: 60,
        }),
        touchpoint({
          index: 1,
          elementId: 'pick_offer',
          label: 'Choose the offer',
          description: 'Pick the offer',
          timeoutS: 300,
          conditional: true,
          repeated: true,
        }),
      ],
      plain,
    );
    // then
    expect(rows(text)).toEqual([
      '='.repeat(80),
      '  THIS RUN NEEDS YOU AT 2 TOUCHPOINTS',
      '-'.repeat(80),
      '  Push the certificate',
      '    1  await_push  inbound | your system calls us',
      '       1m 00s to answer | Push the certificate to the Test Suite',
      '  Choose the offer',
      '    2  pick_offer  internal | you choose',
      '       5m 00s to answer | only on some paths | may repeat | Pick the offer',
      '='.repeat(80),
    ]);
  });

  it('should say TOUCHPOINT in the singular for one, and name an outbound one as we call your system', () => {
    const text = briefingWindow([touchpoint({ direction: 'outbound', elementId: 'charge', label: null })], plain);
    expect(text).toContain('THIS RUN NEEDS YOU AT 1 TOUCHPOINT\n');
    expect(text).toContain('  charge\n    1  charge  outbound | we call your system\n');
  });

  it('should wrap a long description under the entry, within the width', () => {
    const text = briefingWindow([touchpoint({ description: 'word '.repeat(40) })], { width: 60, bold: false });
    const detail = rows(text).filter((row) => row.startsWith('       word'));
    expect(detail.length).toBeGreaterThan(1);
    for (const row of rows(text)) expect(row.length).toBeLessThanOrEqual(60);
  });

  it('should say which touchpoint waits now in a live briefing', () => {
    expect(briefingWindow([touchpoint({ state: 'now' })], plain)).toContain('       waiting now\n');
  });
});

describe('choiceWindow', () => {
  it('should show which touchpoint, the time left, the numbered options and where they come from', () => {
    // given a question whose boundary timer is due in 4m 52s
    const text = choiceWindow(
      question({ touchpoint: touchpoint({ index: 1, state: 'now' }), dueAt: 1_000_000 + 292_000 }),
      { total: 2, now: 1_000_000 },
      plain,
    );
    // then
    const lines = rows(text);
    expect(lines[1]).toMatch(/^ {2}TOUCHPOINT 2 of 2 | YOU CHOOSE +4m 52s left$/);
    expect(lines.slice(3)).toEqual([
      '  Approve the order',
      '  approve in instance i-1',
      '',
      '     1  Approve',
      '     2  Reject',
      '',
      '  The options come from the conditions after the task.',
      '='.repeat(80),
    ]);
  });

  it('should show the task as its listeners left it, and why its last completion was denied', () => {
    const base = question().task;
    const text = choiceWindow(
      question({
        task: {
          ...base,
          assignee: 'kim',
          priority: 90,
          dueDate: '2027-01-15T17:00:00Z',
          denied: { event: 'completing', reason: 'no decision given' },
        },
      }),
      { now: 0 },
      plain,
    );
    expect(rows(text).slice(3, 7)).toEqual([
      '  Approve the order',
      '  approve in instance i-1',
      '  assignee kim · priority 90 · due 2027-01-15T17:00:00Z',
      '  its last completing was denied by a task listener: no decision given',
    ]);
  });

  it("should say when the options come from the task's form", () => {
    expect(choiceWindow(question({ source: 'form' }), { now: 0 }, plain)).toContain("from the task's form");
  });

  it('should ask for variables as JSON when the task has no options', () => {
    const text = choiceWindow(question({ options: [], source: 'variables' }), { now: 0 }, plain);
    expect(text).toContain('No options: enter the variables to complete the task with, as one JSON object.');
    expect(text).not.toMatch(/^ {5}1 /m);
  });

  it('should name a user task that is no touchpoint by its name', () => {
    const text = choiceWindow(question({ touchpoint: null }), { now: 0, name: 'Approve order' }, plain);
    expect(text).toContain('  USER TASK | YOU CHOOSE\n');
    expect(text).toContain('  Approve order\n');
  });

  it('should cut an option label that does not fit', () => {
    const long = question({ options: [{ id: 'a', label: 'x'.repeat(200), variables: {} }] });
    const option = rows(choiceWindow(long, { now: 0 }, { width: 60, bold: false })).find((row) =>
      row.startsWith('     1'),
    );
    expect(option).toBe(`     1  ${'x'.repeat(60 - 8 - 3)}...`);
  });
});
