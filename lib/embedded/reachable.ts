/**
 * @module embedded/reachable — whether a user can reach a folder: search (x) permission on every
 * folder on the way, by the owner, group and other bits. As root, the embedded PostgreSQL runs as
 * the `postgres` user, which cannot reach a data folder under e.g. /root (mode 700).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';

export interface User {
  uid: number;
  gids: number[];
}

type Stat = (p: string) => Promise<{ uid: number; gid: number; mode: number }>;

/** The first existing folder on the way to `target` (itself included) that `user` cannot enter, or null. */
export async function firstUnreachable(target: string, user: User, statOf: Stat = stat): Promise<string | null> {
  if (user.uid === 0) return null;
  const resolved = path.resolve(target);
  const chain: string[] = [];
  for (let p = resolved; ; p = path.dirname(p)) {
    chain.unshift(p);
    if (path.dirname(p) === p) break;
  }
  for (const folder of chain) {
    const st = await statOf(folder).catch(() => null);
    if (!st) return null;
    const bits = st.uid === user.uid ? st.mode >> 6 : user.gids.includes(st.gid) ? st.mode >> 3 : st.mode;
    if ((bits & 0o1) === 0) return folder;
  }
  return null;
}
