/**
 * Service actions that hold across processes and restarts (docs/decisions/service-actions-across-processes-and-restarts.md): the last operator action on an instance is kept with its configuration, with a
 * sequence number every process follows; each process reports its own instances' states.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0020ServiceActions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table plugin_config
        add column service_action text check (service_action in ('start', 'stop', 'restart')),
        add column service_action_seq integer not null default 0;
      create table service_state (
        node_id integer not null,
        type varchar(32) not null,
        name varchar(64) not null,
        status text not null,
        error text,
        state_since timestamptz not null,
        restart_needed boolean not null default false,
        primary key (node_id, type, name)
      );
    `);
  }
}
