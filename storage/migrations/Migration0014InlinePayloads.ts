/**
 * Small payload stages kept in the row that records them (storage/payloads/inline.ts).
 * Compressed with lz4 where the server has it: EDI text shrinks to a fraction, often small
 * enough to stay in the row itself, and lz4 costs the database less CPU than its default
 * (pglz) or than splitting the bytes uncompressed into TOAST chunks (measured in
 * benchmarks/history/2026-11-21-as2-loopback-results.md). A server built without lz4 keeps its default.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0014InlinePayloads extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table payload add column content bytea;
      do $$ begin
        alter table payload alter column content set compression lz4;
      exception when feature_not_supported then null;
      end $$;
    `);
  }
}
