/**
 * What every plugin type declares about its configuration (spec 2.6): its settings with
 * their defaults, its write-only values, its addresses and its cross-field rules. The API,
 * the web forms and the worker all read the same declaration.
 */
import type { z } from 'zod';

export const pluginTypes = [
  'as2-receiver',
  'as2-sender',
  'file-poller',
  'file-writer',
  'http-poster',
  'notification-webhook',
] as const;
export type PluginType = (typeof pluginTypes)[number];

/** Sources bring messages in, targets deliver them, notifiers send alerts. */
export type PluginRole = 'source' | 'target' | 'notifier';

export interface PluginTypeDefinition {
  type: PluginType;
  role: PluginRole;
  summary: string;
  /** Settings that are read back, without defaults (the update schema makes them optional). */
  fields: Record<string, z.ZodType>;
  /** Default of each setting; a setting without one is required on create. */
  defaults: Record<string, unknown>;
  /** Write-only values (spec 2.1 rule 8): stored sealed, never returned. */
  secretFields: Record<string, z.ZodType>;
  /** Write-only values that a create must carry. */
  requiredSecrets?: readonly string[];
  /** The address a stored secret belongs to: changing it needs the secrets again (rule 8). */
  urlField?: string;
  /** Addresses that must be http(s) URLs without credentials (rule 9); may include a secret. */
  urlFields?: readonly string[];
  /** Rules between settings, by property; `settings` has every default filled in. */
  problems?(settings: Record<string, unknown>): Record<string, string>;
}

/** A configuration as an instance starts with it: settings plus the opened write-only values. */
export interface InstanceConfig {
  type: PluginType;
  name: string;
  settings: Record<string, unknown>;
  secrets: Record<string, unknown>;
}
