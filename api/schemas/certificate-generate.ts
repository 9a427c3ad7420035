/**
 * Making a key pair with a self-signed certificate or a certificate signing request
 * (POST /certificates/generate), and the requests waiting for their CA's certificate.
 */
import { z } from 'zod';
import { CertificateRecord, description } from './certificate.js';
import { listSchema, multiLineText, singleLineText, timestamp } from './common.js';

/** Validity of a generated self-signed certificate, in days, when the body leaves it out (two years). */
export const defaultValidDays = 730;
/** The longest validity offered: ten years. */
export const maxValidDays = 3650;

const subjectText = (label: string) =>
  singleLineText(64)
    .refine((v) => v.trim() === v, `${label} must not start or end with spaces`)
    .describe(`${label}, at most 64 characters (RFC 5280 upper bound)`);

export const KeyChoice = z.discriminatedUnion(
  'algorithm',
  [
    z.strictObject({
      algorithm: z.literal('rsa'),
      bits: z.union([z.literal(2048), z.literal(3072), z.literal(4096)], {
        error: 'Must be 2048, 3072 or 4096',
      }),
    }),
    z.strictObject({
      algorithm: z.literal('ec'),
      curve: z.enum(['P-256', 'P-384'], { error: 'Must be P-256 or P-384' }),
    }),
  ],
  { error: 'Must be rsa or ec' },
);

export const SubjectChoice = z.strictObject({
  common_name: subjectText('Common name').min(1, 'Required: the name partners know this key by'),
  organization: subjectText('Organization').optional(),
  organizational_unit: subjectText('Organizational unit').optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'Use the two capital letters of the country code (ISO 3166), e.g. DE')
    .optional(),
  email: z
    .string()
    .max(128)
    .regex(/^[\x21-\x7e]+@[\x21-\x7e]+$/, 'Must be an e-mail address (ASCII)')
    .optional(),
});

export const GenerateBody = z.strictObject({
  name: description
    .refine((v) => v.trim() !== '', 'Required: the description the certificate is listed by')
    .describe('Description of the certificate (or of the pending request)'),
  key: KeyChoice.describe('rsa with bits 2048, 3072 or 4096; or ec with curve P-256 or P-384'),
  subject: SubjectChoice.describe('Subject of the certificate; only common_name is required'),
  valid_days: z
    .number({ error: 'Must be a whole number of days' })
    .int('Must be a whole number of days')
    .min(1, 'Must be at least 1 day')
    .max(maxValidDays, `Must be at most ${maxValidDays} days (ten years)`)
    .default(defaultValidDays)
    .describe(`Days the self-signed certificate is valid; default ${defaultValidDays}; ignored for a CSR`),
  output: z
    .enum(['self-signed', 'csr'], { error: 'Must be self-signed or csr' })
    .describe(
      'self-signed: 201 with the stored certificate and its key; csr: 201 with a certificate request waiting for the CA',
    ),
});
export type GenerateBody = z.output<typeof GenerateBody>;

export const CertificateRequestRecord = z.object({
  id: z.number().int(),
  description: z.string(),
  state: z
    .literal('awaiting_certificate')
    .describe("Waiting for the CA's certificate: POST it to /certificate-requests/{id}/certificate"),
  common_name: z.string(),
  subject: z.string().describe('Subject distinguished name, RFC 4514 order (CN first)'),
  key_algorithm: z.string().describe('RSA or EC'),
  key_size: z.number().int(),
  key_curve: z.string(),
  signature_algorithm: z.string(),
  csr_pem: z.string().describe('The PKCS#10 request, PEM: send it to the CA'),
  has_private_key: z.literal(true).describe('The key is stored (write-only: never shown)'),
  created_at: timestamp,
  updated_at: timestamp,
});
export type CertificateRequestRecord = z.infer<typeof CertificateRequestRecord>;

export const certificateRequestList = listSchema('certificate_requests', CertificateRequestRecord);

/** POST /certificates/generate answers the certificate (self-signed) or the request waiting for its CA (csr). */
export const GenerateAnswer = z.union([CertificateRecord, CertificateRequestRecord]);

export const CompleteRequestBody = z.strictObject({
  certificate: multiLineText(512 * 1024)
    .min(1, 'Required: the certificate the CA issued, PEM')
    .describe(
      "The CA's certificate, PEM; a chain may follow it (only the certificate of this key is stored)",
    ),
  description: description.optional().describe("Description of the certificate; default: the request's"),
});

export const CertificateDownloadQuery = z.object({
  format: z
    .enum(['pem', 'der'], { error: 'Must be pem or der' })
    .default('pem')
    .describe('pem (default) or der'),
});
