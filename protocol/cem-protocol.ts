/**
 * What the AS2 receiver tells the core of a certificate exchange (CEM) message it read: the
 * request or response as actors/as2/cem/read.ts found it, certificates as base64 DER. The
 * core stores it (runtime/cem/) and says what it did, for the message's history.
 */
import { z } from 'zod';

export const cemUsages = ['signature', 'encryption', 'tls'] as const;

const Reference = z.object({ issuer: z.string().max(2048), serial: z.string().max(128) });
const Instant = z.iso.datetime({ offset: true });

export const CemWireRequest = z.object({
  kind: z.literal('request'),
  requestId: z.string().min(1).max(256),
  sender: z.string().max(128),
  originated: Instant.nullable(),
  trustRequests: z
    .array(
      z.object({
        usages: z.array(z.enum(cemUsages)).min(1),
        respondBy: Instant,
        responseUrl: z.string().max(2048).nullable(),
        reference: Reference,
        contentId: z.string().max(998),
        certificate: z.base64().max(1024 * 1024),
      }),
    )
    .min(1)
    .max(20),
});

export const CemWireResponse = z.object({
  kind: z.literal('response'),
  requestId: z.string().min(1).max(256),
  sender: z.string().max(128),
  originated: Instant.nullable(),
  trustResponses: z
    .array(z.object({ accepted: z.boolean(), reason: z.string().max(1024).nullable(), reference: Reference }))
    .min(1)
    .max(20),
});

export const CemReceivedRequest = z.object({
  type: z.literal('cem_received'),
  /** The accepted message that carried it. */
  message_id: z.uuid(),
  organization: z.string(),
  partner: z.string(),
  cem: z.discriminatedUnion('kind', [CemWireRequest, CemWireResponse]),
});
export type CemReceivedRequest = z.infer<typeof CemReceivedRequest>;

export const CemReceivedAnswer = z.object({
  type: z.literal('cem_done'),
  /** What was done, in words for the message's history and the log. */
  text: z.string(),
  /** The request was refused (nothing stored): the message is Refused with `text` as the reason. */
  refused: z.boolean().optional(),
});
