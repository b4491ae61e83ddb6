import { z } from 'zod';
import { readAs } from './read.js';

/** `PUT /clock`: the epoch ms to pin the clock at. */
export const ClockPinRequest = z.strictObject({
  timestamp: z.int().min(0),
});

export function readClockPin(body: unknown): z.output<typeof ClockPinRequest> {
  return readAs(ClockPinRequest, body ?? {}, 'the clock pin request');
}
