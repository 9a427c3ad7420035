/**
 * Identity (docs/identity.md): OpenID Connect providers, roles of users and service accounts, the local
 * administrator's password, and web UI sessions.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0050Identity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table oidc_provider (
        id serial primary key,
        name varchar(64) not null unique,
        display_name varchar(200) not null default '',
        enabled boolean not null default true,
        issuer_url text not null unique,
        client_id text not null default '',
        client_secret_sealed text not null default '',
        scopes text not null default 'openid profile email',
        api_scopes text not null default '',
        api_audience text not null default '',
        sign_in boolean not null default true,
        accept_tokens_without_audience boolean not null default false,
        auto_provision_role varchar(16) not null default ''
          check (auto_provision_role in ('', 'viewer', 'operator')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      alter table service_account add column role varchar(16) not null default 'admin'
        check (role in ('admin', 'operator', 'viewer'));
      alter table app_user add column role varchar(16) not null default 'viewer'
        check (role in ('admin', 'operator', 'viewer'));
      alter table app_user add column password_hash text not null default '';
      alter table app_user add column last_sign_in_at timestamptz;
      create table ui_session (
        id char(64) primary key,
        user_id integer not null references app_user (id) on delete cascade,
        created_at timestamptz not null default now(),
        last_seen_at timestamptz not null default now(),
        expires_at timestamptz not null
      );
      create index ui_session_user on ui_session (user_id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table ui_session;
      alter table app_user drop column last_sign_in_at;
      alter table app_user drop column password_hash;
      alter table app_user drop column role;
      alter table service_account drop column role;
      drop table oidc_provider;
    `);
  }
}
