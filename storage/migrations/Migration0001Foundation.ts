/** Foundation tables: parties, service accounts, API tokens, users, settings, audit log. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0001Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organization (
        id serial primary key,
        name varchar(64) not null unique,
        display_name varchar(200) not null default '',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create table partner (
        id serial primary key,
        name varchar(64) not null unique,
        display_name varchar(200) not null default '',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create table service_account (
        id serial primary key,
        name varchar(64) not null unique,
        description text not null default '',
        kind varchar(16) not null check (kind in ('local', 'federated')),
        enabled boolean not null default true,
        oidc_issuer text not null default '',
        oidc_subject text not null default '',
        last_used_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create unique index service_account_identity on service_account (oidc_issuer, oidc_subject)
        where kind = 'federated';
      create table api_token (
        id serial primary key,
        public_id char(12) not null unique,
        secret_hash char(64) not null,
        service_account_id integer not null references service_account (id) on delete cascade,
        label varchar(64) not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        last_used_at timestamptz,
        revoked_at timestamptz
      );
      create index api_token_account on api_token (service_account_id);
      create table app_user (
        id serial primary key,
        name varchar(64) not null unique,
        oidc_issuer text not null default '',
        oidc_subject text not null default '',
        enabled boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create unique index app_user_identity on app_user (oidc_issuer, oidc_subject) where oidc_issuer <> '';
      create table settings (
        id integer primary key check (id = 1),
        storage_backend varchar(16) not null default 'local',
        storage_local_directory text not null default './payloads',
        storage_s3_bucket text not null default '',
        storage_s3_region text not null default '',
        storage_s3_endpoint text not null default '',
        delivery_max_dispatches integer not null default 5,
        identification_hide_version boolean not null default false,
        updated_at timestamptz not null default now()
      );
      insert into settings (id) values (1);
      create table audit_event (
        id bigint primary key,
        v integer not null,
        at timestamptz not null,
        actor text not null,
        action varchar(32) not null,
        kind varchar(64) not null,
        record_id varchar(64) not null,
        record_name text not null,
        changes jsonb not null,
        prev_hash varchar(64) not null,
        hash varchar(64) not null
      );
      create sequence audit_event_id_seq owned by audit_event.id;
      create index audit_event_record on audit_event (kind, record_id);
      create index audit_event_at on audit_event (at);
    `);
  }
}
