/**
 * AS2 profiles (docs/api/as2-profiles.md): the local profile of an organization and the remote profile of a
 * partner. The rules between fields live here as pure functions, so the API and the web
 * form refuse the same things with the same words.
 */
import { z } from 'zod';
import {
  interopChoices,
  interopPresetNames,
  type InteropPresetName,
} from '../../protocol/as2/interop-presets.js';
import { contentEncryptionAlgorithms } from '../../pki/algorithms/encryption-algorithms.js';
import { micAlgorithms } from '../../pki/algorithms/mic-algorithms.js';
import { signingChoiceOf, type SigningChoice } from '../../pki/algorithms/signing-choices.js';
import { defaultInteropFields, type InteropField, type InteropFields } from '../../runtime/index.js';
import { listSchema, pagingQuery, readOnly, singleLineText } from './common.js';
import { httpUrlProblem } from './url.js';

export const signingAlgorithms = [
  'none',
  'sha1',
  'sha256',
  'sha384',
  'sha512',
  'sha3-256',
  'sha3-384',
  'sha3-512',
  'rsa-pss-sha256',
  'rsa-pss-sha384',
  'rsa-pss-sha512',
] as const satisfies readonly ('none' | SigningChoice)[];
export const inboundRequirements = ['required', 'optional'] as const;
export const inboundAlgorithmSets = ['any', 'modern'] as const;
export const encryptionAlgorithms = [
  'none',
  '3des',
  'aes128-cbc',
  'aes192-cbc',
  'aes256-cbc',
  'aes128-gcm',
  'aes256-gcm',
] as const;
export const mdnModes = ['sync', 'async', 'none'] as const;

/** At most this many certificates in one list field (current, next, and a few spare). */
const maxCertificatesPerField = 10;
const maxHeaders = 20;

/** RFC 4130 AS2 names: printable ASCII, no quotes or backslashes, 1 to 128 characters. */
const as2id = z
  .string()
  .min(1)
  .max(128)
  .regex(
    /^[\x21\x23-\x5b\x5d-\x7e]([\x20\x21\x23-\x5b\x5d-\x7e]*[\x21\x23-\x5b\x5d-\x7e])?$/,
    'Use printable ASCII characters without quotes or backslashes, not starting or ending with a space',
  );

const certificateId = z.number().int().min(1).max(2147483647);
const certificateIds = z.array(certificateId).max(maxCertificatesPerField);
const partyId = z.number().int().min(1).max(2147483647);

/** Headers the AS2 sender sets itself; a profile may not replace them. */
const reservedHeaders = new Set([
  'as2-from',
  'as2-to',
  'as2-version',
  'authorization',
  'connection',
  'content-disposition',
  'content-length',
  'content-transfer-encoding',
  'content-type',
  'date',
  'disposition-notification-options',
  'disposition-notification-to',
  'ediint-features',
  'host',
  'message-id',
  'mime-version',
  'receipt-delivery-option',
  'transfer-encoding',
]);

export const HttpHeader = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .regex(
      /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/,
      'Must be an HTTP header name (letters, digits and - _ . and the like)',
    ),
  value: z
    .string()
    .max(2000)
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u0008\u000a-\u001f\u007f]*$/, 'Must not contain line breaks or control characters'),
});
export type HttpHeader = z.infer<typeof HttpHeader>;

const times = {
  created_at: readOnly(),
  updated_at: readOnly(),
};

// Local profile -------------------------------------------------------------------------

const localEditable = {
  as2id,
  signing_certificate_id: certificateId.describe(
    'Certificate with private key that signs messages and receipts',
  ),
  decryption_certificate_ids: z
    .array(certificateId)
    .min(1)
    .max(maxCertificatesPerField)
    .describe('Certificates with private keys partners encrypt to; several during a rollover, current first'),
  async_mdn_url: singleLineText(2048).describe("URL partners send asynchronous receipts to; '' for none"),
};

