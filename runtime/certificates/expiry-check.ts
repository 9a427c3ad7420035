/**
 * The daily certificate expiry check: a certificate an AS2 profile or a
 * plugin configuration (a receiver's HTTPS certificate) uses raises certificate_expiring once when it enters the expiring window, and
 * certificate_expired once when it expires. The notification module delivers the alerts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { raiseAlert, type AlertCode } from '../../flow/alerts/alerts.js';
import { certificateSettings } from '../../actors/index.js';
import { certificatesNamedBySettings, certificateUsers } from '../../storage/queries/certificate-users.js';
import { describeCertificateUsers } from './usage-text.js';
import { dayMs, daysRemaining, expiringWindowDays } from '../../pki/certificates/validity.js';
import { alertLinks } from '../../flow/alerts/links.js';
import { inEntityTx } from '../../storage/sql.js';
import { runPeriodically } from '../periodic.js';

/** Arbitrary constant naming the advisory lock, so two processes of a cluster do not both raise. */
const expiryLockKey = 7_313_000_004;

interface Candidate {
  id: number;
  name: string;
  not_after: Date;
}

function summary(code: AlertCode, c: Candidate, now: Date, users: string): string {
  const day = c.not_after.toISOString().slice(0, 10);
  if (code === 'certificate_expired')
    return `Certificate ${c.name} expired on ${day}; it is used by ${users}`;
  const days = daysRemaining(c.not_after, now);
  const when = days < 1 ? 'within a day' : `in ${days} day${days === 1 ? '' : 's'}`;
  return `Certificate ${c.name} expires ${when} (on ${day}); it is used by ${users}`;
}

/** Raises the alerts due at `now`; returns how many were raised. Safe to run at any time, as often as wanted. */
export async function checkCertificateExpiry(em: EntityManager, now: Date): Promise<number> {
  return em.transactional(async (tx) => {
    const conn = inEntityTx(tx as EntityManager);
    await conn.all('select pg_advisory_xact_lock(?)', [expiryLockKey]);
    const namedBySettings = await certificatesNamedBySettings(tx as EntityManager, certificateSettings);
    const candidates = await conn.all<Candidate>(
      `select c.id, coalesce(nullif(c.description, ''), nullif(c.common_name, ''), c.subject) as name, c.not_after
         from certificate c
        where c.not_after <= ?
          and (exists (select 1 from as2_profile_certificate pc where pc.certificate_id = c.id)
               or c.id = any(?::int[]))
        order by c.not_after, c.id`,
      [new Date(now.getTime() + expiringWindowDays * dayMs), `{${namedBySettings.join(',')}}`],
    );
    if (candidates.length === 0) return 0;
    const users = await certificateUsers(
      tx as EntityManager,
      candidates.map((c) => c.id),
      certificateSettings,
    );
    let raised = 0;
    for (const c of candidates) {
      const notAfter = new Date(c.not_after);
      const code: AlertCode =
        notAfter.getTime() <= now.getTime() ? 'certificate_expired' : 'certificate_expiring';
      const dedupeKey = `${code}:certificate:${c.id}`;
      const [seen] = await conn.all('select 1 from alert where dedupe_key = ? limit 1', [dedupeKey]);
      if (seen) continue;
      const mine = users.filter((u) => u.certificate_id === c.id);
      await raiseAlert(
        tx as EntityManager,
        {
          code,
          subject_kind: 'certificate',
          subject_id: c.id,
          subject_name: c.name,
          summary: summary(code, { ...c, not_after: notAfter }, now, describeCertificateUsers(mine)),
          details: {
            not_after: notAfter.toISOString(),
            days_remaining: daysRemaining(notAfter, now),
            users: mine.map(({ kind, name, fields, link }) => ({ kind, name, fields, link })),
          },
          dedupe_key: dedupeKey,
          link: alertLinks.certificate(c.id),
        },
        now,
      );
      raised++;
    }
    return raised;
  });
}

export interface ExpiryScheduleOptions {
  em: () => EntityManager;
  now: () => Date;
  logger: Logger;
  /** First check after this many milliseconds (default one minute, so startup stays quick). */
  firstDelayMs?: number;
  /** Then one check every this many milliseconds (default one day). */
  intervalMs?: number;
}

/** Runs the check on a timer that does not keep the process alive; `stop` ends it. */
export function scheduleExpiryChecks(options: ExpiryScheduleOptions): { stop(): Promise<void> } {
  const check = () =>
    checkCertificateExpiry(options.em(), options.now())
      .then((raised) => {
        if (raised > 0) options.logger.info({ raised }, 'certificate expiry alerts raised');
      })
      .catch((error: unknown) => options.logger.error({ err: error }, 'certificate expiry check failed'));
  return runPeriodically(check, options.firstDelayMs ?? 60_000, options.intervalMs ?? dayMs);
}
