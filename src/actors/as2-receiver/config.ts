/** Configuration of the AS2 receiver (spec 2.6): where it listens and how much it takes. */
import { z } from 'zod';
import type { PluginTypeDefinition } from '../shared/definition.js';
import { wholeNumber } from '../shared/fields.js';

export const as2ReceiverType: PluginTypeDefinition = {
  type: 'as2-receiver',
  role: 'source',
  summary: 'Receives AS2 messages on its own port',
  fields: {
    host: z.string().min(1).max(255).describe('Address the receiver listens on'),
    port: wholeNumber(1, 65_535).describe('TCP port of the receiver'),
    path: z
      .string()
      .max(256)
      .regex(/^\/[A-Za-z0-9._~/-]*$/, 'Must be a path starting with /')
      .describe('URL path partners post to'),
    max_message_mib: wholeNumber(1, 2048).describe('Largest message accepted, in MiB'),
  },
  defaults: { host: '0.0.0.0', port: 10080, path: '/as2', max_message_mib: 512 },
  secretFields: {},
};

export interface As2ReceiverSettings {
  host: string;
  port: number;
  path: string;
  max_message_mib: number;
}
