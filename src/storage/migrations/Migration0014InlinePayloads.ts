/**
 * Small payload stages kept in the row that records them (storage/payloads/inline.ts).
 * Stored uncompressed out of line (EXTERNAL): compressing every row would cost the database
 * CPU on the message path, and encrypted bodies do not shrink.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0014InlinePayloads extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table payload add column content bytea;
      alter table payload alter column content set storage external;
    `);
  }
}
