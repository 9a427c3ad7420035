/** Service instances (docs/api/services.md) and their actions (docs/api/lifecycles.md#service-instance-status). */
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
  restart_needed: z
    .boolean()
    .describe('Running with a configuration saved since it started: a restart applies the change'),
  desired: z
    .enum(['running', 'stopped'])
    .optional()
    .describe('What every process follows: the last service action, or enabled when none was taken since'),
  processes: z
    .array(
      z.object({
        node: z.number().int().describe('The process (its node number in the cluster)'),
        status: z.enum(['running', 'stopped', 'error', 'starting', 'stopping']),
        error: z.string().nullable(),
        state_since: z.string(),
        restart_needed: z.boolean(),
      }),
    )
    .optional()
    .describe('The state each live process of the cluster reports for the instance'),
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
