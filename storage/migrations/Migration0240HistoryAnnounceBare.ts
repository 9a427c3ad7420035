/**
 * The history announcement without its ids: the feed never read them (it reads the table up to
 * the settled mark, runtime/events/history-feed.ts), and working them out (runs of consecutive
 * ids, two windows, a sort and string_agg over the statement's new rows) cost PostgreSQL about
 * 0.1 ms of every acceptance and every results statement, 2-6 % of its CPU per message
 * (benchmarks/history/2026-11-29-the-history-announcement-without-its-ids.md). A statement that
 * inserted no line announces nothing, as before.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0240HistoryAnnounceBare extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create or replace function pier_history_announce() returns trigger language plpgsql as $$
      begin
        if exists (select from added) then
          perform pg_notify('pier_history', '');
        end if;
        return null;
      end $$;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      create or replace function pier_history_announce() returns trigger language plpgsql as $$
      begin
        perform pg_notify('pier_history', string_agg(lo || '-' || hi, ',' order by lo))
           from (select lo, hi, (row_number() over (order by lo) - 1) / 150 as chunk
                   from (select min(id) as lo, max(id) as hi
                           from (select id, id - row_number() over (order by id) as run from added) ids
                          group by run) runs) chunks
          group by chunk;
        return null;
      end $$;
    `);
  }
}
