/**
 * Finding a message (GET /messages?q=, direction, target): by the beginning of its file name in
 * any case, by its AS2 Message-ID, by the Message-ID of the partner's receipt, and by the
 * target of a delivery. Each is one index lookup, so the search stays fast at millions of rows.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0030MessageSearch extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index message_file_name on message (lower(file_name) text_pattern_ops);
      create index as2_message_message_id on as2_message (as2_message_id);
      create index as2_message_receipt_id on as2_message ((info -> 'mdn' ->> 'message_id'));
      create index delivery_target_message on delivery (target, message_id);
    `);
  }
}