export const LocalProfileCreate = z.strictObject({
  local_organization_id: partyId.describe('The organization the profile belongs to'),
  as2id: localEditable.as2id,
  signing_certificate_id: localEditable.signing_certificate_id,
  decryption_certificate_ids: localEditable.decryption_certificate_ids
    .optional()
    .describe('Defaults to the signing certificate'),
  async_mdn_url: localEditable.async_mdn_url.default(''),
  ...times,
});

export const LocalProfileUpdate = z.strictObject({
  local_organization_id: partyId.optional().describe('When sent, must be the id in the path'),
  as2id: localEditable.as2id.optional(),
  signing_certificate_id: localEditable.signing_certificate_id.optional(),
  decryption_certificate_ids: localEditable.decryption_certificate_ids.optional(),
  async_mdn_url: localEditable.async_mdn_url.optional(),
  ...times,
});

export const LocalProfileRecord = z.object({
  local_organization_id: z.number().int(),
  as2id: z.string(),
  signing_certificate_id: z.number().int(),
  decryption_certificate_ids: z.array(z.number().int()),
  async_mdn_url: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type LocalProfileRecord = z.infer<typeof LocalProfileRecord>;

export interface LocalProfileValues {
  as2id: string;
  signing_certificate_id: number;
  decryption_certificate_ids: number[];
  async_mdn_url: string;
}

// Remote profile ------------------------------------------------------------------------

/** A new partner profile starts secure: compressed, signed, encrypted, synchronous signed receipt. */
const remoteDefaults = {
  partner_certificate_id: null,
  signing_algorithm: 'sha256',
  encryption_algorithm: 'aes256-cbc',
  compression: true,
  mdn_mode: 'sync',
  mdn_signed: true,
  receipt_timeout_hours: 24,
  http_basic_user: '',
  tls_verify: true,
  tls_trusted_certificate_ids: [] as number[],
  tls_client_certificate_id: null,
  as2bis: false,
  inbound_signature: 'required',
  inbound_encryption: 'required',
  max_message_mib: null,
} as const;

const remoteEditable = {
  as2id,
  endpoint: singleLineText(2048).describe("The partner's AS2 URL"),
  partner_certificate_id: certificateId
    .nullable()
    .describe(
      'Certificate messages to the partner are encrypted for; required unless encryption_algorithm is none',
    ),
  signature_certificate_ids: certificateIds.describe(
    "Certificates that verify the partner's signatures and signed receipts; several during a rollover. Defaults to the partner certificate",
  ),
  signing_algorithm: z
    .enum(signingAlgorithms)
    .describe('Digest of our signature (and of the MIC); none sends unsigned'),
  encryption_algorithm: z.enum(encryptionAlgorithms),
  compression: z.boolean().describe('Compress messages (zlib) before signing'),
  mdn_mode: z.enum(mdnModes).describe('Receipt requested: sync (same connection), async (sent later), none'),
  mdn_signed: z.boolean().describe('Ask for a signed receipt'),
  receipt_timeout_hours: z
    .number()
    .int()
    .min(1)
    .max(720)
    .describe('Hours the sender waits for an asynchronous receipt; 1 to 720'),
  http_basic_user: singleLineText(200)
    .regex(/^[^:]*$/, 'Must not contain a colon')
    .describe("User for HTTP basic authentication; '' for none"),
  http_basic_password: singleLineText(200).describe('Write-only; an empty text removes it'),
  http_headers: z
    .array(HttpHeader)
    .max(maxHeaders)
    .describe('Write-only extra HTTP headers; a list replaces them, an empty list removes them'),
  tls_verify: z.boolean().describe("Verify the partner's HTTPS server certificate"),
  tls_trusted_certificate_ids: certificateIds.describe(
    "Extra certificates (CAs or the server's own) trusted for the partner's HTTPS endpoint",
  ),
  tls_client_certificate_id: certificateId
    .nullable()
    .describe('Certificate with private key presented as TLS client certificate; null for none'),
  as2bis: z
    .boolean()
    .describe(
      'Follow the AS2 modernisation draft (rfc4130bis): never generate SHA-1, MD5, 3DES or RC2 in messages sent to this partner; what the partner sends is governed by inbound_algorithms. Default false',
    ),
  inbound_signature: z
    .enum(inboundRequirements)
    .describe(
      'Whether messages from the partner must be signed (required) or may come unsigned (optional), whatever pier sends. Default required',
    ),
  inbound_encryption: z
    .enum(inboundRequirements)
    .describe(
      'Whether messages from the partner must be encrypted (required) or may come unencrypted (optional), whatever pier sends. Default required',
    ),
  inbound_algorithms: z
    .enum(inboundAlgorithmSets)
    .describe(
      'Algorithms accepted from the partner: any, or modern (no SHA-1 or MD5 signatures, no 3DES or RC2 encryption). Default modern with as2bis, else any',
    ),
  max_message_mib: z
    .number()
    .int('Must be a whole number')
    .min(1, 'Must be from 1 to 2048')
    .max(2048, 'Must be from 1 to 2048')
    .nullable()
    .describe(
      "Largest message taken from the partner, in MiB; a larger one is refused with 413 before its body is read when Content-Length says so. null: the receiver's max_message_mib. Default null",
    ),
};

/** Per-partner interop options (docs/interop.md): what the sender puts on the wire for this partner. */
const interopEditable = {
  interop_preset: z
    .enum(interopPresetNames)
    .nullable()
    .describe(
      'A named bundle of interop options (docs/interop.md). Setting it fills the options the preset sets, except those the same request sets; null removes the name and keeps the options. The options shown are what the sender uses',
    ),
  signed_attributes: z
    .boolean()
    .describe(
      'Signed attributes (content type, signing time, digest) in our signatures; false for verifiers that cannot handle them',
    ),
  algorithm_protection: z
    .boolean()
    .describe(
      'The CMSAlgorithmProtection signed attribute (RFC 6211); older verifiers (IBM Sterling) reject it',
    ),
  transfer_encoding: z
    .enum(interopChoices.transferEncoding)
    .describe('Content-Transfer-Encoding of the document part; mendelson refuses base64'),
  body_framing: z
    .enum(interopChoices.bodyFraming)
    .describe(
      'HTTP framing of the request body: a Content-Length header or chunked transfer coding; Liaison refuses chunked',
    ),
  filename_quoting: z
    .enum(interopChoices.filenameQuoting)
    .describe('filename="po.edi" (quoted) or filename=po.edi (token) in Content-Disposition'),
  mic_spelling: z
    .enum(interopChoices.micSpelling)
    .describe(
      'Spelling of algorithm names in micalg and signed-receipt-micalg: rfc5751 writes sha-256, rfc3851 writes sha256',
    ),
  key_transport: z
    .enum(interopChoices.keyTransport)
    .describe(
      'RSA key transport of encrypted messages: rsa-pkcs1 (PKCS#1 v1.5), rsa-oaep (RSAES-OAEP with SHA-1) or rsa-oaep-sha256. An EC partner certificate gets key agreement (key_agreement) instead',
    ),
  key_agreement: z
    .enum(interopChoices.keyAgreement)
    .describe(
      "EC key agreement of encrypted messages to an EC partner certificate (RFC 5753): ecdh (ephemeral-static ECDH) or ecmqv (1-pass ECMQV, for BouncyCastle-based partners such as mendelson; the organization's static key is its first decryption certificate, else its signing certificate, on the partner certificate's curve: P-256, P-384 or P-521). An RSA partner certificate uses key_transport instead",
    ),
} satisfies Record<InteropField | 'interop_preset', z.ZodType>;

/** On create, a left-out option is the preset's value, else the default. */
function interopOnCreate<S extends z.ZodType>(schema: S, field: InteropField) {
  return schema
    .optional()
    .describe(`${schema.description}. Default ${String(defaultInteropFields[field])}, or the preset's value`);
}

const readOnlyRemote = { http_basic_password_set: readOnly(), http_headers_set: readOnly(), ...times };

export const RemoteProfileCreate = z.strictObject({
  business_partner_id: partyId.describe('The partner the profile belongs to'),
  as2id: remoteEditable.as2id,
  endpoint: remoteEditable.endpoint,
  partner_certificate_id: remoteEditable.partner_certificate_id.default(
    remoteDefaults.partner_certificate_id,
  ),
  signature_certificate_ids: remoteEditable.signature_certificate_ids.optional(),
  signing_algorithm: remoteEditable.signing_algorithm.default(remoteDefaults.signing_algorithm),
  encryption_algorithm: remoteEditable.encryption_algorithm.default(remoteDefaults.encryption_algorithm),
  compression: remoteEditable.compression.default(remoteDefaults.compression),
  mdn_mode: remoteEditable.mdn_mode.default(remoteDefaults.mdn_mode),
  mdn_signed: remoteEditable.mdn_signed.default(remoteDefaults.mdn_signed),
  receipt_timeout_hours: remoteEditable.receipt_timeout_hours.default(remoteDefaults.receipt_timeout_hours),
  http_basic_user: remoteEditable.http_basic_user.default(remoteDefaults.http_basic_user),
  http_basic_password: remoteEditable.http_basic_password.optional(),
  http_headers: remoteEditable.http_headers.optional(),
  tls_verify: remoteEditable.tls_verify.default(remoteDefaults.tls_verify),
  tls_trusted_certificate_ids: remoteEditable.tls_trusted_certificate_ids.default([]),
  tls_client_certificate_id: remoteEditable.tls_client_certificate_id.default(
    remoteDefaults.tls_client_certificate_id,
  ),
  interop_preset: interopEditable.interop_preset.default(null),
  signed_attributes: interopOnCreate(interopEditable.signed_attributes, 'signed_attributes'),
  algorithm_protection: interopOnCreate(interopEditable.algorithm_protection, 'algorithm_protection'),
  transfer_encoding: interopOnCreate(interopEditable.transfer_encoding, 'transfer_encoding'),
  body_framing: interopOnCreate(interopEditable.body_framing, 'body_framing'),
  filename_quoting: interopOnCreate(interopEditable.filename_quoting, 'filename_quoting'),
  mic_spelling: interopOnCreate(interopEditable.mic_spelling, 'mic_spelling'),
  key_transport: interopOnCreate(interopEditable.key_transport, 'key_transport'),
  key_agreement: interopOnCreate(interopEditable.key_agreement, 'key_agreement'),
  as2bis: remoteEditable.as2bis.default(remoteDefaults.as2bis),
  inbound_signature: remoteEditable.inbound_signature.default(remoteDefaults.inbound_signature),
  inbound_encryption: remoteEditable.inbound_encryption.default(remoteDefaults.inbound_encryption),
  inbound_algorithms: remoteEditable.inbound_algorithms.optional(),
  max_message_mib: remoteEditable.max_message_mib.default(remoteDefaults.max_message_mib),
  ...readOnlyRemote,
});

export const RemoteProfileUpdate = z.strictObject({
  business_partner_id: partyId.optional().describe('When sent, must be the id in the path'),
  as2id: remoteEditable.as2id.optional(),
  endpoint: remoteEditable.endpoint.optional(),
  partner_certificate_id: remoteEditable.partner_certificate_id.optional(),
  signature_certificate_ids: remoteEditable.signature_certificate_ids.optional(),
  signing_algorithm: remoteEditable.signing_algorithm.optional(),
  encryption_algorithm: remoteEditable.encryption_algorithm.optional(),
  compression: remoteEditable.compression.optional(),
  mdn_mode: remoteEditable.mdn_mode.optional(),
  mdn_signed: remoteEditable.mdn_signed.optional(),
  receipt_timeout_hours: remoteEditable.receipt_timeout_hours.optional(),
  http_basic_user: remoteEditable.http_basic_user.optional(),
  http_basic_password: remoteEditable.http_basic_password.optional(),
  http_headers: remoteEditable.http_headers.optional(),
  tls_verify: remoteEditable.tls_verify.optional(),
  tls_trusted_certificate_ids: remoteEditable.tls_trusted_certificate_ids.optional(),
  tls_client_certificate_id: remoteEditable.tls_client_certificate_id.optional(),
  interop_preset: interopEditable.interop_preset.optional(),
  signed_attributes: interopEditable.signed_attributes.optional(),
  algorithm_protection: interopEditable.algorithm_protection.optional(),
  transfer_encoding: interopEditable.transfer_encoding.optional(),
  body_framing: interopEditable.body_framing.optional(),
  filename_quoting: interopEditable.filename_quoting.optional(),
  mic_spelling: interopEditable.mic_spelling.optional(),
  key_transport: interopEditable.key_transport.optional(),
  key_agreement: interopEditable.key_agreement.optional(),
  as2bis: remoteEditable.as2bis.optional(),
  inbound_signature: remoteEditable.inbound_signature.optional(),
  inbound_encryption: remoteEditable.inbound_encryption.optional(),
  inbound_algorithms: remoteEditable.inbound_algorithms.optional(),
  max_message_mib: remoteEditable.max_message_mib.optional(),
  ...readOnlyRemote,
});

export const RemoteProfileRecord = z.object({
  business_partner_id: z.number().int(),
  as2id: z.string(),
  endpoint: z.string(),
  partner_certificate_id: z.number().int().nullable(),
  signature_certificate_ids: z.array(z.number().int()),
  signing_algorithm: z.enum(signingAlgorithms),
  encryption_algorithm: z.enum(encryptionAlgorithms),
  compression: z.boolean(),
  mdn_mode: z.enum(mdnModes),
  mdn_signed: z.boolean(),
  receipt_timeout_hours: z.number().int(),
  http_basic_user: z.string(),
  http_basic_password_set: z.boolean().describe('A password is stored (the password itself is never shown)'),
  http_headers_set: z.boolean().describe('Extra headers are stored (they are never shown)'),
  tls_verify: z.boolean(),
  tls_trusted_certificate_ids: z.array(z.number().int()),
  tls_client_certificate_id: z.number().int().nullable(),
  interop_preset: z.enum(interopPresetNames).nullable(),
  signed_attributes: z.boolean(),
  algorithm_protection: z.boolean(),
  transfer_encoding: z.enum(interopChoices.transferEncoding),
  body_framing: z.enum(interopChoices.bodyFraming),
  filename_quoting: z.enum(interopChoices.filenameQuoting),
  mic_spelling: z.enum(interopChoices.micSpelling),
  key_transport: z.enum(interopChoices.keyTransport),
  key_agreement: z.enum(interopChoices.keyAgreement),
  as2bis: z.boolean(),
  inbound_signature: z.enum(inboundRequirements),
  inbound_encryption: z.enum(inboundRequirements),
  inbound_algorithms: z.enum(inboundAlgorithmSets),
  max_message_mib: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RemoteProfileRecord = z.infer<typeof RemoteProfileRecord>;

/** A remote profile as stored, write-only values in plain form. */
export interface RemoteProfileValues extends InteropFields {
  as2id: string;
  endpoint: string;
  partner_certificate_id: number | null;
  signature_certificate_ids: number[];
  signing_algorithm: (typeof signingAlgorithms)[number];
  encryption_algorithm: (typeof encryptionAlgorithms)[number];
  compression: boolean;
  mdn_mode: (typeof mdnModes)[number];
  mdn_signed: boolean;
  receipt_timeout_hours: number;
  http_basic_user: string;
  http_basic_password: string;
  http_headers: HttpHeader[];
  tls_verify: boolean;
  tls_trusted_certificate_ids: number[];
  tls_client_certificate_id: number | null;
  interop_preset: InteropPresetName | null;
  as2bis: boolean;
  inbound_signature: (typeof inboundRequirements)[number];
  inbound_encryption: (typeof inboundRequirements)[number];
  inbound_algorithms: (typeof inboundAlgorithmSets)[number];
  max_message_mib: number | null;
}

export const ProfileListQuery = z.object({ ...pagingQuery(20) });
export const localProfileList = listSchema('profiles', LocalProfileRecord);
export const remoteProfileList = listSchema('profiles', RemoteProfileRecord);

// Rules between fields ------------------------------------------------------------------

function duplicateProblem(ids: number[]): string | undefined {
  const seen = new Set<number>();
  for (const id of ids) {
    if (seen.has(id)) return `Lists certificate ${id} twice`;
    seen.add(id);
  }
  return undefined;
}

export function localProfileProblems(v: LocalProfileValues): Record<string, string> {
  const problems: Record<string, string> = {};
  if (v.async_mdn_url !== '') {
    const problem = httpUrlProblem(v.async_mdn_url);
    if (problem) problems.async_mdn_url = problem;
  }
  const duplicate = duplicateProblem(v.decryption_certificate_ids);
  if (duplicate) problems.decryption_certificate_ids = duplicate;
  return problems;
}

export function remoteProfileProblems(v: RemoteProfileValues): Record<string, string> {
  const problems: Record<string, string> = {};
  const urlProblem = httpUrlProblem(v.endpoint);
  if (urlProblem) problems.endpoint = urlProblem;
  if (v.encryption_algorithm !== 'none' && v.partner_certificate_id === null) {
    problems.partner_certificate_id =
      'Required when messages are encrypted (encryption_algorithm is not none)';
  }
  if (v.mdn_signed && v.mdn_mode !== 'none' && v.signature_certificate_ids.length === 0) {
    problems.signature_certificate_ids =
      "Required to verify the partner's signed receipts (mdn_signed is true)";
  }
  for (const field of ['signature_certificate_ids', 'tls_trusted_certificate_ids'] as const) {
    const duplicate = duplicateProblem(v[field]);
    if (duplicate) problems[field] = duplicate;
  }
  if (v.http_basic_password !== '' && v.http_basic_user === '') {
    problems.http_basic_user = 'Required with http_basic_password';
  }
  Object.assign(problems, as2bisProblems(v));
  // Header lists are write-only: messages name the position, or a reserved name from our list.
  const names = new Map<string, number>();
  v.http_headers.forEach((header, i) => {
    const name = header.name.toLowerCase();
    if (problems.http_headers) return;
    if (reservedHeaders.has(name)) {
      problems.http_headers = `Header ${i + 1} is ${name}, which the AS2 sender sets itself`;
    } else if (names.has(name)) {
      problems.http_headers = `Headers ${names.get(name)! + 1} and ${i + 1} have the same name`;
    }
    names.set(name, i);
  });
  return problems;
}

/** as2bis forbids generating the algorithms the library marks legacy; the problem is on the field choosing one. */
function as2bisProblems(v: RemoteProfileValues): Record<string, string> {
  if (!v.as2bis) return {};
  const problems: Record<string, string> = {};
  const digest = signingChoiceOf(v.signing_algorithm)?.digest ?? null;
  if (digest && micAlgorithms[digest].legacy) {
    problems.signing_algorithm = `as2bis forbids generating ${v.signing_algorithm} signatures: choose sha256, sha384 or sha512, or turn as2bis off`;
  }
  if (v.encryption_algorithm !== 'none' && contentEncryptionAlgorithms[v.encryption_algorithm].legacy) {
    problems.encryption_algorithm = `as2bis forbids generating ${v.encryption_algorithm} encryption: choose an AES algorithm, or turn as2bis off`;
  }
  return problems;
}
