/** GET /stats (spec 2.13). */
import { z } from 'zod';

export const StatsRecord = z.object({
  messages_last_24h: z.number().int(),
  sent_last_24h: z.number().int().describe('Outbound messages'),
  received_last_24h: z.number().int().describe('Inbound messages'),
  messages_last_7d: z.number().int(),
  in_flight_messages: z.number().int().describe('Received, InProgress, Retrying or AwaitingReceipt'),
  failed_last_24h: z.number().int().describe('Messages that reached Error or Stalled'),
  system_status: z.enum(['Healthy', 'Degraded']),
  plugin_status: z.record(z.string(), z.enum(['Enabled', 'Running', 'Stopped', 'Error'])),
});
export type StatsRecord = z.infer<typeof StatsRecord>;
