/**
 * The stages `pier storage migrate` has copied to another store and verified there, by
 * target, so an interrupted copy resumes where it stopped (storage/payloads/copy-stages.ts).
 * Independent of other migrations: a new table only.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0060StorageCopies extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table storage_copy (
        target text not null,
        message_id uuid not null references message (id) on delete cascade,
        stage varchar(16) not null,
        size_bytes bigint not null,
        sha256 char(64) not null,
        copied_at timestamptz not null,
        primary key (target, message_id, stage)
      );
    `);
  }
}
