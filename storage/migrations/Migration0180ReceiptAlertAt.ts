/**
 * When a missing asynchronous receipt raises receipts_missing for its partner: minutes after
 * the post (the AS2 sender's receipt_alert_minutes), long before the receipt timeout's hours.
 * Null once raised, settled, or when the sender leaves it to the timeout.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0180ReceiptAlertAt extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table as2_message add column receipt_alert_at timestamptz;`);
    this.addSql(
      `create index as2_message_alert on as2_message (receipt_alert_at) where receipt_alert_at is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index as2_message_alert;`);
    this.addSql(`alter table as2_message drop column receipt_alert_at;`);
  }
}
