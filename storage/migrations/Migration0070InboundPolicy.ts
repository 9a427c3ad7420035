/**
 * What pier accepts from a partner, separate from what it sends (docs/interop.md):
 * a signature and encryption `required` or `optional`, and `any` or only `modern` algorithms.
 * New profiles are secure by default; existing ones keep today's behaviour, where the outbound
 * signing_algorithm and encryption_algorithm also decided what was accepted (`none` meant
 * optional) and every algorithm was read.
 */
import { Migration } from '@mikro-orm/migrations';

/** The statements, in order; a test replays them on rows written before the columns existed. */
export const inboundPolicyStatements = [
  `alter table as2_remote_profile
     add column inbound_signature varchar(16) not null default 'required',
     add column inbound_encryption varchar(16) not null default 'required',
     add column inbound_algorithms varchar(16) not null default 'any'`,
  `update as2_remote_profile set inbound_signature = 'optional' where signing_algorithm = 'none'`,
  `update as2_remote_profile set inbound_encryption = 'optional' where encryption_algorithm = 'none'`,
];

export class Migration0070InboundPolicy extends Migration {
  override async up(): Promise<void> {
    for (const statement of inboundPolicyStatements) this.addSql(statement);
  }
}
