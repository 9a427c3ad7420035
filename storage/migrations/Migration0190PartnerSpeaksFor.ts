/**
 * The partners a partner may send interchanges for (a hub, a VAN, a parent company): an
 * interchange whose envelope names another partner as its sender is taken as from that partner
 * only when the partner that sent it lists it here. Empty by default: a partner speaks for itself.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0190PartnerSpeaksFor extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table partner add column speaks_for jsonb not null default '[]'::jsonb;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table partner drop column speaks_for;`);
  }
}
