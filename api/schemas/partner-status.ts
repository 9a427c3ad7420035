/**
 * The partner list with each partner's standing (docs/api/parties.md, GET /partner-status): what
 * an operator looks at first, the last message each way, whether the partner can be reached, and
 * when its certificates run out.
 */
import { z } from 'zod';
import { listSchema, nullableTimestamp, pagingQuery, singleLineText, timestamp } from './common.js';

/** Days before a certificate's end from which the list flags it. */
export const expiryWarningDays = 30;

const lastMessage = z
  .object({
    message_id: z.string().describe('The message'),
    status: z.string().describe('Its status (docs/message-status.md)'),
    at: timestamp.describe('When it was accepted'),
  })
  .nullable()
  .describe('The newest message this way, or null for none');

export const reachabilityStates = ['reachable', 'unreachable', 'untried'] as const;

const Reachability = z.object({
  state: z
    .enum(reachabilityStates)
    .describe(
      'unreachable while a partner_unreachable alert stands or the last attempt to send failed; reachable when the last attempt succeeded; untried when nothing was tried yet',
    ),
  at: nullableTimestamp.describe('When the last attempt or alert was'),
  target: z.string().nullable().describe('The instance that made the last attempt'),
  detail: z.string().nullable().describe('The last attempt’s error, or the standing alert’s summary'),
  alert_standing: z.boolean().describe('Whether a partner_unreachable alert for the partner stands'),
});

export const expiryStates = ['ok', 'expiring', 'expired'] as const;

const SoonestCertificate = z
  .object({
    id: z.number().int(),
    common_name: z.string(),
    not_after: timestamp,
    days_left: z.number().int().describe('Whole days until not_after; negative once it passed'),
    expiry: z
      .enum(expiryStates)
      .describe(`expiring within ${expiryWarningDays} days, expired once not_after passed, else ok`),
  })
  .nullable()
  .describe('The partner’s certificate (of its AS2 profile) that expires first, or null for none');

export const PartnerStatus = z.object({
  id: z.number().int(),
  name: z.string(),
  display_name: z.string(),
  last_inbound: lastMessage,
  last_outbound: lastMessage,
  reachability: Reachability,
  certificate: SoonestCertificate,
  certificate_count: z.number().int().describe('Certificates the partner’s AS2 profile names'),
});
export type PartnerStatus = z.infer<typeof PartnerStatus>;

export const PartnerStatusQuery = z.object({
  ...pagingQuery(20),
  q: singleLineText(200).optional().describe('Text in name or display name, case-insensitive'),
});

export const partnerStatusList = listSchema('partners', PartnerStatus);
