/**
 * Control numbers of the interchanges pier builds, per partner, direction and level (interchange:
 * X12 ISA13 / EDIFACT UNB 0020; group: GS06 / UNG 0048; set: ST02 / UNH 0062). One row per
 * counter holds the last number given; a number is taken by an update of its row inside the
 * transaction that stores the message, so two nodes never take the same one and a rolled-back
 * transaction gives its number back (flow/commands/control-numbers.ts).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0210EdiControlNumbers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table edi_control_number (
      partner_id integer not null references partner (id) on delete cascade,
      direction varchar(8) not null check (direction in ('outbound', 'inbound')),
      level varchar(16) not null check (level in ('interchange', 'group', 'set')),
      last_value bigint not null default 0 check (last_value >= 0),
      updated_at timestamptz not null default now(),
      primary key (partner_id, direction, level)
    );`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table edi_control_number;`);
  }
}
