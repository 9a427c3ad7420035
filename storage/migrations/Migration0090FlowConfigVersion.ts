/**
 * A version of what routing reads (organizations, partners, routes), so an acceptance can plan
 * from what its process remembers and check in its one statement that nothing changed since
 * (runtime/dispatch/flow-config.ts), instead of reading parties and routes before every batch.
 *
 * The number changes in the transaction that changes any of the three tables, by a deferred
 * row trigger: it runs at commit, after everything else the transaction locks, so the row lock
 * it takes can never close a circle of waits between two transactions that edit routes and
 * partners in different orders. TRUNCATE has no row trigger and gets a statement one. The first
 * value is random: a database created again from nothing does not restart at a number a running
 * process may remember.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0090FlowConfigVersion extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table flow_config_version (
        only_row boolean primary key default true check (only_row),
        n bigint not null
      );
      insert into flow_config_version (n) values ((random() * 1e15)::bigint);
      create function flow_config_changed() returns trigger language plpgsql as $$
      begin
        update flow_config_version set n = n + 1;
        return null;
      end $$;`);
    for (const table of ['organization', 'partner', 'route']) {
      this.addSql(`
        create constraint trigger ${table}_flow_config after insert or update or delete on ${table}
          deferrable initially deferred for each row execute function flow_config_changed();
        create trigger ${table}_flow_config_truncate after truncate on ${table}
          for each statement execute function flow_config_changed();`);
    }
  }

  override async down(): Promise<void> {
    for (const table of ['organization', 'partner', 'route']) {
      this.addSql(`drop trigger ${table}_flow_config on ${table};
                   drop trigger ${table}_flow_config_truncate on ${table};`);
    }
    this.addSql(`drop function flow_config_changed(); drop table flow_config_version;`);
  }
}
