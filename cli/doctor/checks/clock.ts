/**
 * Clock skew against the database. Every process of a cluster judges due retries, claim
 * deadlines and receipt timeouts by its own clock against times others wrote, so a clock
 * that is off makes work late or early. Half the round trip is the uncertainty.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { databaseClock } from '../../../storage/queries/doctor.js';
import { failed, passed, type CheckResult } from '../checklist.js';
import { limits } from '../../../limits/limits.js';

const id = 'clock';
const title = 'Clock agrees with the database';

export async function checkClock(em: EntityManager, now: () => Date): Promise<CheckResult> {
  const before = now().getTime();
  const theirs = (await databaseClock(em)).getTime();
  const after = now().getTime();
  const skew = (theirs - (before + after) / 2) / 1000;
  const words = `this machine's clock is ${Math.abs(skew).toFixed(1)} s ${skew > 0 ? 'behind' : 'ahead of'} the database's (±${((after - before) / 2000).toFixed(1)} s)`;
  if (Math.abs(skew) <= limits.maxClockSkewSeconds) return passed(id, title, words);
  return failed(
    id,
    title,
    `${words}, more than the ${limits.maxClockSkewSeconds} s allowed`,
    'Synchronise the clocks of this machine and of the database server with NTP ' +
      '(`timedatectl set-ntp true`, chrony or ntpd), then run pier doctor again',
  );
}
