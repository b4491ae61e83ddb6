import type { StepEvent } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { compactEvent, publishedEvent, typeOf } from '../src/runtime/document/step-events.js';

const instanceId = '0193a000-0000-7000-8000-000000000001';

describe('step events as checkpoints keep them', () => {
  it('should keep a track event as its relative id alone and publish it back whole, its activation with it', () => {
    for (const move of ['entered', 'left'] as const) {
      const event: StepEvent = {
        id: `:/each[2]:review:1:t7:${move}`,
        type: `track.${move}`,
        trackId: 't7',
        elementId: 'review',
        elementInstanceId: '/each[2]:review:1',
      };

      const kept = compactEvent(event);

      expect(kept).toBe(event.id);
      expect(typeOf(kept!)).toBe(`track.${move}`);
      expect(publishedEvent(kept!, instanceId, 5)).toEqual(publishedEvent(event, instanceId, 5));
      expect(publishedEvent(kept!, instanceId, 5)).toEqual({
        id: `${instanceId}:/each[2]:review:1:t7:${move}`,
        type: `track.${move}`,
        trackId: 't7',
        elementId: 'review',
        elementInstanceId: '/each[2]:review:1',
        instanceId,
        at: 5,
      });
    }
    const another = { id: ':/:review:1:t7:entered', type: 'track.entered', trackId: 't7', elementId: 'review' };
    expect(compactEvent({ ...another, elementInstanceId: '/:review:2' })).toBeUndefined();
  });

  it('should keep a track event whose id does not give its fields back, and every other event, whole', () => {
    const colon: StepEvent = { id: ':/:a:b:0:t1:entered', type: 'track.entered', trackId: 't1', elementId: 'a:b' };
    const other: StepEvent = { id: ':userTask.created:u5', type: 'userTask.created', taskId: 'u5', elementId: 'u' };

    expect(compactEvent(colon)).toBeUndefined();
    expect(compactEvent(other)).toBeUndefined();
    expect(publishedEvent({ ...other, at: 9 }, instanceId, 5)).toMatchObject({
      at: 9,
      id: `${instanceId}:userTask.created:u5`,
    });
  });
});
