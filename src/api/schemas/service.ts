/** Service instances (spec 2.12) and their actions (spec 3.4). */
import { z } from 'zod';

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
  type: z.string().max(64),
  name: z.string().max(64),
  action: z.string().max(32).describe('start, stop or restart'),
});

/** The API server lists itself; it cannot be started or stopped through itself. */
export const apiServerType = 'api-server';
export const apiServerName = 'api';
