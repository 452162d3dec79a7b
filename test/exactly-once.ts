/**
 * @module test/exactly-once — what the fault tests (test/syncs.test.ts, test/actions.test.ts,
 * test/process-faults.test.ts, test/prod-shape.ts) count to show that a fault made nothing happen twice.
 *
 * Outcomes cannot show it: the records upsert skips a record whose content did not change and the
 * Metabase fake's data never changes on its own, so a page saved twice still reads `ADDED`; the
 * fake refuses a second user with the same e-mail, so the user count is 1 however often the
 * action POSTed. So the fake's data changes at the fault (a page saved before it and again after
 * it then reads UPDATED), and the writes are counted where they arrive: the POSTs at the fake and
 * the action's run rows.
 */
import type { Queryable } from '../lib/db/pool.js';
import type { MetabaseFake } from './fakes/index.js';

/** Changes every user's last name at the fake; the order of its pages (by first name) stays. */
export function renameEveryUser(fake: MetabaseFake): void {
  for (const u of fake.state.users) u.last_name = `${u.last_name ?? ''} (renamed at the fault)`;
}

/** How many User records of the connection were written again after their first save. */
export async function rewrittenUsers(db: Queryable, connectionId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM records r JOIN connections c ON c.id = r.connection_pk
     WHERE c.connection_id = $1 AND r.model = 'User' AND r.last_action <> 'ADDED'`,
    [connectionId],
  );
  return rows[0]!.n;
}

/** The statuses the fake answered to every POST /api/user for this e-mail, in order (0: no answer yet). */
export function userPosts(fake: MetabaseFake, email: string): number[] {
  return fake.requests.filter((r) => r.method === 'POST' && r.path === '/api/user' && r.body.includes(email)).map((r) => r.status);
}

/** How many action runs were recorded for this e-mail (one request, one run). */
export async function actionRunsFor(db: Queryable, email: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM action_runs WHERE input->>'email' = $1`, [email]);
  return rows[0]!.n;
}
