/**
 * Settings of a plugin configuration that name a stored certificate (the receiver's
 * tls_certificate_id): the certificate must exist and be fit for its use. The rows are
 * locked (KEY SHARE) like a profile save locks its certificates, so a delete running at the
 * same time either waits and then sees this configuration, or has removed the certificate first.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { certificateUses, type CertificateUse, type PluginTypeDefinition } from '../../../actors/index.js';
import { certificateFactsLocked, type CertificateFacts } from '../../../storage/repositories/certificates.js';

function problemOf(id: number, c: CertificateFacts | undefined, use: CertificateUse): string | undefined {
  const need = certificateUses[use];
  if (!c) return `Certificate ${id} does not exist`;
  if (need.needsKey && !c.has_key)
    return `Certificate ${id} (${c.name}) has no private key; ${need.purpose} needs one`;
  if (need.needsKey && !c.private_key_matches) {
    return `Certificate ${id} (${c.name}) has a private key that does not belong to it; ${need.purpose} needs its own key`;
  }
  // A certificate that limits its extended key usage must allow this one, or clients refuse it.
  const eku = c.extended_key_usage;
  if (
    need.extendedKeyUsage &&
    eku.length > 0 &&
    !eku.includes(need.extendedKeyUsage) &&
    !eku.includes('anyExtendedKeyUsage')
  ) {
    return `Certificate ${id} (${c.name}) is limited to ${eku.join(', ')}; ${need.purpose} needs ${need.extendedKeyUsage}`;
  }
  return undefined;
}

/** One message per certificate setting that names an unusable certificate. */
export async function certificateSettingProblems(
  em: EntityManager,
  def: PluginTypeDefinition,
  settings: Record<string, unknown>,
): Promise<Record<string, string>> {
  const named = Object.entries(def.certificateFields ?? {})
    .map(([field, use]) => ({ field, use, id: settings[field] }))
    .filter((s): s is { field: string; use: CertificateUse; id: number } => typeof s.id === 'number');
  if (named.length === 0) return {};
  const ids = [...new Set(named.map((s) => s.id))];
  const rows = await certificateFactsLocked(em, ids);
  const facts = new Map(rows.map((r) => [r.id, r]));
  const problems: Record<string, string> = {};
  for (const s of named) {
    const problem = problemOf(s.id, facts.get(s.id), s.use);
    if (problem) problems[s.field] = problem;
  }
  return problems;
}
