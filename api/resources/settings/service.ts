/** The settings record (docs/api/settings.md): read at start, changed by PUT, effective after a restart. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { SettingsSchema, type Settings } from '../../../storage/entities/settings.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { validationError } from '../../errors.js';
import { iso } from '../../schemas/common.js';
import {
  settingsDefaults,
  settingsProblems,
  type SettingsUpdate,
  type SettingsValues,
  type StorageSelection,
} from '../../schemas/settings.js';

const editable = Object.keys(settingsDefaults) as (keyof typeof settingsDefaults)[];
const audited = { kind: 'settings', fields: editable };
const storageFields = [
  'storage_backend',
  'storage_local_directory',
  'storage_s3_bucket',
  'storage_s3_region',
  'storage_s3_endpoint',
] as const;

export function storageOf(s: StorageSelection): StorageSelection {
  return Object.fromEntries(storageFields.map((f) => [f, s[f]])) as unknown as StorageSelection;
}

function sameStorage(a: StorageSelection, b: StorageSelection): boolean {
  return storageFields.every((f) => a[f] === b[f]);
}

function settingsJson(s: Settings, inUse: StorageSelection) {
  const values = Object.fromEntries(editable.map((f) => [f, s[f]])) as SettingsValues;
  return {
    ...values,
    updated_at: iso(s.updated_at),
    storage_in_use: inUse,
    restart_needed: !sameStorage(storageOf(s), inUse),
  };
}

export async function loadSettings(em: EntityManager): Promise<Settings> {
  const row = await em.findOne(SettingsSchema, { id: 1 });
  // The first migration inserts the row; it is never deleted.
  if (!row) throw new Error('The settings record is missing; run pier migrate');
  return row;
}

export async function getSettings(ctx: ApiContext, em: EntityManager) {
  return settingsJson(await loadSettings(em), ctx.storageInUse);
}

/**
 * Saves the properties sent. `fieldProblems` are the properties the body got wrong: the rules
 * over several properties run all the same (on the saved values of those), so one answer
 * names every rejected property.
 */
export async function updateSettings(
  ctx: ApiContext,
  caller: Caller,
  body: Partial<z.output<typeof SettingsUpdate>>,
  fieldProblems: Record<string, string> = {},
) {
  return inTransaction(ctx, async (em) => {
    const row = await loadSettings(em);
    const before = { ...row };
    const next = Object.fromEntries(editable.map((f) => [f, body[f] ?? row[f]])) as SettingsValues;
    const problems = { ...settingsProblems(next), ...fieldProblems };
    if (Object.keys(problems).length > 0) throw validationError(problems);
    em.assign(row, next);
    if (await ctx.audit.updated(em, caller.actor, audited, { id: 1, name: 'settings' }, before, row)) {
      await em.flush();
    }
    return settingsJson(row, ctx.storageInUse);
  });
}
