/**
 * The remote profile's interop options as stored and shown by the API (snake_case columns)
 * and as the AS2 library takes them (InteropOptions): one table, so the API, the core and the
 * sender agree on which column is which option.
 */
import {
  defaultInteropOptions,
  interopPresets,
  type InteropOptions,
  type InteropPresetName,
} from '../../protocol/as2/interop-presets.js';

export const interopFieldOptions = {
  signed_attributes: 'signedAttributes',
  algorithm_protection: 'algorithmProtection',
  transfer_encoding: 'transferEncoding',
  body_framing: 'bodyFraming',
  filename_quoting: 'filenameQuoting',
  mic_spelling: 'micSpelling',
  key_transport: 'keyTransport',
  key_agreement: 'keyAgreement',
} as const satisfies Record<string, keyof InteropOptions>;

export type InteropField = keyof typeof interopFieldOptions;
export type InteropFields = { [F in InteropField]: InteropOptions[(typeof interopFieldOptions)[F]] };
export const interopFieldNames = Object.keys(interopFieldOptions) as InteropField[];

// A new library option without a column here would be silently ignored by the sender.
type Unmapped = Exclude<keyof InteropOptions, (typeof interopFieldOptions)[InteropField]>;
const everyOptionMapped: [Unmapped] extends [never] ? true : Unmapped = true;
void everyOptionMapped;

/** The option columns of a stored row or a profile's values. Rows hold only values the API allowed. */
export function pickInteropFields(source: Record<InteropField, unknown>): InteropFields {
  return Object.fromEntries(interopFieldNames.map((field) => [field, source[field]])) as InteropFields;
}

export function interopOptionsOf(fields: InteropFields): InteropOptions {
  const options: Record<string, unknown> = {};
  for (const field of interopFieldNames) options[interopFieldOptions[field]] = fields[field];
  return options as unknown as InteropOptions;
}

function fieldsOf(options: Partial<InteropOptions>): Partial<InteropFields> {
  const fields: Record<string, unknown> = {};
  for (const field of interopFieldNames) {
    const value = options[interopFieldOptions[field]];
    if (value !== undefined) fields[field] = value;
  }
  return fields as Partial<InteropFields>;
}

export const defaultInteropFields = fieldsOf(defaultInteropOptions) as InteropFields;

/** The fields a preset sets (only those; the others keep their values). */
export function presetFields(name: InteropPresetName): Partial<InteropFields> {
  return fieldsOf(interopPresets[name].settings);
}
