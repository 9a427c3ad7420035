/**
 * The multi-host DATABASE_URL each ORM was opened with (for pools made beside it), kept apart
 * from db.ts so that what reads it (flow-connections.ts, loaded by every actor thread) does not
 * load MikroORM with it: an actor thread opens no ORM, and MikroORM with knex and lodash is about
 * 600 of the thousand modules such a thread loaded.
 */
// The ORM's type alone (erased when compiled): db.ts's alias of it would make an import cycle.
import type { MikroORM as Orm } from '@mikro-orm/postgresql';

const failoverUrls = new WeakMap<Orm, string>();

export function rememberFailoverUrl(orm: Orm, url: string): void {
  failoverUrls.set(orm, url);
}

export function failoverUrlOf(orm: Orm): string | undefined {
  return failoverUrls.get(orm);
}
