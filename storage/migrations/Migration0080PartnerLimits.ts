/**
 * A partner's own message size limit: the receiver refuses a larger body before
 * reading it when Content-Length says so. Null, the value of every existing profile, keeps the
 * receiver's max_message_mib as the only limit.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0080PartnerLimits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table as2_remote_profile add column max_message_mib integer null`);
  }
}
