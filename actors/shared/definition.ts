/**
 * What every plugin type declares about its configuration (docs/api/plugin-configs.md): its settings with
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
  'notification-email',
  'sftp-poller',
  'sftp-sender',
  'program-runner',
] as const;
export type PluginType = (typeof pluginTypes)[number];

/** Sources bring messages in, targets deliver them, notifiers send alerts. */
export type PluginRole = 'source' | 'target' | 'notifier';

/** What a setting naming a stored certificate uses it for. */
export type CertificateUse = 'tls-server';

/** What each use needs of a certificate, checked when a configuration is saved and when it starts. */
export const certificateUses: Record<
  CertificateUse,
  {
    /** For messages: "… serving HTTPS needs one". */
    purpose: string;
    /** The instance signs or decrypts with it, so the store must hold its own private key. */
    needsKey: boolean;
    /** An extended key usage the certificate must allow when it lists any. */
    extendedKeyUsage?: string;
  }
> = {
  'tls-server': { purpose: 'serving HTTPS', needsKey: true, extendedKeyUsage: 'serverAuth' },
};

export interface PluginTypeDefinition {
  type: PluginType;
  role: PluginRole;
  /**
   * A source that `gives` documents straight to a target of its process that `takes` them, over
   * a channel the supervisor makes between the two threads (protocol/handoff-protocol.ts).
   */
  handoff?: 'gives' | 'takes';
  summary: string;
  /** Settings that are read back, without defaults (the update schema makes them optional). */
  fields: Record<string, z.ZodType>;
  /** Default of each setting; a setting without one is required on create. */
  defaults: Record<string, unknown>;
  /** Write-only values (docs/api/conventions.md#write-only-values): stored sealed, never returned. */
  secretFields: Record<string, z.ZodType>;
  /**
   * Write-only values that keep working beside their replacement for a while, so the other
   * side can switch over (a webhook signing secret). When one is replaced, the old value is
   * kept sealed under `<field>_previous` as `{ value, until }`, until the number of hours the
   * setting `overlapSetting` names; it is never returned and cannot be sent.
   */
  overlappingSecrets?: Record<string, { overlapSetting: string }>;
  /** Write-only values that a create must carry. */
  requiredSecrets?: readonly string[];
  /** The address a stored secret belongs to: changing it needs the secrets again (rule 8). */
  urlField?: string;
  /** Addresses that must be http(s) URLs without credentials (rule 9); may include a secret. */
  urlFields?: readonly string[];
  /**
   * Settings that name a stored certificate by id (null for none), with what it is used for.
   * The API checks them against the store, a certificate they name cannot be deleted, and an
   * instance starts with the certificate's chain and key in its start data.
   */
  certificateFields?: Record<string, CertificateUse>;
  /**
   * Rules between settings, by property; `settings` has every default filled in. `secrets`, the
   * write-only values as they would be saved, is given where they are known (the API), so a rule
   * can ask for one of two credentials; a worker starting checks its settings without them.
   */
  problems?(settings: Record<string, unknown>, secrets?: Record<string, unknown>): Record<string, string>;
}

/**
 * A type's settings as its worker reads them: the stored settings, defaults filled in, parsed by
 * its fields (`parseSettings`). Derived from the declaration, so a field added to a type's schema
 * is a field of its settings, typed as its schema says, and no hand-written copy can drift. A
 * declaration keeps its fields' types only when written `satisfies PluginTypeDefinition`;
 * annotated `: PluginTypeDefinition`, it forgets them and its settings read as unknown.
 */
export type SettingsOf<D extends Pick<PluginTypeDefinition, 'fields'>> = z.output<z.ZodObject<D['fields']>>;

/** A configuration as an instance starts with it: settings plus the opened write-only values. */
export interface InstanceConfig {
  type: PluginType;
  name: string;
  settings: Record<string, unknown>;
  secrets: Record<string, unknown>;
}
