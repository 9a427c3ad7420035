/** Certificates (docs/api/certificates.md), their upload and import (3.7, 4.3) and list filters (4.2). */
import { z } from 'zod';
import { expiringWindowDays } from '../../pki/certificates/validity.js';
import { listSchema, multiLineText, pagingQuery, readOnly, singleLineText } from './common.js';

const certificateStates = ['valid', 'expiring', 'expired'] as const;
/** Largest certificate upload, in bytes (docs/api/conventions.md#limits). */
export const uploadLimitBytes = 20 * 1024 * 1024;
/** How long an import token is valid, in milliseconds (docs/api/conventions.md#limits: 10 minutes). */
export const importTokenLifetimeMs = 10 * 60 * 1000;

/** What a certificate says about itself: shared by stored records and upload findings. */
const certificateFacts = {
  common_name: z.string().describe("The subject's common name (CN), '' when it has none"),
  subject: z.string().describe('Subject distinguished name, RFC 4514 order (CN first)'),
  issuer: z.string().describe('Issuer distinguished name, RFC 4514 order'),
  serial_number: z.string().describe('Serial number, upper-case hex'),
  not_before: z.string().describe('Start of validity, RFC 3339'),
  not_after: z.string().describe('End of validity, RFC 3339'),
  state: z.enum(certificateStates).describe(`expiring: ends within ${expiringWindowDays} days`),
  days_remaining: z
    .number()
    .int()
    .describe('Whole days until not_after; negative for an expired certificate (days since it expired)'),
  key_algorithm: z.string().describe('RSA, RSA-PSS, EC, Ed25519, Ed448 or DSA'),
  key_size: z.number().int().describe('Key size in bits (modulus for RSA, curve size for EC)'),
  key_curve: z.string().describe("Named curve of an EC key, '' otherwise"),
  signature_algorithm: z.string().describe('For example sha256WithRSAEncryption'),
  key_usage: z.array(z.string()).describe('Key usage extension bits, for example digitalSignature'),
  extended_key_usage: z.array(z.string()).describe('Extended key usages, for example emailProtection'),
  subject_alt_names: z.array(z.string()).describe('Subject alternative names: DNS:…, email:…, URI:…, IP:…'),
  is_ca: z.boolean().describe('The certificate may sign other certificates (basic constraints)'),
  self_signed: z.boolean(),
  fingerprint_sha1: z.string().describe('SHA-1 fingerprint, upper-case hex pairs joined by colons'),
  fingerprint_sha256: z.string().describe('SHA-256 fingerprint, upper-case hex pairs joined by colons'),
};

export const CertificateRecord = z.object({
  id: z.number().int(),
  description: z.string(),
  ...certificateFacts,
  has_private_key: z.boolean(),
  private_key_matches: z
    .boolean()
    .describe('The stored private key belongs to the certificate; false without a key'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CertificateRecord = z.infer<typeof CertificateRecord>;

export const certificateList = listSchema('certificates', CertificateRecord);

export const CertificateListQuery = z.object({
  ...pagingQuery(20),
  q: singleLineText(200)
    .optional()
    .describe(
      'Text in description, common name, subject, issuer or serial number, or the start of the SHA-256 fingerprint (at least 4 hex digits)',
    ),
  status: z.enum(certificateStates).optional(),
  key: z.enum(['present', 'absent']).optional().describe('Whether the certificate has a private key'),
});

/** The largest window the expiring list accepts: 100 years. */
const maxDays = 36500;
export const ExpiringQuery = z.object({
  ...pagingQuery(20),
  days: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || (/^[0-9]+$/.test(v) && Number(v) >= 1 && Number(v) <= maxDays),
      `Must be a whole number from 1 to ${maxDays}`,
    )
    .transform((v) => (v === undefined ? expiringWindowDays : Number(v)))
    .describe(`Window in days; default ${expiringWindowDays}`),
});

export const description = multiLineText(1000);

export const CertificateUpdate = z.strictObject({
  id: z.number().int().optional().describe('When sent, must be the id in the path'),
  description: description.optional(),
  ...Object.fromEntries(
    [
      ...Object.keys(certificateFacts),
      'has_private_key',
      'private_key_matches',
      'created_at',
      'updated_at',
    ].map((k) => [k, readOnly()]),
  ),
});

/** The parts of POST /certificates, for the OpenAPI document. */
export const CertificateUploadForm = z.object({
  certificate: z
    .string()
    .describe(
      'Required: a certificate, PEM bundle, PKCS#7 chain, PKCS#12 file or private key (file or pasted text)',
    ),
  private_key: z
    .string()
    .optional()
    .describe('A private key: PKCS#1, PKCS#8, encrypted PKCS#8 or SEC1, PEM or DER'),
  password: z.string().optional().describe('Password of a PKCS#12 file or an encrypted private key'),
  private_key_password: z
    .string()
    .optional()
    .describe('Password of the private_key part, when it differs from password'),
  description: z
    .string()
    .optional()
    .describe('With a single certificate, stores it at once (201); otherwise an import token is returned'),
});

const FoundCertificate = z.object({
  index: z.number().int(),
  ...certificateFacts,
  friendly_name: z.string().describe("The PKCS#12 friendly name, '' elsewhere"),
  key_index: z
    .number()
    .int()
    .nullable()
    .describe('Index in found.keys of the private key that belongs to it'),
  existing_id: z.number().int().nullable().describe('Id of the same certificate when it is already stored'),
  adds_private_key: z
    .boolean()
    .describe('Importing it adds its private key to the stored certificate, which has none'),
});

const FoundKey = z.object({
  index: z.number().int(),
  key_algorithm: z.string(),
  key_size: z.number().int(),
  certificate_indexes: z.array(z.number().int()).describe('Certificates this key belongs to'),
});

export const UploadFindings = z.object({
  found: z.object({ certificates: z.array(FoundCertificate), keys: z.array(FoundKey) }),
  notes: z.array(z.string()).describe('What was skipped or merged, and why'),
  import_token: z.string().describe('Give it to POST /certificates/import within 10 minutes'),
  expires_at: z.string(),
});

export const CertificateImportBody = z.strictObject({
  import_token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'Not an import token; upload the file again'),
  certificates: z
    .array(
      z.strictObject({
        index: z.number().int().min(0),
        description: description.optional().describe('Defaults to the friendly name or the common name'),
      }),
    )
    .min(1)
    .max(1000),
});

export const ImportAnswer = z.object({
  certificates: z.array(CertificateRecord).describe('The stored certificates, in the order asked for'),
});
