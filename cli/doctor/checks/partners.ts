/**
 * Each AS2 partner's endpoint reachable: the partner page's connection check (certificates,
 * name, TCP, TLS, HTTP), run here in the doctor's process with the AS2 sender's probes, since
 * the doctor works while the server is stopped. A few partners are checked at a time.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { checkConnection } from '../../../actors/as2-sender/check-connection.js';
import { loadSettings } from '../../../api/resources/settings/service.js';
import { identification, reachOfPartner, type SecretBox } from '../../../runtime/index.js';
import type { Orm } from '../../../storage/db.js';
import { as2Partners } from '../../../storage/queries/doctor.js';
import { failed, passed, type CheckResult } from '../checklist.js';
import { limits } from '../../../limits/limits.js';

const id = 'partners';
const title = 'AS2 partners reachable';

export async function checkPartners(orm: Orm, secrets: SecretBox, now: Date): Promise<CheckResult> {
  const em = orm.em.fork() as EntityManager;
  const partners = await as2Partners(em);
  if (partners.length === 0) return passed(id, title, 'no partner has an AS2 profile');
  const userAgent = identification((await loadSettings(em)).identification_hide_version);
  const problems: string[] = [];
  const queue = [...partners];
  const worker = async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      try {
        const reach = await reachOfPartner(orm, secrets, p.id);
        if (!reach) continue;
        const answer = await checkConnection({
          endpoint: reach.endpoint,
          certificates: reach.certificates,
          tls: reach.tls,
          headers: { 'User-Agent': userAgent, ...reach.headers },
          now,
          timeoutMs: limits.partnerStepTimeoutMs,
        });
        if (!answer.ok) problems.push(`${p.name} (${p.endpoint}): ${answer.problem ?? 'failed'}`);
      } catch (error) {
        problems.push(`${p.name} (${p.endpoint}): ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limits.partnerChecksAtOnce, partners.length) }, worker));
  problems.sort();
  if (problems.length === 0) {
    return passed(
      id,
      title,
      `${partners.length} partner${partners.length === 1 ? '' : 's'} answered: ${partners.map((p) => p.name).join(', ')}`,
    );
  }
  return failed(
    id,
    title,
    `${problems.length} of ${partners.length} partners cannot be reached`,
    'Check the endpoint in the partner’s AS2 profile, the way there (DNS, firewall, proxy) and the TLS trust; ' +
      'the partner page’s connection check (web UI: Partners) shows each step, and the partner may be down',
    problems,
  );
}
