// Scenario 6 — dehydration: 100,000 parked instances released from memory, and the engine's RSS. Thresher
// does not dehydrate yet (every running instance it has loaded stays in memory), so there is nothing to
// measure; the row says so instead of printing a figure that would mean something else.
export const id = '6';
export const title = 'Dehydration';

export const tasks = {};

export async function run() {
  return [
    {
      scenario: title,
      measure: '100,000 parked instances: engine RSS',
      thresher: { text: 'not measurable yet (dehydration is not built)' },
      status: 'n/a',
    },
  ];
}
