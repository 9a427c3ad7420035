// Covers the interop presets: every setting has a reason, the options merge in order, and docs/interop.md documents every option and preset.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import {
  defaultInteropOptions,
  interopOptions,
  interopPresets,
  type InteropPreset,
} from './interop-presets.js';

t.test('every preset setting has a reason and a valid value', async (t) => {
  for (const [name, preset] of Object.entries(interopPresets) as [string, InteropPreset][]) {
    t.same(
      Object.keys(preset.reasons).sort(),
      Object.keys(preset.settings).sort(),
      `${name}: a reason per setting`,
    );
    for (const key of Object.keys(preset.settings))
      t.ok(key in defaultInteropOptions, `${name}.${key} is an option`);
  }
});

t.test('defaults, then preset, then overrides', async (t) => {
  t.same(interopOptions(null), defaultInteropOptions);
  t.equal(interopOptions('biztalk').keyTransport, 'rsa-oaep');
  t.equal(interopOptions('biztalk', { keyTransport: 'rsa-pkcs1' }).keyTransport, 'rsa-pkcs1');
  t.equal(interopOptions('ibm-sterling').algorithmProtection, false);
  t.equal(interopOptions('liaison').bodyFraming, 'content-length');
});

t.test('docs/interop.md names every option and preset', async (t) => {
  const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/interop.md'), 'utf8');
  for (const option of Object.keys(defaultInteropOptions)) t.match(doc, `\`${option}\``, option);
  for (const preset of Object.keys(interopPresets)) t.match(doc, `\`${preset}\``, preset);
});
