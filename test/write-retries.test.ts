/**
 * Writes repeated at the third party (issue 14, item 2): a POST whose answer is lost after the
 * provider created the object is sent once when it carries no Idempotency-Key (neither the script
 * context nor Temporal sends it again), and with the key the context adds on request, every retry,
 * Temporal's included, carries the same key so the provider creates one object.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { metabaseScripts } from '../integrations/metabase/index.js';
import { registerPrebuiltScripts } from '../integrations/registry.js';
import { createAction } from '../integrations/sdk/index.js';
import { startWritesFake, type WritesFake } from './fakes/writes.js';
import { connectMetabase, startTestPlatform, triggerAction, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const created = z.object({ id: z.string(), name: z.string() });
registerPrebuiltScripts('metabase', {
  ...metabaseScripts,
  'create-object': createAction({
    description: 'POSTs an object, with the retries asked for',
    endpoint: { method: 'POST', path: '/create-object' },
    input: z.object({ name: z.string(), retries: z.number() }),
    output: created,
    async exec(ctx, input) {
      return (await ctx.post<z.infer<typeof created>>({ endpoint: '/objects', data: { name: input.name }, retries: input.retries })).data;
    },
  }),
  'create-then-read': createAction({
    description: 'POSTs an object without retries, then reads it back with retries',
    endpoint: { method: 'POST', path: '/create-then-read' },
    input: z.object({ name: z.string() }),
    output: created,
    async exec(ctx, input) {
      const res = await ctx.post<z.infer<typeof created>>({ endpoint: '/objects', data: { name: input.name } });
      return (await ctx.get<z.infer<typeof created>>({ endpoint: `/objects/${res.data.id}` })).data;
    },
  }),
});

describe('write retries', () => {
  let t: TestPlatform;
  let api: WritesFake;
  const trigger = (action: string, input: Json) => triggerAction(t, action, input);
  const posts = (name: string) => api.requests.filter((r) => r.method === 'POST' && r.path === '/objects' && JSON.parse(r.body).name === name);
  const objects = (name: string) => api.state.objects.filter((o) => o.name === name);

  before(async () => {
    api = await startWritesFake();
    t = await startTestPlatform();
    await connectMetabase(t, api.url, 'k', { endpoints: ['POST /create-object', 'POST /create-then-read'] });
  });
  after(async () => {
    await t?.stop();
    await api?.close();
  });

  test('a POST without retries that landed and answered 502 is sent once, and the run fails saying why', async () => {
    api.state.failAfterWrite = 2;
    const { status, body } = await trigger('create-object', { name: 'unkeyed', retries: 0 });
    assert.equal(posts('unkeyed').length, 1, 'upstream POSTs');
    assert.equal(objects('unkeyed').length, 1);
    assert.equal(posts('unkeyed')[0]!.headers['idempotency-key'], undefined);
    assert.ok(status >= 400, JSON.stringify(body));
    assert.match(JSON.stringify(body), /without an Idempotency-Key/);
    api.state.failAfterWrite = 0;
  });

  test('a POST with retries carries one Idempotency-Key on every retry, Temporal retries included; one object results', async () => {
    // 1 in-call retry: 2 attempts per activity run, so 3 × 502 takes a second activity attempt.
    api.state.failAfterWrite = 3;
    const { status, body } = await trigger('create-object', { name: 'keyed', retries: 1 });
    assert.equal(status, 200, JSON.stringify(body));
    const sent = posts('keyed');
    assert.equal(sent.length, 4, 'upstream POSTs');
    const keys = new Set(sent.map((r) => r.headers['idempotency-key']));
    assert.equal(keys.size, 1, `one key for every retry, got ${[...keys].join(', ')}`);
    assert.match([...keys][0] ?? '', /^[0-9a-f]{40}$/);
    assert.equal(objects('keyed').length, 1);
    assert.deepEqual(body, { id: objects('keyed')[0]!.id, name: 'keyed' });
  });

  test('after an unkeyed write landed, a later retryable failure does not run the script (and the write) again', async () => {
    api.state.failReads = 2;
    const { status, body } = await trigger('create-then-read', { name: 'then-read' });
    assert.equal(posts('then-read').length, 1, 'upstream POSTs');
    assert.equal(objects('then-read').length, 1);
    assert.ok(status >= 400, JSON.stringify(body));
    assert.match(JSON.stringify(body), /POST \/objects may have reached the provider/);
    api.state.failReads = 0;
  });
});
