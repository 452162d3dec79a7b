/**
 * @module fakes/writes — a third party whose writes land and whose answers get lost: POST /objects
 * creates the object and then, while `failAfterWrite` lasts, answers 502 anyway (a gateway that lost
 * the backend's answer). Like Stripe and Checkr, a POST carrying an `Idempotency-Key` it has seen
 * before creates nothing and replays the first result. While `holdAfterWrite` lasts, a POST creates the
 * object and then never answers (until the client goes away): a worker killed mid-request. Also
 * answers Metabase's credential check.
 */
import { Router, json, startFakeServer, type FakeServer } from './server.js';

export interface WrittenObject {
  id: string;
  name: string;
  idempotencyKey: string | null;
}

export interface WritesState {
  objects: WrittenObject[];
  /** How many more write answers are 502 after the write itself was done. */
  failAfterWrite: number;
  /** How many more GET /objects/:id answers are 503. */
  failReads: number;
  /** How many more writes get no answer at all after the write was done. */
  holdAfterWrite: number;
}

export type WritesFake = FakeServer<WritesState>;

export async function startWritesFake(): Promise<WritesFake> {
  const state: WritesState = { objects: [], failAfterWrite: 0, failReads: 0, holdAfterWrite: 0 };
  const byKey = new Map<string, WrittenObject>();

  const router = new Router()
    .get('/api/user/current', () => json(200, { id: 1, email: 'key@example.com' }))
    .post('/objects', async (ctx) => {
      const key = ctx.headers['idempotency-key'] || null;
      let object = key ? byKey.get(key) : undefined;
      if (!object) {
        const body = JSON.parse(ctx.body || '{}') as { name?: unknown };
        object = { id: String(state.objects.length + 1), name: String(body.name ?? ''), idempotencyKey: key };
        state.objects.push(object);
        if (key) byKey.set(key, object);
      }
      if (state.holdAfterWrite > 0) {
        state.holdAfterWrite--;
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        return json(504, { error: 'gone' });
      }
      if (state.failAfterWrite > 0) {
        state.failAfterWrite--;
        return json(502, { error: 'bad_gateway' });
      }
      return json(201, object);
    })
    .get('/objects/:id', (ctx) => {
      if (state.failReads > 0) {
        state.failReads--;
        return json(503, { error: 'unavailable' });
      }
      const object = state.objects.find((o) => o.id === ctx.params.id);
      return object ? json(200, object) : json(404, { error: 'not_found' });
    });

  return startFakeServer(state, (ctx) => router.dispatch(ctx) ?? json(404, { error: 'not_found' }));
}
