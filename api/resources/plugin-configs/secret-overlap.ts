/**
 * Overlap of a replaced write-only value (PluginTypeDefinition.overlappingSecrets): a webhook
 * receiver verifies with the secret it knows, so for a while after a rotation pier signs with
 * the old secret as well as the new one, and the receiver can switch at its own pace.
 */
import type { PluginTypeDefinition } from '../../../actors/shared/definition.js';

type Values = Record<string, unknown>;

/** The replaced value, as stored under `<field>_previous`. */
export interface PreviousSecret {
  value: string;
  /** RFC 3339; the old value stops working at this instant. */
  until: string;
}

export const previousKey = (field: string): string => `${field}_previous`;

/**
 * Updates `secrets` (the values about to be stored) in place: a replaced value becomes the
 * field's previous one for the overlap; a previous one that has run out, whose field was
 * removed, or that belonged to the address before a change of address (docs/api/conventions.md#write-only-values), is
 * dropped.
 */
export function keepReplacedSecrets(
  def: PluginTypeDefinition,
  stored: Values,
  secrets: Values,
  settings: Values,
  now: Date,
  addressChanged: boolean,
): void {
  for (const [field, { overlapSetting }] of Object.entries(def.overlappingSecrets ?? {})) {
    const key = previousKey(field);
    const before = stored[field];
    const after = secrets[field];
    const hours = Number(settings[overlapSetting] ?? 0);
    if (addressChanged) {
      delete secrets[key];
      continue;
    }
    if (typeof before === 'string' && typeof after === 'string' && before !== after && hours > 0) {
      const previous: PreviousSecret = {
        value: before,
        until: new Date(now.getTime() + hours * 3_600_000).toISOString(),
      };
      secrets[key] = previous;
      continue;
    }
    const previous = secrets[key] as PreviousSecret | undefined;
    if (after === undefined || (previous && Date.parse(previous.until) <= now.getTime())) delete secrets[key];
  }
}
