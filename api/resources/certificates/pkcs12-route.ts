/**
 * POST /certificates/{id}/pkcs12 (docs/api/certificates.md): the key
 * with its certificate as a PKCS#12 file. A POST, so the password travels in the body (never in
 * a URL a proxy or the request log keeps); administrators only, as a sealed export is, because
 * the file opens anywhere its password is known.
 */
import { checkRole } from '../../auth/roles.js';
import type { ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { Pkcs12Body } from '../../schemas/certificate-pkcs12.js';
import { idParams } from '../../schemas/common.js';
import { exportPkcs12 } from './pkcs12-export.js';

export function registerPkcs12Route(router: ApiRouter, ctx: ApiContext): void {
  router.add({
    method: 'POST',
    url: '/certificates/:id/pkcs12',
    tag: 'Certificates',
    summary:
      'Download the private key with its certificate as a password-protected PKCS#12 file (admin only)',
    params: idParams,
    body: Pkcs12Body,
    raw: {
      mediaType: 'application/x-pkcs12',
      description: 'The PKCS#12 file (.p12): the key encrypted with the password, the certificate beside it',
    },
    errors: ['INSUFFICIENT_ROLE'],
    handler: async ({ params, body, caller, reply }) => {
      checkRole(caller, 'admin');
      const file = await exportPkcs12(ctx, caller, params.id, body.password);
      return reply
        .header('content-type', 'application/x-pkcs12')
        .header('content-disposition', `attachment; filename="${file.fileName}"`)
        .header('cache-control', 'no-store')
        .send(file.bytes);
    },
  });
}
