/** Alerts raised by the runtime (plugin_failed, delivery_stalled, certificate expiry, …). */
import { Migration } from '@mikro-orm/migrations';

export class Migration0002Alerts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table alert (
        id bigserial primary key,
        code varchar(64) not null,
        severity varchar(16) not null check (severity in ('info', 'warning', 'critical')),
        subject_kind varchar(64) not null,
        subject_id varchar(128) not null,
        subject_name text not null,
        summary text not null,
        details jsonb not null default '{}'::jsonb,
        dedupe_key text not null,
        link text not null default '',
        instance text not null default '',
        raised_at timestamptz not null default now()
      );
      create index alert_raised_at on alert (raised_at);
      create index alert_dedupe on alert (dedupe_key, raised_at);
    `);
  }
}
