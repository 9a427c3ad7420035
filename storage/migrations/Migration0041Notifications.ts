/**
 * The notification log (docs/api/notifications.md, docs/api/lifecycles.md#notification-outcome): one row per alert and notifier, with its outcome.
 * `send_after` holds an alert back until its group window ends; `claimed_until` is the lease
 * of the process sending it; `grouped_into` names the row whose notification carried it.
 * Alerts gain `occurrence`, the cause they describe, so a cause several processes see is
 * raised once in the cluster.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0041Notifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table alert add column occurrence text not null default '';
      create index alert_occurrence on alert (occurrence, raised_at);
      create index alert_raised_at_id on alert (raised_at desc, id desc);

      create table notification (
        id bigserial primary key,
        alert_id bigint not null references alert (id) on delete cascade,
        instance varchar(64) not null,
        format varchar(16) not null,
        test boolean not null default false,
        outcome varchar(24) not null
          check (outcome in ('queued', 'delivered', 'failed', 'suppressed_cooldown', 'grouped')),
        attempts integer not null default 0,
        last_error text,
        created_at timestamptz not null,
        delivered_at timestamptz,
        send_after timestamptz not null,
        claimed_until timestamptz,
        grouped_into bigint references notification (id) on delete set null
      );
      create index notification_alert on notification (alert_id);
      create index notification_due on notification (instance, send_after) where outcome = 'queued';
      create index notification_recent on notification (instance, created_at);
    `);
  }
}
