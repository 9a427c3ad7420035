/**
 * POST /certificates/generate: a new key pair with a self-signed certificate (stored with its
 * key, answered as GET /certificates/{id} answers) or with a certificate signing request
 * (stored as a request waiting for the CA's certificate; docs/decisions/certificate-requests.md).
 * The body is checked whole before any key is made, so a refusal names every bad property
 * and stores nothing.
 */
import { certificateInfo } from '../../../pki/certificates/certificate-info.js';
import {
  certificateRequest,
  makeKeyPair,
  selfSignedCertificate,
} from '../../../pki/certificates/make-certificate.js';
import { parseName } from '../../../pki/certificates/names.js';
import { parsePkcs8 } from '../../../pki/certificates/private-key.js';
import { readWhole } from '../../../pki/asn1/tlv.js';
import { CertificateRequestSchema } from '../../../storage/entities/certificate.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { validationError } from '../../errors.js';
import type { CertificateRecord } from '../../schemas/certificate.js';
import { GenerateBody, type CertificateRequestRecord } from '../../schemas/certificate-generate.js';
import { requireObjectBody } from '../../validation.js';
import { certificateJson } from './json.js';
import { auditedRequest, requestJson } from './requests.js';
import { storeCertificates, type Stored } from './store.js';

/**
 * The body's problems keyed by the property's path (`subject.country`, `key.bits`), so a form
 * can show each beside its field; an unknown property is named the same way.
 */
export function generateProblems(
  input: unknown,
): { body: GenerateBody } | { problems: Record<string, string> } {
  const parsed = GenerateBody.safeParse(input);
  if (parsed.success) return { body: parsed.data };
  const problems: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const at = issue.path.map(String);
    const keys =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((k) => [...at, k].join('.'))
        : [at.join('.') || '_form'];
    const text = issue.code === 'unrecognized_keys' ? 'Unknown property' : issue.message;
    for (const key of keys) if (!Object.hasOwn(problems, key)) problems[key] = text;
  }
  return { problems };
}

export type GenerateAnswer =
  | { output: 'self-signed'; certificate: CertificateRecord }
  | { output: 'csr'; request: CertificateRequestRecord };

export async function generateCertificate(
  ctx: ApiContext,
  caller: Caller,
  input: unknown,
): Promise<GenerateAnswer> {
  const checked = generateProblems(requireObjectBody(input));
  if ('problems' in checked) throw validationError(checked.problems);
  const { body } = checked;
  const key = await makeKeyPair(
    body.key.algorithm === 'rsa'
      ? { algorithm: 'rsa', bits: body.key.bits }
      : { algorithm: 'ec', curve: body.key.curve },
  );
  const parsedKey = parsePkcs8(key.export({ format: 'der', type: 'pkcs8' }));
  const description = body.name.trim();
  if (body.output === 'self-signed') {
    const der = selfSignedCertificate({
      key,
      subject: body.subject,
      notBefore: ctx.now(),
      validDays: body.valid_days,
    });
    const [{ certificate }] = (await inTransaction(ctx, (em) =>
      storeCertificates(ctx, em, caller, [{ info: certificateInfo(der), key: parsedKey, description }], {
        addKeys: false,
      }),
    )) as [Stored];
    return { output: 'self-signed', certificate: certificateJson(certificate, ctx.now()) };
  }
  const csr = certificateRequest({ key, subject: body.subject });
  // The subject as the request carries it, in the words certificates are shown with.
  const name = parseName(readWhole(csr).child(0, 'certificationRequestInfo').child(1, 'subject'));
  const request = await inTransaction(ctx, async (em) => {
    const row = em.create(CertificateRequestSchema, {
      description,
      common_name: name.commonName,
      subject: name.text,
      key_algorithm: parsedKey.algorithm,
      key_size: parsedKey.size,
      key_curve: key.asymmetricKeyDetails?.namedCurve ?? '',
      signature_algorithm:
        body.key.algorithm === 'rsa'
          ? 'sha256WithRSAEncryption'
          : body.key.curve === 'P-384'
            ? 'ecdsa-with-SHA384'
            : 'ecdsa-with-SHA256',
      csr,
      private_key: ctx.secrets.seal(parsedKey.pkcs8),
    });
    await em.flush();
    await ctx.audit.created(
      em,
      caller.actor,
      auditedRequest,
      { id: row.id, name: description },
      {
        description,
        subject: row.subject,
        key: `${row.key_algorithm} ${row.key_curve || row.key_size}`,
        private_key: 'set',
      },
    );
    return requestJson(row);
  });
  return { output: 'csr', request };
}
