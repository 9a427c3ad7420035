/**
 * The one registry of plugin types: each type's configuration declaration and, for the
 * types this build runs, the worker that runs an instance of it.
 */
import { as2ReceiverType } from './as2-receiver/config.js';
import { as2SenderType } from './as2-sender/config.js';
import { filePollerType } from './file-poller/config.js';
import { fileWriterType } from './file-writer/config.js';
import { httpPosterType } from './http-poster/config.js';
import { notificationEmailType } from './notification-email/config.js';
import { notificationWebhookType } from './notification-webhook/config.js';
import { programRunnerType } from './program-runner/config.js';
import { sftpPollerType } from './sftp-poller/config.js';
import { sftpSenderType } from './sftp-sender/config.js';
import {
  pluginTypes,
  type PluginType,
  type PluginTypeDefinition,
  type SettingsOf,
} from './shared/definition.js';

export {
  certificateUses,
  pluginTypes,
  type CertificateUse,
  type PluginRole,
  type PluginType,
  type PluginTypeDefinition,
  type SettingsOf,
} from './shared/definition.js';

// Each entry under its own type's name, with its fields' types kept for PluginSettings.
const builtInDefinitions = {
  'as2-receiver': as2ReceiverType,
  'as2-sender': as2SenderType,
  'file-poller': filePollerType,
  'file-writer': fileWriterType,
  'http-poster': httpPosterType,
  'notification-webhook': notificationWebhookType,
  'notification-email': notificationEmailType,
  'sftp-poller': sftpPollerType,
  'sftp-sender': sftpSenderType,
  'program-runner': programRunnerType,
} satisfies { [T in PluginType]: PluginTypeDefinition & { type: T } };

/** Each type's settings as its worker reads them (SettingsOf): `PluginSettings['as2-receiver']` has `port`. */
export type PluginSettings = { [T in PluginType]: SettingsOf<(typeof builtInDefinitions)[T]> };

export const pluginTypeDefinitions: Record<PluginType, PluginTypeDefinition> = builtInDefinitions;

/** Every setting, of every type, that names a stored certificate. */
export const certificateSettings: readonly { type: PluginType; field: string }[] = pluginTypes.flatMap(
  (type) =>
    Object.keys(pluginTypeDefinitions[type].certificateFields ?? {}).map((field) => ({ type, field })),
);

export function isPluginType(text: string): text is PluginType {
  return (pluginTypes as readonly string[]).includes(text);
}

/** Source files carry .ts under tsx and .js once compiled; workers are found the same way. */
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** The worker entry of each type this build can run. */
export const workerEntries: Partial<Record<PluginType, URL>> = {
  'as2-receiver': new URL(`./as2-receiver/worker${ext}`, import.meta.url),
  'as2-sender': new URL(`./as2-sender/worker${ext}`, import.meta.url),
  'file-poller': new URL(`./file-poller/worker${ext}`, import.meta.url),
  'file-writer': new URL(`./file-writer/worker${ext}`, import.meta.url),
  'http-poster': new URL(`./http-poster/worker${ext}`, import.meta.url),
  'notification-webhook': new URL(`./notification-webhook/worker${ext}`, import.meta.url),
  'notification-email': new URL(`./notification-email/worker${ext}`, import.meta.url),
  'sftp-poller': new URL(`./sftp-poller/worker${ext}`, import.meta.url),
  'sftp-sender': new URL(`./sftp-sender/worker${ext}`, import.meta.url),
  'program-runner': new URL(`./program-runner/worker${ext}`, import.meta.url),
};

/**
 * Adds a plugin type that lives outside this folder, with the worker that runs it: how a test
 * fixture brings its own type (docs/contributing.md, "Add a plugin type"). A type of this
 * build is added to the tables above instead. Call it before the API or the runtime is
 * imported: they build their schemas, forms and role tables from this registry when loaded.
 */
export function registerPluginType(
  definition: Omit<PluginTypeDefinition, 'type'> & { type: string },
  worker: URL,
): void {
  if (isPluginType(definition.type)) throw new Error(`Plugin type ${definition.type} is already registered`);
  // The tables are typed by this build's types; a registered type joins them by name.
  const type = definition.type as PluginType;
  (pluginTypes as readonly string[] as string[]).push(type);
  pluginTypeDefinitions[type] = { ...definition, type };
  workerEntries[type] = worker;
}
