/**
 * Routes of POST /certificates/generate and /certificate-requests: making key pairs with a
 * self-signed certificate or a CSR, and completing a CSR with the CA's certificate
 * (docs/decisions/certificate-requests.md).
 */
import { z } from 'zod';
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { idParams, listAnswer, pagingQuery } from '../../schemas/common.js';
import { CertificateRecord } from '../../schemas/certificate.js';
import {
  CertificateRequestRecord,
  certificateRequestList,
  CompleteRequestBody,
  GenerateAnswer,
  GenerateBody,
} from '../../schemas/certificate-generate.js';
import { generateCertificate } from './generate.js';
import { completeRequest, deleteRequest, getRequest, listRequests, requestPem } from './requests.js';

export function registerGenerateRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Certificates';
  router.add({
    method: 'POST',
    url: '/certificates/generate',
    tag,
    summary: 'Make a key pair with a self-signed certificate or a certificate signing request',
    // Read by the handler, so a refusal names nested properties (subject.country, key.bits).
    bodyDoc: GenerateBody,
    status: 201,
    response: GenerateAnswer,
    errors: ['CERTIFICATE_EXISTS'],
    handler: async ({ request, caller }) => {
      const answer = await generateCertificate(ctx, caller, request.body);
      return answer.output === 'self-signed' ? answer.certificate : answer.request;
    },
  });
  router.add({
    method: 'GET',
    url: '/certificate-requests',
    tag,
    summary: "Certificate signing requests waiting for the CA's certificate, newest first",
    query: z.object(pagingQuery(20)),
    response: certificateRequestList,
    handler: async ({ query }) => listAnswer('certificate_requests', await listRequests(freshEm(ctx), query)),
  });
  router.add({
    method: 'GET',
    url: '/certificate-requests/:id',
    tag,
    summary: 'Get a certificate signing request (never its key)',
    params: idParams,
    response: CertificateRequestRecord,
    handler: ({ params }) => getRequest(freshEm(ctx), params.id),
  });
  router.add({
    method: 'GET',
    url: '/certificate-requests/:id/csr',
    tag,
    summary: 'Download the certificate signing request as PEM, to send to the CA',
    params: idParams,
    raw: { mediaType: 'application/pkcs10', description: 'The PKCS#10 request, PEM' },
    handler: async ({ params, reply }) => {
      const { pem, fileName } = await requestPem(freshEm(ctx), params.id);
      return reply
        .header('content-type', 'application/pkcs10')
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .send(pem);
    },
  });
  router.add({
    method: 'POST',
    url: '/certificate-requests/:id/certificate',
    tag,
    summary: "Store the CA's certificate with the request's key; the request is then removed",
    params: idParams,
    body: CompleteRequestBody,
    status: 201,
    response: CertificateRecord,
    errors: ['CERTIFICATE_EXISTS'],
    handler: ({ params, body, caller }) => completeRequest(ctx, caller, params.id, body),
  });
  router.add({
    method: 'DELETE',
    url: '/certificate-requests/:id',
    tag,
    summary: 'Delete a certificate signing request and its key',
    params: idParams,
    status: 204,
    handler: ({ params, caller }) => deleteRequest(ctx, caller, params.id),
  });
}
