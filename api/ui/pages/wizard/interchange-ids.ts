/**
 * The interchange ids the wizard's first two steps take in their one form (no step of their
 * own): the rows of qualifier and id the form sent, passed on as the form sent them.
 */
import { interchangeIdsName } from '../../edi-fields.js';
import type { FormFields } from '../../form.js';

export function ediIdFields(fields: FormFields): FormFields {
  const out: FormFields = {};
  for (const part of ['qualifier', 'id']) {
    const value = fields[`${interchangeIdsName}.${part}`];
    if (value !== undefined) out[`${interchangeIdsName}.${part}`] = value;
  }
  return out;
}

export const wizardIdsHint = (whose: string) =>
  `Only for EDI: the ids ${whose} X12 and EDIFACT envelopes carry (ISA06/ISA08, UNB sender and recipient). Leave empty when you exchange no EDI.`;
