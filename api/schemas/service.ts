/** Service instances (spec 2.12) and their actions (spec 3.4). */
import { z } from 'zod';
import { singleLineText } from './common.js';

export const ServiceRecord = z.object({
  type: z.string(),
  name: z.string(),
  status: z.enum(['running', 'stopped', 'error', 'starting', 'stopping']),
  error: z.string().nullable().describe('Why the instance is in error'),
  controllable: z.boolean(),
  state_since: z.string(),
  actions: z.array(z.enum(['start', 'stop', 'restart'])).describe('The actions possible now'),
});
export type ServiceRecord = z.infer<typeof ServiceRecord>;

export const ServiceList = z.array(ServiceRecord);

export const ServiceActionParams = z.object({
  type: singleLineText(64),
  name: singleLineText(64),
  action: singleLineText(32).describe('start, stop or restart'),
});

/** The API server lists itself; it cannot be started or stopped through itself. */
export const apiServerType = 'api-server';
export const apiServerName = 'api';
