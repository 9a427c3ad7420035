/**
 * What the web UI reads from the API's routes, typed by the routes' own response schemas: a page
 * names a route (`p.must('GET', '/messages/:id', …)`) and reads its answer as the schema's output
 * (`message.status`), as fastify types a handler by the route's schemas. The table names the
 * schema each route already declares (api/resources/*\/routes.ts, `response:`); `checkAnswers`
 * holds it to the registered routes when the web UI is built, so it cannot drift from them.
 */
import type { z } from 'zod';
import type { HttpMethod, RegisteredRoute } from '../http/router.js';
import { ApplyAnswer, PlanAnswer } from '../resources/config/routes.js';
import { apiTokenList, ApiTokenCreated } from '../schemas/api-token.js';
import { CheckConnectionAnswer, TestMessageAnswer } from '../schemas/as2-partner-tools.js';
import {
  localProfileList,
  LocalProfileRecord,
  remoteProfileList,
  RemoteProfileRecord,
} from '../schemas/as2-profile.js';
import { auditList, AuditVerifyResult } from '../schemas/audit.js';
import { cemExchangeList, CemExchangeRecord, CemPolicyRecord } from '../schemas/cem.js';
import {
  certificateRequestList,
  CertificateRequestRecord,
  GenerateAnswer,
} from '../schemas/certificate-generate.js';
import { certificateList, CertificateRecord, ImportAnswer } from '../schemas/certificate.js';
import { ConfigFile } from '../schemas/config-file.js';
import { controlNumberList } from '../schemas/control-number.js';
import { messageList, MessageRecord } from '../schemas/message.js';
import { notificationList, NotificationRecord } from '../schemas/notification.js';
import { oidcProviderList, OidcProviderRecord } from '../schemas/oidc-provider.js';
import { organizationList, partnerList, PartnerRecord, PartyRecord } from '../schemas/party.js';
import { partnerStatusList } from '../schemas/partner-status.js';
import { anyPluginConfigRecord } from '../schemas/plugin-config.js';
import { routeList, RouteRecord } from '../schemas/route.js';
import { ServerLogAnswer } from '../schemas/server-log.js';
import { serviceAccountList, ServiceAccountRecord } from '../schemas/service-account.js';
import { ServiceList, ServiceRecord } from '../schemas/service.js';
import { SftpCheckAnswer } from '../schemas/sftp.js';
import { SettingsRecord, StorageTestResult } from '../schemas/settings.js';
import { StatsRecord } from '../schemas/stats.js';

