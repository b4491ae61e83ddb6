import type { LiveTouchpoint, OperatorQuestion } from '@thresher/engine';

/** Touchpoints and questions as the engine hands them to an operator, for the operator's unit tests. */

/** A touchpoint as the engine lists it, `ahead`, with what a test changes. */
export function touchpoint(overrides: Partial<LiveTouchpoint> = {}): LiveTouchpoint {
  return {
    index: 0,
    processId: 'order',
    position: '/approve',
    elementId: 'approve',
    elementType: 'userTask',
    direction: 'internal',
    kind: 'select',
    via: null,
    label: 'Approve the order',
    description: null,
    timeoutS: null,
    conditional: false,
    repeated: false,
    skipped: false,
    state: 'ahead',
    attempts: 0,
    pauses: 0,
    revision: 0,
    askedAt: null,
    answeredAt: null,
    responseS: null,
    ...overrides,
  } as LiveTouchpoint;
}

/** The user task `approve` of instance `i-1`, put as a choice between two gateway options. */
export function question(overrides: Partial<OperatorQuestion> = {}): OperatorQuestion {
  return {
    instanceId: 'i-1',
    taskId: 'i-1/u1',
    elementId: 'approve',
    touchpoint: touchpoint({ state: 'now' }),
    options: [
      { id: 'yes', label: 'Approve', variables: { approved: true } },
      { id: 'no', label: 'Reject', variables: { approved: false } },
    ],
    source: 'gateway',
    dueAt: null,
    task: {
      name: 'Approve order',
      assignee: null,
      candidateGroups: [],
      candidateUsers: [],
      dueDate: null,
      followUpDate: null,
      priority: 50,
      denied: null,
    },
    ...overrides,
  };
}
