/**
 * Certificate exchanges with AS2 partners (CEM, docs/partner-setup.md "Renewing certificates
 * with CEM"): the requests pier sends and receives, their answers and the partners' policies.
 */
import { z } from 'zod';
import { cemUsages } from '../../protocol/cem-protocol.js';
import { cemStates } from '../../storage/repositories/cem-exchanges.js';
import { listSchema, pagingQuery, recordName, singleLineText } from './common.js';

export const cemPolicies = ['manual', 'accept', 'reject'] as const;
const id = z.number().int().min(1).max(2147483647);

export const CemExchangeCreate = z.strictObject({
  partner_id: id.describe('The AS2 partner asked to take the certificate'),
  certificate_id: id.describe('Our new certificate, stored with its private key'),
  usages: z
    .array(z.enum(cemUsages))
    .min(1)
    .max(3)
    .refine((u) => new Set(u).size === u.length, 'Name each usage once')
    .default(['signature', 'encryption'])
    .describe(
      'What the partner is to use the certificate for: signature, encryption, tls. Default signature and encryption',
    ),
  respond_by: z.iso
    .datetime({ offset: true, message: 'Must be an RFC 3339 date and time' })
    .describe('When the partner must have answered; pier switches on it. Must be in the future'),
  organization: recordName
    .optional()
    .describe('The organization sending; may be left out when only one has an AS2 profile'),
  sender: recordName
    .optional()
    .describe('The AS2 sender instance; may be left out when the routes name one, or only one exists'),
});

export const CemAnswer = z.strictObject({
  decision: z.enum(['accept', 'reject']),
  reason: singleLineText(1024).optional().describe('Why a rejection, sent to the partner'),
  sender: recordName.optional().describe('The AS2 sender the response goes through, as for a request'),
});

export const CemCertificate = z.object({
  certificate_id: z.number().int().nullable().describe('The stored certificate; null once it was deleted'),
  name: z.string(),
  issuer: z.string(),
  serial_number: z.string().describe('Decimal, as CEM writes it'),
  usages: z.array(z.enum(cemUsages)),
  answer: z.enum(['pending', 'accepted', 'rejected']),
  reason: z.string().nullable(),
});

export const CemExchangeRecord = z.object({
  id: z.number().int(),
  direction: z
    .enum(['inbound', 'outbound'])
    .describe("outbound: pier's request to the partner; inbound: the partner's"),
  state: z.enum(cemStates),
  partner_id: z.number().int(),
  partner: z.string(),
  organization: z.string(),
  request_id: z.string(),
  respond_by: z.string(),
  request_message_id: z.string().nullable(),
  response_message_id: z.string().nullable(),
  answered_at: z.string().nullable(),
  answered_by: z.string().nullable().describe('user, policy:<policy>, or partner:<name>'),
  switched_at: z.string().nullable(),
  overdue_alerted_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  certificates: z.array(CemCertificate),
});
export type CemExchangeRecord = z.infer<typeof CemExchangeRecord>;

export const CemListQuery = z.object({
  ...pagingQuery(20),
  state: z.enum(cemStates).optional(),
  direction: z.enum(['inbound', 'outbound']).optional(),
  partner: recordName.optional().describe('Partner name'),
});
export const cemExchangeList = listSchema('exchanges', CemExchangeRecord);

export const CemPolicyUpdate = z.strictObject({
  policy: z
    .enum(cemPolicies)
    .describe("How the partner's requests are answered: manual (an operator), accept or reject at once"),
});
export const CemPolicyRecord = z.object({ partner_id: z.number().int(), policy: z.enum(cemPolicies) });
