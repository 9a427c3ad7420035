/** Routes of /certificates (docs/api/certificates.md). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { idParams, listAnswer } from '../../schemas/common.js';
import {
  CertificateImportBody,
  CertificateListQuery,
  CertificateRecord,
  CertificateUpdate,
  CertificateUploadForm,
  certificateList,
  ExpiringQuery,
  ImportAnswer,
  UploadFindings,
  uploadLimitBytes,
} from '../../schemas/certificate.js';
import { CertificateDownloadQuery } from '../../schemas/certificate-generate.js';
import { readUploadForm } from './form.js';
import { importCertificates } from './imports.js';
import {
  certificateFile,
  deleteCertificate,
  getCertificate,
  listCertificates,
  listExpiring,
  updateCertificate,
} from './service.js';
import { uploadCertificates } from './upload.js';
import { registerGenerateRoutes } from './generate-routes.js';
import { registerPkcs12Route } from './pkcs12-route.js';

export function registerCertificateRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Certificates';
  router.add({
    method: 'GET',
    url: '/certificates',
    tag,
    summary: 'List certificates',
    query: CertificateListQuery,
    response: certificateList,
    handler: async ({ query }) =>
      listAnswer('certificates', await listCertificates(ctx, freshEm(ctx), query)),
  });
  router.add({
    method: 'POST',
    url: '/certificates',
    tag,
    summary: 'Upload certificates, chains, PKCS#12 files or keys',
    consumes: 'multipart',
    bodyDoc: CertificateUploadForm,
    bodyLimit: uploadLimitBytes,
    status: 201,
    response: CertificateRecord,
    otherResponses: [
      {
        status: 200,
        description:
          'Anything but one certificate with a description: what was found, with an import token (an import also adds a private key to a stored certificate that has none)',
        response: UploadFindings,
      },
    ],
    errors: ['CERTIFICATE_EXISTS'],
    handler: async ({ request, reply, caller }) => {
      const answer = await uploadCertificates(ctx, caller, await readUploadForm(request));
      const data = 'record' in answer ? answer.record : answer.findings;
      return reply.code(answer.status).send({ data, error: null });
    },
  });
  router.add({
    method: 'POST',
    url: '/certificates/import',
    tag,
    summary: 'Import certificates an upload found, with their keys, all or none',
    body: CertificateImportBody,
    status: 201,
    response: ImportAnswer,
    errors: ['CERTIFICATE_EXISTS'],
    handler: ({ body, caller }) => importCertificates(ctx, caller, body),
  });
  router.add({
    method: 'GET',
    url: '/certificates/expiring',
    tag,
    summary: 'Expired and expiring certificates, soonest first',
    query: ExpiringQuery,
    response: certificateList,
    handler: async ({ query }) => listAnswer('certificates', await listExpiring(ctx, freshEm(ctx), query)),
  });
  router.add({
    method: 'GET',
    url: '/certificates/:id',
    tag,
    summary: 'Get a certificate',
    params: idParams,
    response: CertificateRecord,
    handler: ({ params }) => getCertificate(ctx, freshEm(ctx), params.id),
  });
  router.add({
    method: 'PUT',
    url: '/certificates/:id',
    tag,
    summary: "Change a certificate's description",
    params: idParams,
    body: CertificateUpdate,
    response: CertificateRecord,
    handler: ({ params, body, caller }) => updateCertificate(ctx, caller, params.id, body),
  });
  router.add({
    method: 'DELETE',
    url: '/certificates/:id',
    tag,
    summary: 'Delete a certificate no AS2 profile uses',
    params: idParams,
    status: 204,
    errors: ['CERTIFICATE_IN_USE'],
    handler: ({ params, caller }) => deleteCertificate(ctx, caller, params.id),
  });
  router.add({
    method: 'GET',
    url: '/certificates/:id/download',
    tag,
    summary: 'Download a certificate as PEM or DER (never its key)',
    params: idParams,
    query: CertificateDownloadQuery,
    raw: {
      mediaType: 'application/x-pem-file',
      description:
        'The certificate: PEM (application/x-pem-file), or with format=der DER (application/pkix-cert)',
    },
    handler: async ({ params, query, reply }) => {
      const file = await certificateFile(freshEm(ctx), params.id, query.format);
      return reply
        .header('content-type', file.mediaType)
        .header('content-disposition', `attachment; filename="${file.fileName}"`)
        .send(file.bytes);
    },
  });
  registerGenerateRoutes(router, ctx);
  registerPkcs12Route(router, ctx);
}
