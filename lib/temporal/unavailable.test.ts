import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { isTemporalUnavailable } from './unavailable.js';

/** The error the real client throws when nothing answers at the address. */
async function errorFrom(address: string): Promise<unknown> {
  const connection = Connection.lazy({ address, connectTimeout: 500 });
  try {
    await new Client({ connection }).schedule.getHandle('no-such-schedule').describe();
    return null;
  } catch (err) {
    return err;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

test('the client error for an unreachable server is recognised as "Temporal did not answer"', async () => {
  // A port that was free a moment ago: nothing listens there.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const err = await errorFrom(`127.0.0.1:${port}`);
  assert.ok(err, 'the describe failed');
  assert.equal(isTemporalUnavailable(err), true, String(err));
});

test('other errors are not', () => {
  assert.equal(isTemporalUnavailable(new Error('boom')), false);
  assert.equal(isTemporalUnavailable(Object.assign(new Error('5 NOT_FOUND'), { code: 5, details: 'not found', metadata: {} })), false);
  assert.equal(isTemporalUnavailable(null), false);
});
