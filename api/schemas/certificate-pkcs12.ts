/** The body of POST /certificates/{id}/pkcs12 (docs/api/certificates.md). */
import { z } from 'zod';

export const pkcs12PasswordMin = 8;

export const Pkcs12Body = z.strictObject({
  password: z
    .string({ error: 'Is required' })
    .min(pkcs12PasswordMin, `Must be at least ${pkcs12PasswordMin} characters`)
    .max(1024, 'Must be at most 1024 characters')
    .describe(
      'Protects the file: the key is encrypted with it (PBES2, AES-256) and the file checked with it (HMAC-SHA-256). Never stored or logged',
    ),
});
export type Pkcs12Body = z.infer<typeof Pkcs12Body>;
