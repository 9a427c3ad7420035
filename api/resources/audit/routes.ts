/** Routes of /audit (docs/api/audit.md). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { AuditListQuery, AuditVerifyResult, auditList } from '../../schemas/audit.js';
import { listAnswer } from '../../schemas/common.js';
import { listAuditEvents, verifyAuditLog } from './service.js';

export function registerAuditRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Audit';
  router.add({
    method: 'GET',
    url: '/audit',
    tag,
    summary: 'List audit events, newest first',
    query: AuditListQuery,
    response: auditList,
    handler: async ({ query }) => listAnswer('events', await listAuditEvents(freshEm(ctx), query)),
  });
  router.add({
    method: 'POST',
    url: '/audit/verify',
    tag,
    summary: 'Verify the hash chain of the audit log',
    response: AuditVerifyResult,
    errors: ['AUDIT_KEY_REQUIRED'],
    handler: () => verifyAuditLog(ctx, freshEm(ctx)),
  });
}
