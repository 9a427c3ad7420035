/**
 * Routing by the EDI envelope and functional acknowledgements (docs/partner-setup.md, "EDI
 * routing and acknowledgements"):
 *
 * - the interchange ids of organizations and partners (id plus qualifier, several per party),
 *   kept on the party row so the flow_config_version triggers already there announce a change
 *   to every process's routing memory;
 * - each partner's acknowledgement settings: which acknowledgement pier sends for the X12 and
 *   EDIFACT interchanges it receives, and how long pier waits for the partner's;
 * - a route's document type (`*` for any);
 * - the envelope of each message whose payload is an interchange, with what became of its
 *   acknowledgement, and the control numbers pier gives its own acknowledgements.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0120EdiEnvelopes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table organization add column interchange_ids jsonb not null default '[]';
      alter table partner add column interchange_ids jsonb not null default '[]';
      alter table partner add column x12_acknowledgement varchar(8) not null default 'none'
        check (x12_acknowledgement in ('none', '997', '999'));
      alter table partner add column edifact_acknowledgement varchar(8) not null default 'none'
        check (edifact_acknowledgement in ('none', 'contrl'));
      alter table partner add column acknowledgement_due_hours integer not null default 0
        check (acknowledgement_due_hours between 0 and 720);
      alter table route add column document_type varchar(16) not null default '*';

      create table edi_interchange (
        message_id uuid primary key references message (id) on delete cascade,
        standard varchar(8) not null check (standard in ('x12', 'edifact')),
        version varchar(16) not null,
        sender_qualifier varchar(8) not null,
        sender_id varchar(64) not null,
        receiver_qualifier varchar(8) not null,
        receiver_id varchar(64) not null,
        interchange_control varchar(35) not null,
        group_controls text[] not null,
        document_types text[] not null,
        -- work left for the acknowledgement sweep (flow/commands/edi-acks.ts): acknowledge an
        -- inbound interchange or read it as an acknowledgement; give an outbound one its deadline
        pending boolean not null default true,
        -- outbound: expected, acknowledged, rejected, overdue; inbound: sent (pier acknowledged it)
        ack_status varchar(16) check (ack_status in ('expected', 'acknowledged', 'rejected', 'overdue', 'sent')),
        ack_due_at timestamptz,
        -- the other message: the acknowledgement received for an outbound interchange, the one sent for an inbound
        ack_message_id uuid references message (id) on delete set null,
        -- why pier could not acknowledge an inbound interchange (no acknowledgement is sent then)
        problem text
      );
      create index edi_interchange_pending on edi_interchange (message_id) where pending;
      create index edi_interchange_due on edi_interchange (ack_due_at) where ack_status = 'expected';
      create index edi_interchange_sender on edi_interchange (sender_id);
      create index edi_interchange_receiver on edi_interchange (receiver_id);
      create index edi_interchange_control on edi_interchange (interchange_control);
      create index edi_interchange_types on edi_interchange using gin (document_types);
      create index edi_interchange_groups on edi_interchange using gin (group_controls);
      create sequence edi_acknowledgement_control minvalue 1 maxvalue 999999999 cycle;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop sequence edi_acknowledgement_control;
      drop table edi_interchange;
      alter table route drop column document_type;
      alter table partner drop column acknowledgement_due_hours, drop column edifact_acknowledgement,
        drop column x12_acknowledgement, drop column interchange_ids;
      alter table organization drop column interchange_ids;`);
  }
}
