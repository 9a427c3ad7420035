/** GET /stats (docs/api/stats.md). */
import { z } from 'zod';
import { alertHeadFields } from '../../protocol/notify-protocol.js';

export const StatsRecord = z.object({
  messages_last_24h: z.number().int(),
  sent_last_24h: z.number().int().describe('Outbound messages'),
  received_last_24h: z.number().int().describe('Inbound messages'),
  messages_last_7d: z.number().int(),
  in_flight_messages: z.number().int().describe('Received, InProgress, Retrying or AwaitingReceipt'),
  retrying_messages: z.number().int().describe('Of those in flight, the messages in Retrying'),
  failed_last_24h: z.number().int().describe('Messages that reached Error or Stalled'),
  system_status: z.enum(['Healthy', 'Degraded']),
  open_alerts: z
    .array(
      z.object({
        ...alertHeadFields,
        link: z.string().describe('Absolute link (PUBLIC_URL) to the web UI page where it is fixed'),
        raised_at: z.string(),
      }),
    )
    .describe(
      'Conditions raised and not ended (a partner unreachable, an instance failed, the payload store failing); the dashboard is not Healthy while any stands',
    ),
  plugin_status: z.record(z.string(), z.enum(['Enabled', 'Running', 'Stopped', 'Error'])),
});
export type StatsRecord = z.infer<typeof StatsRecord>;
