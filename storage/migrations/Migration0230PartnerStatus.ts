/**
 * The partner list's standing (GET /partner-status): a partner's last message each way and its
 * latest reachability alert, each one index lookup from the newest, whatever the number of
 * messages and alerts.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0230PartnerStatus extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index message_inbound_from on message (from_party, created_at desc) where direction = 'inbound';
      create index message_outbound_to on message (to_party, created_at desc) where direction = 'outbound';
      create index alert_partner_reach on alert ((details->>'partner'), raised_at desc)
        where code in ('partner_unreachable', 'partner_reachable');
    `);
  }

  override async down(): Promise<void> {
    this.addSql(
      'drop index message_inbound_from; drop index message_outbound_to; drop index alert_partner_reach;',
    );
  }
}
