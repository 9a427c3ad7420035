// Covers the profile columns of the interop options: each maps to one library option and back, presets translate to columns, and docs/interop.md's option and preset tables say what the code sets and why.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import {
  defaultInteropOptions,
  interopPresets,
  type InteropOptions,
  type InteropPreset,
} from '../../protocol/as2/interop-presets.js';
import {
  defaultInteropFields,
  interopFieldNames,
  interopFieldOptions,
  interopOptionsOf,
  presetFields,
} from './interop-fields.js';

t.test('every library option has one column, and the mapping goes both ways', async (t) => {
  t.same(
    Object.values(interopFieldOptions).sort(),
    Object.keys(defaultInteropOptions).sort(),
    'one column per option',
  );
  t.same(interopOptionsOf(defaultInteropFields), defaultInteropOptions);
  const flipped: InteropOptions = {
    signedAttributes: false,
    algorithmProtection: false,
    transferEncoding: 'base64',
    micSpelling: 'rfc3851',
    keyTransport: 'rsa-oaep-sha256',
    keyAgreement: 'ecmqv',
    bodyFraming: 'chunked',
    filenameQuoting: 'token',
  };
  const columns = Object.fromEntries(
    interopFieldNames.map((field) => [field, flipped[interopFieldOptions[field]]]),
  );
  t.same(interopOptionsOf(columns as typeof defaultInteropFields), flipped);
  t.same(presetFields('biztalk'), { key_transport: 'rsa-oaep', body_framing: 'chunked' });
  t.same(presetFields('ibm-sterling'), { algorithm_protection: false, transfer_encoding: 'binary' });
});

/** The cells of each row of the markdown table whose header starts with `first`. */
function tableRows(doc: string, first: string): string[][] {
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^\\|\\s*${first}\\s*\\|`).test(line));
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/interop.md'), 'utf8');
const fieldOf = Object.fromEntries(
  interopFieldNames.map((field) => [interopFieldOptions[field], field]),
) as Record<keyof InteropOptions, string>;

t.test('docs/interop.md lists each profile field with its option and default', async (t) => {
  const rows = tableRows(doc, 'profile field').map((cells) => cells.slice(0, 3));
  const expected = interopFieldNames.map((field) => [
    `\`${field}\``,
    `\`${interopFieldOptions[field]}\``,
    `\`${String(defaultInteropFields[field])}\``,
  ]);
  t.same(rows.sort(), expected.sort());
});

t.test('docs/interop.md says what each preset sets and why, as the code does', async (t) => {
  const rows = tableRows(doc, 'preset');
  const expected = (Object.entries(interopPresets) as [string, InteropPreset][]).map(([name, preset]) => {
    const keys = Object.keys(preset.settings) as (keyof InteropOptions)[];
    return [
      `\`${name}\``,
      preset.description,
      keys.map((key) => `\`${fieldOf[key]}: ${String(preset.settings[key])}\``).join(', '),
      keys.map((key) => preset.reasons[key]).join(' '),
    ];
  });
  t.same(rows, expected);
});
