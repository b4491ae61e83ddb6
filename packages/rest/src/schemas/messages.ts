/** The bodies of message publication and correlation and of signal broadcast, written to the 8.8 spec. */
import { z } from 'zod';
import { readAs } from './read.js';

const variables = z.record(z.string(), z.unknown()).nullish();

const Publication = z.strictObject({
  name: z.string().min(1),
  correlationKey: z.string().nullish(),
  timeToLive: z.int().min(0).nullish(),
  messageId: z.string().nullish(),
  variables,
  tenantId: z.string().optional(),
});

export function readPublication(body: unknown): z.output<typeof Publication> {
  return readAs(Publication, body, 'the message publication');
}

const Correlation = z.strictObject({
  name: z.string().min(1),
  correlationKey: z.string().nullish(),
  variables,
  tenantId: z.string().optional(),
});

export function readCorrelation(body: unknown): z.output<typeof Correlation> {
  return readAs(Correlation, body, 'the message correlation');
}

const Broadcast = z.strictObject({ signalName: z.string().min(1), variables, tenantId: z.string().optional() });

export function readBroadcast(body: unknown): z.output<typeof Broadcast> {
  return readAs(Broadcast, body, 'the signal broadcast');
}
