/**
 * Finding a message by partner in the search box (GET /messages?q=): the start of either
 * party's name, one index lookup each, as Migration0030MessageSearch does for file names.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0141MessagePartySearch extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index message_from_party_search on message (from_party text_pattern_ops);
      create index message_to_party_search on message (to_party text_pattern_ops);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop index message_from_party_search; drop index message_to_party_search;');
  }
}
