/**
 * Certificate exchanges (CEM, docs/partner-setup.md "Renewing certificates with CEM"): one row
 * per request sent to or received from a partner, one per certificate it carries with that
 * certificate's usages and answer, and each partner's policy for answering requests.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0130CertificateExchange extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table cem_exchange (
        id serial primary key,
        -- outbound: pier asked the partner to take our certificate; inbound: the partner asked us
        direction varchar(8) not null check (direction in ('inbound', 'outbound')),
        partner_id integer not null references partner (id) on delete cascade,
        organization_id integer not null references organization (id) on delete cascade,
        request_id text not null,
        respond_by timestamptz not null,
        -- the AS2 messages that carried the request and the response
        request_message_id uuid,
        response_message_id uuid,
        answered_at timestamptz,
        answered_by text,
        -- inbound: when the partner's profile switched to the accepted certificates
        switched_at timestamptz,
        -- outbound: when the alert that the partner has not answered was raised
        overdue_alerted_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        unique (direction, partner_id, request_id)
      );
      create index cem_exchange_due on cem_exchange (respond_by)
        where switched_at is null and overdue_alerted_at is null;

      create table cem_exchange_certificate (
        id serial primary key,
        exchange_id integer not null references cem_exchange (id) on delete cascade,
        position integer not null,
        -- null once the certificate was deleted; its name and serial stay for the record
        certificate_id integer references certificate (id) on delete set null,
        certificate_name text not null,
        issuer text not null,
        serial_decimal text not null,
        usages text[] not null,
        answer varchar(8) not null default 'pending' check (answer in ('pending', 'accepted', 'rejected')),
        reason text,
        -- inbound: the partner profile fields pier added the certificate to on arrival, so a
        -- rejection takes it out of those only
        added_fields text[] not null default '{}',
        unique (exchange_id, position)
      );
      create index cem_exchange_certificate_certificate on cem_exchange_certificate (certificate_id);

      create table cem_partner_policy (
        partner_id integer primary key references partner (id) on delete cascade,
        policy varchar(8) not null check (policy in ('manual', 'accept', 'reject')),
        updated_at timestamptz not null
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql(
      'drop table cem_partner_policy; drop table cem_exchange_certificate; drop table cem_exchange;',
    );
  }
}
