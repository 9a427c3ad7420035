/**
 * What AS2 did to a message: its Message-ID and AS2 names, what protected it, the receipt
 * (shown as protocols.as2), and for messages pier sent with an asynchronous receipt, the
 * delivery waiting for it and until when.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0011As2Messages extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table as2_message (
        message_id uuid primary key references message (id) on delete cascade,
        direction varchar(8) not null check (direction in ('inbound', 'outbound')),
        as2_message_id text not null,
        as2_from text not null,
        as2_to text not null,
        -- Inbound: processed successfully, so a resend is a duplicate. Outbound: receipt positive.
        processed boolean,
        info jsonb not null default '{}'::jsonb,
        awaiting_delivery_id bigint,
        receipt_due_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index as2_message_inbound on as2_message (as2_from, as2_message_id) where direction = 'inbound';
      create index as2_message_outbound on as2_message (as2_message_id) where direction = 'outbound';
      create index as2_message_due on as2_message (receipt_due_at) where receipt_due_at is not null;
    `);
  }
}
