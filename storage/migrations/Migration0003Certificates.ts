/**
 * The certificate store (docs/api/certificates.md), pending imports (3.7) and AS2 profiles (2.5). Profiles
 * name certificates through one table, so "who uses this certificate" is one query and the
 * database itself refuses to delete a certificate still in use.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0003Certificates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table certificate (
        id serial primary key,
        description text not null default '',
        sha256 char(64) not null unique,
        sha1 char(40) not null,
        der bytea not null,
        common_name text not null,
        subject text not null,
        issuer text not null,
        serial_number varchar(128) not null,
        not_before timestamptz not null,
        not_after timestamptz not null,
        key_algorithm varchar(32) not null,
        key_size integer not null,
        key_curve varchar(32) not null default '',
        signature_algorithm varchar(64) not null,
        key_usage jsonb not null default '[]'::jsonb,
        extended_key_usage jsonb not null default '[]'::jsonb,
        subject_alt_names jsonb not null default '[]'::jsonb,
        is_ca boolean not null,
        self_signed boolean not null,
        -- PKCS#8 DER sealed by the secret box (AES-256-GCM); null without a key.
        private_key text,
        private_key_matches boolean not null default false,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index certificate_not_after on certificate (not_after);

      create table certificate_import (
        id serial primary key,
        -- SHA-256 of the import token; the token itself is only in the upload's answer.
        token_hash char(64) not null unique,
        actor text not null,
        -- What the upload found, keys included, sealed by the secret box.
        contents text not null,
        expires_at timestamptz not null,
        created_at timestamptz not null default now()
      );
      create index certificate_import_expires on certificate_import (expires_at);

      create table as2_local_profile (
        organization_id integer primary key references organization (id) on delete cascade,
        as2id varchar(128) not null unique,
        async_mdn_url text not null default '',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );

      create table as2_remote_profile (
        partner_id integer primary key references partner (id) on delete cascade,
        as2id varchar(128) not null unique,
        endpoint text not null,
        signing_algorithm varchar(16) not null,
        encryption_algorithm varchar(16) not null,
        compression boolean not null,
        mdn_mode varchar(8) not null,
        mdn_signed boolean not null,
        receipt_timeout_hours integer not null check (receipt_timeout_hours between 1 and 720),
        http_basic_user text not null default '',
        -- Write-only values, sealed by the secret box; null when not set.
        http_basic_password text,
        http_headers text,
        tls_verify boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );

      create table as2_profile_certificate (
        id serial primary key,
        local_organization_id integer references as2_local_profile (organization_id) on delete cascade,
        business_partner_id integer references as2_remote_profile (partner_id) on delete cascade,
        field varchar(64) not null,
        position integer not null,
        certificate_id integer not null references certificate (id),
        check ((local_organization_id is null) <> (business_partner_id is null))
      );
      create index as2_profile_certificate_certificate on as2_profile_certificate (certificate_id);
      create index as2_profile_certificate_local on as2_profile_certificate (local_organization_id);
      create index as2_profile_certificate_remote on as2_profile_certificate (business_partner_id);
    `);
  }
}
