/**
 * A prune deletes what the file does not name, so a file that names little (an empty one, one
 * partner exported alone) deletes most of the install in one call. Deleting more than a share
 * of the install's records is done only when the caller confirms it with the number of records
 * that go, which a plan shows (docs/configuration-files.md).
 */
import { ApiError } from '../errors.js';
import { sections, type PlannedChange } from './plan.js';
import type { InstallState } from './read-install.js';

/** A prune may delete up to this share of the install's records without a confirmation. */
export const unconfirmedPruneShare = 0.5;

/** A prune refused for want of the right confirmation: how many records it would delete, of how many. */
export class PruneUnconfirmed extends Error {
  constructor(
    readonly deletes: number,
    readonly records: number,
    readonly confirmed: number | undefined,
  ) {
    super(
      confirmed === undefined
        ? `Applying would delete ${deletes} of the install's ${records} record(s), more than half; nothing was applied`
        : `Applying would delete ${deletes} record(s), not the ${confirmed} confirmed; nothing was applied`,
    );
  }

  /** The API's refusal: the confirmation is `confirm_delete`. */
  toApiError(): ApiError {
    return new ApiError('INVALID_INPUT', this.message, {
      confirm_delete: `To delete them, send confirm_delete: ${this.deletes}`,
    });
  }
}

/**
 * Throws PruneUnconfirmed when the changes delete more than the share of the records the
 * install held before without `confirmed`, or when `confirmed` is not the number they delete.
 */
export function checkPrune(before: InstallState, changes: PlannedChange[], confirmed: number | undefined) {
  const deletes = changes.filter((c) => c.action === 'delete').length;
  const records = sections.reduce((sum, section) => sum + before.file[section].length, 0);
  const needed = deletes > 0 && deletes > records * unconfirmedPruneShare;
  if (confirmed === undefined ? needed : confirmed !== deletes) {
    throw new PruneUnconfirmed(deletes, records, confirmed);
  }
}
