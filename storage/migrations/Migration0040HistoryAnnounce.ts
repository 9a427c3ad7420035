/**
 * Every process's event stream hears of new history lines, whichever process wrote them: a
 * statement trigger NOTIFYs `pier_history` with the ids it inserted as ranges (`12-40,45-45`),
 * never the rows, so a payload stays far below PostgreSQL's 8000-byte limit whatever the
 * batch. The listener reads the rows itself. A trigger (not the writers) so that no path that
 * writes history, today's or a later one, can forget to announce it.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0040HistoryAnnounce extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function pier_history_announce() returns trigger language plpgsql as $$
      begin
        -- Runs of consecutive ids, 150 runs per notification (at most about 6000 bytes).
        perform pg_notify('pier_history', string_agg(lo || '-' || hi, ',' order by lo))
           from (select lo, hi, (row_number() over (order by lo) - 1) / 150 as chunk
                   from (select min(id) as lo, max(id) as hi
                           from (select id, id - row_number() over (order by id) as run from added) ids
                          group by run) runs) chunks
          group by chunk;
        return null;
      end $$;
      create trigger message_history_announce after insert on message_history
        referencing new table as added for each statement execute function pier_history_announce();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger message_history_announce on message_history;
                 drop function pier_history_announce();`);
  }
}