export const apiAnswers = {
  'GET /api-tokens': apiTokenList,
  'POST /api-tokens': ApiTokenCreated,
  'GET /as2/local-profiles': localProfileList,
  'POST /as2/local-profiles': LocalProfileRecord,
  'GET /as2/local-profiles/:id': LocalProfileRecord,
  'PUT /as2/local-profiles/:id': LocalProfileRecord,
  'GET /as2/remote-profiles': remoteProfileList,
  'POST /as2/remote-profiles': RemoteProfileRecord,
  'GET /as2/remote-profiles/:id': RemoteProfileRecord,
  'PUT /as2/remote-profiles/:id': RemoteProfileRecord,
  'POST /as2/remote-profiles/:id/check-connection': CheckConnectionAnswer,
  'POST /as2/remote-profiles/:id/test-message': TestMessageAnswer,
  'GET /audit': auditList,
  'POST /audit/verify': AuditVerifyResult,
  'GET /cem/exchanges': cemExchangeList,
  'POST /cem/exchanges': CemExchangeRecord,
  'GET /cem/exchanges/:id': CemExchangeRecord,
  'POST /cem/exchanges/:id/answer': CemExchangeRecord,
  'GET /cem/policies/:id': CemPolicyRecord,
  'PUT /cem/policies/:id': CemPolicyRecord,
  'POST /certificates/generate': GenerateAnswer,
  'GET /certificate-requests': certificateRequestList,
  'GET /certificate-requests/:id': CertificateRequestRecord,
  'POST /certificate-requests/:id/certificate': CertificateRecord,
  'GET /certificates': certificateList,
  'GET /certificates/expiring': certificateList,
  'POST /certificates/import': ImportAnswer,
  'GET /certificates/:id': CertificateRecord,
  'PUT /certificates/:id': CertificateRecord,
  'GET /config': ConfigFile,
  'POST /config/plan': PlanAnswer,
  'POST /config/apply': ApplyAnswer,
  'GET /partners/:id/control-numbers': controlNumberList,
  'GET /messages': messageList,
  'POST /messages': MessageRecord,
  'POST /messages/edi': MessageRecord,
  'GET /messages/:id': MessageRecord,
  'POST /messages/:id/redispatch': MessageRecord,
  'POST /messages/:id/deliveries/:delivery_id/redeliver': MessageRecord,
  'GET /notifications': notificationList,
  'GET /oidc-providers': oidcProviderList,
  'GET /oidc-providers/:id': OidcProviderRecord,
  'GET /organizations': organizationList,
  'POST /organizations': PartyRecord,
  'GET /organizations/:id': PartyRecord,
  'GET /partners': partnerList,
  'POST /partners': PartnerRecord,
  'GET /partners/:id': PartnerRecord,
  'GET /partner-status': partnerStatusList,
  'POST /plugins/configs': anyPluginConfigRecord,
  'GET /plugins/configs/:type/:name': anyPluginConfigRecord,
  'PUT /plugins/configs/:type/:name': anyPluginConfigRecord,
  'POST /plugins/configs/notification-webhook/:name/test': NotificationRecord,
  'POST /plugins/configs/notification-email/:name/test': NotificationRecord,
  'POST /plugins/configs/sftp-poller/:name/check-connection': SftpCheckAnswer,
  'POST /plugins/configs/sftp-sender/:name/check-connection': SftpCheckAnswer,
  'POST /plugins/configs/sftp-poller/:name/pin-host-key': anyPluginConfigRecord,
  'POST /plugins/configs/sftp-sender/:name/pin-host-key': anyPluginConfigRecord,
  'GET /routes': routeList,
  'POST /routes': RouteRecord,
  'GET /routes/:id': RouteRecord,
  'GET /server-log': ServerLogAnswer,
  'GET /service-accounts': serviceAccountList,
  'GET /service-accounts/:id': ServiceAccountRecord,
  'GET /services': ServiceList,
  'POST /services/:type/:name/:action': ServiceRecord,
  'GET /settings': SettingsRecord,
  'PUT /settings': SettingsRecord,
  'POST /settings/storage/test': StorageTestResult,
  'GET /stats': StatsRecord,
} as const satisfies Record<`${HttpMethod} /${string}`, z.ZodType>;

/** A route the table types: `GET /messages/:id`. */
export type TypedRoute = keyof typeof apiAnswers;

/** The answer of `METHOD url`: its schema's output, or `unknown` for a route the table does not name. */
export type AnswerOf<M extends HttpMethod, U extends string> = `${M} ${U}` extends TypedRoute
  ? z.output<(typeof apiAnswers)[`${M} ${U}`]>
  : unknown;

/** The rows of a list route under its key: `ListRow<'/messages', 'messages'>` is a message. */
export type ListRow<U extends string, K extends string> =
  AnswerOf<'GET', U> extends { [P in K]: readonly (infer R)[] } ? R : never;

/**
 * Refuses to build the web UI when the table names a schema other than the one its route
 * declares: a page would then read an answer as something it is not. A route this process does
 * not register (a module left out) is not checked.
 */
export function checkAnswers(routes: readonly RegisteredRoute[], prefix: string): void {
  const byKey = new Map(routes.map((r) => [`${r.method} ${r.url}`, r.definition.response]));
  for (const [key, schema] of Object.entries(apiAnswers)) {
    const [method, url] = key.split(' ') as [string, string];
    const full = `${method} ${prefix}${url}`;
    if (!byKey.has(full)) continue;
    if (byKey.get(full) !== schema) {
      throw new Error(`api/ui/api-answers.ts: ${key} answers another schema than the one its route declares`);
    }
  }
}
