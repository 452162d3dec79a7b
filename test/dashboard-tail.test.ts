/**
 * The dashboard's live tail (GET /dashboard/<env>/logs/tail, server-sent events) without a browser:
 * it ends once its session does (sign-out, expiry, the environment's key rotated), and a session
 * holds a bounded number of tails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { upsertEnvironmentKey } from '../features/environments/store.js';
import { TAILS_PER_SESSION } from '../api/dashboard/logs.js';
import { dashboardSignIn, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

/** Turns a stream that never ends into a failure instead of a hung run: a hang guard, not a measure. */
const HANG_GUARD_MS = 60_000;

interface Tail {
  status: number;
  /** The next event's name; null once the server ended the stream. */
  next(): Promise<string | null>;
  close(): void;
}

describe('the dashboard live tail', () => {
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform({ runWorker: false });
  });
  after(async () => t?.stop());

  const signIn = (key: string, env: string) => dashboardSignIn(t, key, env);

  async function openTail(env: string, cookie: string): Promise<Tail> {
    const abort = new AbortController();
    const res = await fetch(`${t.url}/dashboard/${env}/logs/tail`, {
      headers: { cookie, accept: 'text/event-stream' },
      signal: AbortSignal.any([abort.signal, AbortSignal.timeout(HANG_GUARD_MS)]),
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      return { status: res.status, next: async () => null, close: () => undefined };
    }
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    return {
      status: res.status,
      async next() {
        for (;;) {
          const end = buffer.indexOf('\n\n');
          if (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            return /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          }
          const { done, value } = await reader.read();
          if (done) return null;
          buffer += value;
        }
      },
      close: () => abort.abort(),
    };
  }

  /** The events until the server ends the stream. */
  async function rest(tail: Tail): Promise<string[]> {
    const events: string[] = [];
    for (let e = await tail.next(); e !== null; e = await tail.next()) events.push(e);
    return events;
  }

  test('a tail ends with `end` once its session is signed out', async () => {
    const { cookie, csrf } = await signIn(t.devKey, 'dev');
    const tail = await openTail('dev', cookie);
    assert.equal(await tail.next(), 'ready');
    const out = await fetch(`${t.url}/dashboard/dev/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    assert.equal(out.status, 303);
    assert.deepEqual(await rest(tail), ['end']);
  });

  test('a tail ends once its session expires', async () => {
    const { cookie } = await signIn(t.devKey, 'dev');
    const tail = await openTail('dev', cookie);
    assert.equal(await tail.next(), 'ready');
    await t.platform.deps.db.query(`UPDATE dashboard_sessions SET expires_at = now() - interval '1 second'`);
    assert.deepEqual(await rest(tail), ['end']);
  });

  test("a tail ends once the environment's secret key is rotated", async () => {
    const { cookie } = await signIn(t.prodKey, 'prod');
    const tail = await openTail('prod', cookie);
    assert.equal(await tail.next(), 'ready');
    // What a start with a new SWITCHYARD_SECRET_KEY_PROD does.
    await upsertEnvironmentKey(t.platform.deps.db, 'prod', crypto.randomUUID());
    assert.deepEqual(await rest(tail), ['end']);
  });

  test('a session holds a bounded number of tails; a closed one gives its place back', async () => {
    const { cookie } = await signIn(t.devKey, 'dev');
    const tails: Tail[] = [];
    for (let i = 0; i < TAILS_PER_SESSION; i++) {
      const tail = await openTail('dev', cookie);
      assert.equal(await tail.next(), 'ready');
      tails.push(tail);
    }
    const refused = await openTail('dev', cookie);
    assert.equal(refused.status, 429);
    // Another session is not counted against this one.
    const other = await openTail('dev', (await signIn(t.devKey, 'dev')).cookie);
    assert.equal(other.status, 200);
    other.close();
    tails.pop()!.close();
    // The server sees the close on its next write or poll.
    const again = await waitFor('a tail to be accepted again', async () => {
      const tail = await openTail('dev', cookie);
      return tail.status === 200 ? tail : null;
    });
    for (const tail of [...tails, again]) tail.close();
  });
});
