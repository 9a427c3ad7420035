/**
 * Configuration of the AS2 receiver (docs/api/plugin-configs.md): where it listens, how much it takes, and
 * whether it speaks HTTPS with a certificate from the store.
 */
import { z } from 'zod';
import type { PluginTypeDefinition, SettingsOf } from '../shared/definition.js';
import { readEdiEnvelope, wholeNumber } from '../shared/fields.js';

export const as2ReceiverType = {
  type: 'as2-receiver',
  role: 'source',
  handoff: 'gives',
  summary: 'Receives AS2 messages on its own port, over HTTP or HTTPS',
  fields: {
    host: z.string().min(1).max(255).describe('Address the receiver listens on'),
    port: wholeNumber(1, 65_535).describe('TCP port of the receiver'),
    path: z
      .string()
      .max(256)
      .regex(/^\/[A-Za-z0-9._~/-]*$/, 'Must be a path starting with /')
      .describe('URL path partners post to'),
    max_message_mib: wholeNumber(1, 2048).describe(
      "Largest message accepted, in MiB; a partner's profile may set a lower one",
    ),
    max_requests_per_partner: wholeNumber(1, 1000).describe(
      'Requests one partner (by AS2-From) may have in progress at once; more are answered 503 with Retry-After',
    ),
    max_in_flight_mib_per_partner: wholeNumber(1, 16_384).describe(
      'MiB of bodies one partner may have in progress at once; more are answered 503 with Retry-After',
    ),
    max_requests_per_address: wholeNumber(1, 1000).describe(
      'Requests one client IP address may have in progress at once; more are answered 503 with Retry-After',
    ),
    max_in_flight_mib_per_address: wholeNumber(1, 16_384).describe(
      'MiB of bodies one client IP address may have in progress at once; more are answered 503 with Retry-After',
    ),
    large_messages_budget_mib: wholeNumber(16, 16_384).describe(
      'MiB of large messages (1 MiB and more) opened at once; the others wait their turn, so memory does not grow with how many arrive together',
    ),
    tls_certificate_id: z
      .number()
      .int('Must be a whole number')
      .positive('Must be the id of a stored certificate')
      .nullable()
      .describe(
        'Id of a stored certificate with its private key: the receiver serves HTTPS with it ' +
          '(and the issuers found in the store); null serves plain HTTP',
      ),
    public_url: z
      .string()
      .max(2048)
      .regex(/^(https?:\/\/[^\s/]+(\/\S*)?)?$/, 'Must be an http:// or https:// URL, or empty')
      .describe(
        'URL partners reach this receiver at (behind a proxy or NAT): the asynchronous receipt address ' +
          "of organizations whose profile has no async_mdn_url. '' derives it from PUBLIC_URL's host, " +
          "this receiver's port and path",
      ),
    read_edi_envelope: readEdiEnvelope,
    listener_threads: wholeNumber(0, 256).describe(
      'Threads that each listen on the port and take messages from the socket to the receipt ' +
        '(0: one per 4 cores, at least one). Except with 1, the port is shared (SO_REUSEPORT, Node 22.12 or later): ' +
        'with the same receiver in another pier process on this machine too. The request and MiB ' +
        'limits count per thread',
    ),
  },
  defaults: {
    host: '0.0.0.0',
    port: 10080,
    path: '/as2',
    max_message_mib: 512,
    max_requests_per_partner: 100,
    max_in_flight_mib_per_partner: 1024,
    max_requests_per_address: 100,
    max_in_flight_mib_per_address: 1024,
    large_messages_budget_mib: 128,
    tls_certificate_id: null,
    public_url: '',
    read_edi_envelope: true,
    listener_threads: 0,
  },
  secretFields: {},
  certificateFields: { tls_certificate_id: 'tls-server' },
} satisfies PluginTypeDefinition;

export type As2ReceiverSettings = SettingsOf<typeof as2ReceiverType>;
