/**
 * `partner_unreachable` and its end (docs/alerts.md): a target's partner that fails attempts the way
 * an unreachable one does (the targets tell each, actors/shared/reach-teller.ts) is alerted after
 * `unreachable_alert_attempts` failures in a row or `unreachable_alert_seconds` after the first,
 * whichever comes first, instead of when a delivery runs out of retries hours later; the first
 * success ends it. The count lives in this process: each process counts its own attempts, and the
 * alert table makes the alert one in the cluster (flow/alerts/alerts.ts), its end too.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { unreachableAlertDefaults } from '../../actors/shared/fields.js';
import { raiseAlert, type AlertInput } from '../../flow/alerts/alerts.js';
import { alertLinks } from '../../flow/alerts/links.js';
import type { Orm } from '../../storage/db.js';
import type { InstanceRef } from '../supervisor/core-port.js';
import { inEntityTx } from '../../storage/sql.js';

export interface PartnerAlertDeps {
  orm: Orm;
  now: () => Date;
  logger: Logger;
}

/** A partner failing as seen from one instance. */
interface Failing {
  attempts: number;
  since: Date;
  lastError: string;
  timer?: NodeJS.Timeout;
  raised: boolean;
}

const setting = (ref: InstanceRef, key: keyof typeof unreachableAlertDefaults): number => {
  const value = ref.settings[key];
  return typeof value === 'number' ? value : unreachableAlertDefaults[key];
};

export class PartnerAlerts {
  readonly #failing = new Map<string, Failing>();
  /** Alerts of one partner are raised one at a time, so an end never overtakes its failure. */
  readonly #turns = new Map<string, Promise<void>>();
  #closed = false;

  constructor(private readonly deps: PartnerAlertDeps) {}

  /** What the supervisor calls with a target's `reach` event. */
  report(ref: InstanceRef, ok: boolean, partner?: string, error = ''): void {
    if (this.#closed) return;
    const key = `${ref.type}:${ref.name}:${partner ?? ''}`;
    const failing = this.#failing.get(key);
    if (ok) {
      clearTimeout(failing?.timer);
      this.#failing.delete(key);
      // Raised whether or not this process saw the failure: nothing is raised when none stands.
      this.#turn(key, () => this.#raise(ref, partner, 'partner_reachable', failing));
      return;
    }
    const now = this.deps.now();
    const f = failing ?? { attempts: 0, since: now, lastError: '', raised: false };
    f.attempts += 1;
    f.lastError = error;
    this.#failing.set(key, f);
    if (f.raised) return;
    if (f.attempts >= setting(ref, 'unreachable_alert_attempts')) {
      this.#unreachable(key, ref, partner, f);
      return;
    }
    if (!f.timer) {
      const waitMs = setting(ref, 'unreachable_alert_seconds') * 1000 - (now.getTime() - f.since.getTime());
      f.timer = setTimeout(() => this.#unreachable(key, ref, partner, f), Math.max(0, waitMs));
      f.timer.unref();
    }
  }

  #unreachable(key: string, ref: InstanceRef, partner: string | undefined, f: Failing): void {
    clearTimeout(f.timer);
    f.timer = undefined;
    // Ended meanwhile (a success), or stopped: nothing to raise.
    if (this.#closed || this.#failing.get(key) !== f || f.raised) return;
    f.raised = true;
    this.#turn(key, () => this.#raise(ref, partner, 'partner_unreachable', f));
  }

  #turn(key: string, work: () => Promise<void>): void {
    const next = (this.#turns.get(key) ?? Promise.resolve()).then(work);
    this.#turns.set(key, next);
    void next.finally(() => {
      if (this.#turns.get(key) === next) this.#turns.delete(key);
    });
  }

  async #raise(
    ref: InstanceRef,
    partner: string | undefined,
    code: 'partner_unreachable' | 'partner_reachable',
    f: Failing | undefined,
  ): Promise<void> {
    const instance = `${ref.type}:${ref.name}`;
    const em = this.deps.orm.em.fork() as EntityManager;
    try {
      const subject = await subjectOf(em, ref, partner);
      const who = partner ? `Partner ${partner} (${instance})` : `The partner of ${instance}`;
      const alert: AlertInput =
        code === 'partner_unreachable'
          ? {
              ...subject,
              code,
              summary:
                `${who} cannot be reached: ${f!.attempts} attempt${f!.attempts === 1 ? '' : 's'} failed ` +
                `in a row since ${f!.since.toISOString()}; last: ${f!.lastError}`,
              details: {
                instance,
                ...(partner ? { partner } : {}),
                failed_attempts: f!.attempts,
                failing_since: f!.since.toISOString(),
                last_error: f!.lastError,
              },
              instance,
            }
          : {
              ...subject,
              code,
              summary: `${who} can be reached again: a delivery succeeded`,
              details: { instance, ...(partner ? { partner } : {}) },
              instance,
            };
      const id = await raiseAlert(em, alert, this.deps.now());
      if (code === 'partner_unreachable')
        this.deps.logger.warn({ instance, partner, alert_id: id }, alert.summary);
      else if (id > 0 && f?.raised) this.deps.logger.info({ instance, partner, alert_id: id }, alert.summary);
    } catch (error) {
      this.deps.logger.error({ err: error, instance, partner }, `could not raise the ${code} alert`);
    }
  }

  /** Stops the clocks; alerts being raised finish. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const f of this.#failing.values()) clearTimeout(f.timer);
    this.#failing.clear();
    await Promise.all([...this.#turns.values()]);
  }
}

/** An AS2 partner's page (its profile holds the endpoint), or the instance's for an HTTP poster. */
async function subjectOf(em: EntityManager, ref: InstanceRef, partner: string | undefined) {
  if (!partner)
    return {
      subject_kind: 'plugin-instance',
      subject_id: `${ref.type}:${ref.name}`,
      subject_name: ref.name,
      link: alertLinks.instance(ref.type, ref.name),
    };
  const [row] = await inEntityTx(em).all<{ id: number }>('select id from partner where name = ?', [partner]);
  return {
    subject_kind: 'partner',
    subject_id: partner,
    subject_name: partner,
    link: row ? alertLinks.partnerProfile(row.id) : alertLinks.instance(ref.type, ref.name),
  };
}
