/** Asserts that unpacking fails with a DispositionError carrying `modifier`. */
import type { Test } from 'tap';
import { unpackIncoming, type UnpackOptions } from '../../actors/as2/unpack.js';
import { DispositionError } from '../../actors/as2/vocabulary/disposition-error.js';
import type { ErrorModifier } from '../../actors/as2/vocabulary/dispositions.js';
import type { PackOptions } from '../../actors/as2/pack.js';
import type { Parties, Party } from './parties.js';

export function expectRefusal(
  t: Test,
  label: string,
  modifier: ErrorModifier,
  body: Buffer,
  headers: Record<string, string>,
  options: UnpackOptions,
): void {
  try {
    unpackIncoming(body, headers, options);
    t.fail(`${label}: accepted`);
  } catch (error) {
    t.ok(error instanceof DispositionError, `${label}: a DispositionError`);
    t.equal((error as DispositionError).modifier, modifier, `${label}: ${modifier}`);
  }
}

/** What the refusal tests share: a small EDI document, bob's receiving options, alice's signing. */
export function refusalKit(parties: Parties) {
  const { alice, bob } = parties;
  const payload = Buffer.from("UNA:+.? '\r\nUNB+UNOC:3+ALICE+BOB+261121:1200+1'\r\nUNZ+1+1'\r\n");
  const receive: UnpackOptions = { decryptionKeys: [bob], verificationCerts: [alice.certificate] };
  const signBy = (party: Party, extra: Partial<NonNullable<PackOptions['sign']>> = {}) => ({
    algorithm: 'sha-256' as const,
    certificate: party.certificate,
    privateKey: party.privateKey,
    ...extra,
  });
  const refusal = (
    t: Test,
    label: string,
    modifier: ErrorModifier,
    body: Buffer,
    headers: Record<string, string>,
    options: UnpackOptions = receive,
  ) => expectRefusal(t, label, modifier, body, headers, options);
  return { payload, receive, signBy, refusal };
}
