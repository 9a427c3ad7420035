/**
 * The runtime's tables: plugin configurations, routes, and the message flow (messages,
 * deliveries, history lines, payload stages).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0004Runtime extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table plugin_config (
        id serial primary key,
        type varchar(32) not null,
        name varchar(64) not null,
        enabled boolean not null default true,
        settings jsonb not null default '{}'::jsonb,
        -- write-only values, each sealed by the secret box; never returned by the API
        secrets jsonb not null default '{}'::jsonb,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      -- names are unique across all types, compared without regard to case (docs/api/plugin-configs.md)
      create unique index plugin_config_name on plugin_config (lower(name));

      create table route (
        id serial primary key,
        name varchar(64) not null unique,
        source_plugin varchar(64) not null,
        from_party varchar(64) not null,
        to_party varchar(64) not null,
        target_plugin varchar(64) not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index route_source on route (source_plugin);

      create table message (
        id uuid primary key,
        status varchar(16) not null,
        stage varchar(16) not null check (stage in ('accepted', 'dispatched', 'settled')),
        direction varchar(8) not null check (direction in ('inbound', 'outbound')),
        from_party varchar(255) not null,
        to_party varchar(255) not null,
        file_name text not null,
        source_type varchar(32) not null,
        source_name varchar(64) not null,
        -- what makes a source's message unique (a file poller's file), so a source that
        -- offers the same thing again after a crash gets the message it already has
        source_key text,
        -- the target named by a message sent by hand
        target_hint varchar(64),
        -- why the source refused the message (status Refused); null when it did not
        refusal text,
        -- the pier process (node) that accepted it
        accepted_by integer not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create unique index message_source_key on message (source_name, source_key) where source_key is not null;
      create index message_created on message (created_at desc, id);
      create index message_status on message (status, created_at desc);
      create index message_accepted on message (created_at) where stage = 'accepted';

      create table delivery (
        id bigserial primary key,
        message_id uuid not null references message (id) on delete cascade,
        target varchar(64) not null,
        state varchar(16) not null,
        attempts integer not null default 0,
        -- how often the delivery was claimed; the claim's number is its token
        claims integer not null default 0,
        claimed_by integer,
        claimed_at timestamptz,
        -- announcements of a queued delivery, and when the next one (or the stall) is due
        dispatches integer not null default 0,
        next_dispatch_at timestamptz,
        next_attempt_at timestamptz,
        last_error text not null default '',
        created_at timestamptz not null,
        updated_at timestamptz not null,
        finished_at timestamptz
      );
      create unique index delivery_message_target on delivery (message_id, target);
      create index delivery_queued on delivery (target, id) where state = 'queued';
      create index delivery_dispatch_due on delivery (next_dispatch_at) where state = 'queued';
      create index delivery_retry_due on delivery (next_attempt_at) where state = 'retrying';
      create index delivery_delivering on delivery (claimed_by) where state = 'delivering';

      create table message_history (
        id bigserial primary key,
        message_id uuid not null references message (id) on delete cascade,
        created_at timestamptz not null,
        kind varchar(32) not null,
        old_status varchar(16),
        new_status varchar(16),
        text text,
        delivery_id bigint,
        target varchar(64),
        old_state varchar(16),
        new_state varchar(16)
      );
      create index message_history_message on message_history (message_id, id);
      create index message_history_failed on message_history (created_at)
        where kind = 'status_changed' and new_status in ('Error', 'Stalled');

      create table payload (
        message_id uuid not null references message (id) on delete cascade,
        stage varchar(16) not null,
        size_bytes bigint not null,
        stored_at timestamptz not null,
        primary key (message_id, stage)
      );
    `);
  }
}
