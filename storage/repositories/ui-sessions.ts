/**
 * Web UI sessions, each a row keyed by the SHA-256 of its cookie value. Times are the
 * database's own (now()), so every process judges expiry by one clock.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

interface SessionRow {
  id: number;
  name: string;
  role: string;
  /** Last seen longer ago than the touch interval: its last_seen_at is due to be written. */
  stale: boolean;
}

/**
 * The enabled user of a session that has neither expired nor been idle for `idleSeconds`;
 * `stale` when it was last seen more than `touchSeconds` ago.
 */
export async function sessionUser(
  em: EntityManager,
  sessionHash: string,
  limits: { idleSeconds: number; touchSeconds: number },
): Promise<SessionRow | undefined> {
  const [row] = await em.getConnection().execute<SessionRow[]>(
    `select u.id, u.name, u.role, s.last_seen_at < now() - make_interval(secs => ?) as stale
       from ui_session s join app_user u on u.id = s.user_id
      where s.id = ? and u.enabled and s.expires_at > now()
        and s.last_seen_at > now() - make_interval(secs => ?)`,
    [limits.touchSeconds, sessionHash, limits.idleSeconds],
  );
  return row;
}

/** Notes that the session was used now. */
export async function touchSession(em: EntityManager, sessionHash: string): Promise<void> {
  await em.getConnection().execute('update ui_session set last_seen_at = now() where id = ?', [sessionHash]);
}

export async function deleteSession(em: EntityManager, sessionHash: string): Promise<void> {
  await em.getConnection().execute('delete from ui_session where id = ?', [sessionHash]);
}

/**
 * A new session of the user, ending `lifetimeSeconds` from now, with the user's sign-in time;
 * sessions that expired or were idle longer than `idleSeconds` are swept here, where sessions
 * are made, instead of by a timer.
 */
export async function createSession(
  em: EntityManager,
  sessionHash: string,
  userId: number,
  limits: { lifetimeSeconds: number; idleSeconds: number },
): Promise<void> {
  const conn = em.getConnection();
  await conn.execute(
    `insert into ui_session (id, user_id, expires_at) values (?, ?, now() + make_interval(secs => ?))`,
    [sessionHash, userId, limits.lifetimeSeconds],
  );
  await conn.execute('update app_user set last_sign_in_at = now() where id = ?', [userId]);
  await conn.execute(
    'delete from ui_session where expires_at < now() or last_seen_at < now() - make_interval(secs => ?)',
    [limits.idleSeconds],
  );
}
