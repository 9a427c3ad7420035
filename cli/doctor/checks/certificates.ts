/**
 * Certificates expiring within 30 days (or expired) and where they are used, and profiles or
 * plugin settings that refer to a certificate the store lacks, or to one without the private
 * key they sign, decrypt or serve TLS with.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { certificateSettings, pluginTypeDefinitions, type PluginType } from '../../../actors/index.js';
import { certificateUses } from '../../../actors/shared/definition.js';
import { describeCertificateUsers } from '../../../runtime/index.js';
import { dayMs, daysRemaining, expiringWindowDays } from '../../../pki/certificates/validity.js';
import { certificateUsers } from '../../../storage/queries/certificate-users.js';
import {
  certificatesExpiringBefore,
  profileCertificateReferences,
  settingCertificateReferences,
  type CertificateReference,
} from '../../../storage/queries/doctor.js';
import { failed, passed, type CheckResult } from '../checklist.js';

export async function checkExpiringCertificates(em: EntityManager, now: Date): Promise<CheckResult> {
  const id = 'certificates-expiring';
  const title = `Certificates in use valid for more than ${expiringWindowDays} days`;
  const soon = await certificatesExpiringBefore(em, new Date(now.getTime() + expiringWindowDays * dayMs));
  const users = await certificateUsers(
    em,
    soon.map((c) => c.id),
    certificateSettings,
  );
  const used = soon.filter((c) => users.some((u) => u.certificate_id === c.id));
  const unused = soon.length - used.length;
  const aside =
    unused > 0 ? ` (${unused} unused certificate${unused === 1 ? '' : 's'} expiring too, not counted)` : '';
  if (used.length === 0) return passed(id, title, `none expires within ${expiringWindowDays} days${aside}`);
  const problems = used.map((c) => {
    const days = daysRemaining(c.not_after, now);
    const day = c.not_after.toISOString().slice(0, 10);
    const when =
      days < 0 ? `expired on ${day}` : `expires on ${day} (in ${days} day${days === 1 ? '' : 's'})`;
    const mine = users.filter((u) => u.certificate_id === c.id);
    return `certificate ${c.id} (${c.name}) ${when}; used by ${describeCertificateUsers(mine)}`;
  });
  return failed(
    id,
    title,
    `${used.length} certificate${used.length === 1 ? '' : 's'} in use expire${used.length === 1 ? 's' : ''} within ${expiringWindowDays} days${aside}`,
    'Import the renewed certificate (with its key when it is one of yours), select it in each profile or ' +
      'configuration named, and send the partners your new public certificate before the old one expires',
    problems,
  );
}

/** Every plugin setting that names a certificate, with whether its use needs the private key. */
function settingFields(): { type: string; field: string; needsKey: boolean }[] {
  return certificateSettings.map(({ type, field }) => {
    const use = pluginTypeDefinitions[type as PluginType].certificateFields![field]!;
    return { type, field, needsKey: certificateUses[use].needsKey };
  });
}

function problemOf(r: CertificateReference): string | undefined {
  const where = `${r.user} names certificate ${r.certificate_id} in ${r.field}`;
  if (r.has_key === null) return `${where}, which is not stored`;
  if (!r.needs_key) return undefined;
  if (!r.has_key) return `${where}, which has no private key`;
  if (r.key_matches === false) return `${where}, whose private key does not belong to it`;
  return undefined;
}

export async function checkCertificateReferences(em: EntityManager): Promise<CheckResult> {
  const id = 'certificate-references';
  const title = 'Profiles and instances refer to stored certificates with their keys';
  const references = [
    ...(await profileCertificateReferences(em)),
    ...(await settingCertificateReferences(em, settingFields())),
  ];
  const problems = references.map(problemOf).filter((p) => p !== undefined);
  if (problems.length === 0) {
    return passed(
      id,
      title,
      `${references.length} references, each to a stored certificate with the key it needs`,
    );
  }
  return failed(
    id,
    title,
    `${problems.length} of ${references.length} references cannot be used`,
    'Import the certificate with its private key (PKCS#12, or PEM certificate and key) and select it in the ' +
      'profile or configuration named (web UI: Certificates, then the partner or organization)',
    problems,
  );
}
