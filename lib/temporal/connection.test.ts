/**
 * The first connection to Temporal is retried with backoff: against the real Temporal server of the
 * test run, reached through a port that only starts listening after the first attempt failed.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../config.js';
import { connectClient } from './client.js';
import { connectWithRetry, temporalConnectionSettings, type TemporalConnectionSettings } from './connection.js';

/** A port where nothing listens until `open()`; then it forwards to Temporal. */
async function latePort(target: string) {
  const [host, port] = target.split(':') as [string, string];
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const { port: free } = probe.address() as net.AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  return {
    address: `127.0.0.1:${free}`,
    open: () => new Promise<void>((r) => server.listen(free, '127.0.0.1', () => r())),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const temporalAddress = () => process.env.SWITCHYARD_TEST_TEMPORAL_ADDRESS!;
const retry = { attempts: 3, initialDelayMs: 1, maxDelayMs: 1 };

describe('first connection to Temporal', () => {
  for (const kind of ['worker', 'client'] as const) {
    const connect = (address: string) =>
      kind === 'worker'
        ? NativeConnection.connect({ address }).then((c) => () => c.close())
        : Connection.connect({ address, connectTimeout: '1 second' }).then((c) => () => c.close());

    test(`${kind}: a server that comes up after the first attempt is reached on a later attempt, each failure logged`, async () => {
      const port = await latePort(temporalAddress());
      const logged: { obj: Record<string, unknown>; msg: string }[] = [];
      const settings: Pick<TemporalConnectionSettings, 'address' | 'retry'> = { address: port.address, retry };
      try {
        const close = await connectWithRetry(
          kind,
          settings,
          () => connect(port.address),
          { warn: (obj, msg) => logged.push({ obj: obj as Record<string, unknown>, msg }) },
          port.open,
        );
        await close();
        assert.equal(logged.length, 1, JSON.stringify(logged));
        assert.equal(logged[0]!.obj.attempt, 1);
        assert.equal(logged[0]!.obj.address, port.address);
        assert.match(logged[0]!.msg, new RegExp(`^${kind}: Temporal not reachable yet, retrying`));
      } finally {
        await port.close();
      }
    });
  }

  test('without retry (one attempt) the same late server fails the start: what the retry fixes', async () => {
    const port = await latePort(temporalAddress());
    try {
      await assert.rejects(
        connectWithRetry(
          'worker',
          { address: port.address, retry: { ...retry, attempts: 1 } },
          () => NativeConnection.connect({ address: port.address }),
          undefined,
          port.open,
        ),
        /worker: connecting to Temporal at 127\.0\.0\.1:\d+ failed after 1 attempt: /,
      );
    } finally {
      await port.close();
    }
  });

  test('the attempts are bounded: a server that never comes up fails after the configured number, with growing delays', async () => {
    const delays: number[] = [];
    await assert.rejects(
      connectWithRetry(
        'worker',
        { address: '127.0.0.1:1', retry: { attempts: 5, initialDelayMs: 500, maxDelayMs: 3000 } },
        () => NativeConnection.connect({ address: '127.0.0.1:1' }),
        undefined,
        async (ms) => void delays.push(ms),
      ),
      /failed after 5 attempts/,
    );
    assert.deepEqual(delays, [500, 1000, 2000, 3000]);
  });

  test('TEMPORAL_TLS reaches the connection: with it, the plain-TCP test server is not reached; without it, it is', async () => {
    const settings = (env: Record<string, string>) =>
      temporalConnectionSettings(loadConfig({ TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_CONNECT_ATTEMPTS: '1', ...env }), temporalAddress());
    await assert.rejects(connectClient(settings({ TEMPORAL_TLS: 'true' }), 'default'), /client: connecting to Temporal at .* failed after 1 attempt/);
    const plain = await connectClient(settings({}), 'default');
    await plain.connection.close();
  });

  test('refused credentials are not retried', async () => {
    let calls = 0;
    await assert.rejects(
      connectWithRetry('client', { address: 'x:1', retry }, async () => {
        calls++;
        throw Object.assign(new Error('bad api key'), { code: 16 });
      }),
      /client: connecting to Temporal at x:1 refused: bad api key/,
    );
    assert.equal(calls, 1);
  });
});
