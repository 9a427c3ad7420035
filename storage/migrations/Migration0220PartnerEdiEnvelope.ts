/**
 * A partner's envelope settings for the interchanges pier builds for it (X12 version and
 * delimiters, EDIFACT syntax and delimiters, test indicator, acknowledgement requested), one
 * JSON object checked by api/schemas/edi-envelope.ts. Empty for existing partners: the defaults,
 * which are what pier wrote before.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0220PartnerEdiEnvelope extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table partner add column edi_envelope jsonb not null default '{}'::jsonb;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table partner drop column edi_envelope;`);
  }
}
