/**
 * @module A fake of Bill's v3 API (AP & AR) as its reference describes it, under `/connect`:
 * - `POST /connect/v3/login` with `username`, `password`, `organizationId` and `devKey` (JSON) answers
 *   the session (`sessionId`, `userId`, `organizationId`); a wrong username or password is a 400 with
 *   BDC_1101, a wrong developer key BDC_1102;
 * - `GET /connect/v3/users` needs the `sessionId` and `devKey` headers: a missing one is a 400, an
 *   unknown, signed-out or expired session a 401 with BDC_1109 ("Session is invalid. Please log in.");
 *   each call restarts the session's 35 idle minutes;
 * - `POST /connect/v3/logout` ends the session.
 * Errors are Bill's list of `{ timestamp, code, severity, category, message }`.
 */
import { randomBytes } from 'node:crypto';
import { json, parseBody, Router, startFakeServer, type FakeServer, type RequestContext } from './server.js';

const IDLE_MS = 35 * 60_000;

export interface BillFakeState {
  /** Sessions in force and when they were last used (epoch ms). */
  sessions: Map<string, number>;
  logins: string[];
  /** Calls refused for their session, with the session they carried. */
  refused: string[];
}

export interface BillAccount {
  username: string;
  password: string;
  organizationId: string;
  devKey: string;
}

function billError(status: number, code: string, message: string, category = 'REQUEST') {
  return json(status, [{ timestamp: new Date().toISOString(), code, severity: 'ERROR', category, message }]);
}

export async function startBillFake(account: BillAccount, opts: { now?: () => number } = {}): Promise<FakeServer<BillFakeState>> {
  const state: BillFakeState = { sessions: new Map(), logins: [], refused: [] };
  const now = () => (opts.now ?? Date.now)();
  const router = new Router();
  router.post('/connect/v3/login', (ctx) => {
    const b = parseBody(ctx) as Record<string, unknown>;
    if (b.devKey !== account.devKey) return billError(400, 'BDC_1102', 'Developer key is invalid.');
    if (b.username !== account.username || b.password !== account.password || b.organizationId !== account.organizationId)
      return billError(400, 'BDC_1101', 'User name and/or password do not match our records.');
    const sessionId = `${randomBytes(6).toString('hex')}-${randomBytes(10).toString('hex')}`;
    state.sessions.set(sessionId, now());
    state.logins.push(sessionId);
    return json(200, { username: account.username, organizationId: account.organizationId, userId: '006ABCDEFGHIJKLMN0q1', sessionId, trusted: false });
  });
  /** The session a call carries, restarted; or the refusal. */
  const session = (ctx: RequestContext) => {
    const id = ctx.headers.sessionid;
    if (!id || !ctx.headers.devkey) return billError(400, 'BDC_1144', 'devKey and sessionId headers are required.');
    if (ctx.headers.devkey !== account.devKey) return billError(401, 'BDC_1102', 'Developer key is invalid.');
    const last = state.sessions.get(id);
    if (last === undefined || now() - last > IDLE_MS) {
      state.sessions.delete(id);
      state.refused.push(id);
      return billError(401, 'BDC_1109', 'Session is invalid.  Please log in.', 'DOWNSTREAM');
    }
    state.sessions.set(id, now());
    return id;
  };
  router.get('/connect/v3/users', (ctx) => {
    const id = session(ctx);
    if (typeof id !== 'string') return id;
    return json(200, { results: [{ id: '006ABCDEFGHIJKLMN0q1', email: account.username, archived: false }], nextPage: null });
  });
  router.post('/connect/v3/logout', (ctx) => {
    const id = session(ctx);
    if (typeof id !== 'string') return id;
    state.sessions.delete(id);
    return json(200, {});
  });
  return startFakeServer(state, (ctx) => router.dispatch(ctx) ?? billError(404, 'BDC_1121', 'API not supported.'));
}
