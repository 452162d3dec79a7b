/**
 * Who creates the environments (issue 14, item 12): with no secret keys configured (the
 * docker-compose default) and the api and workers started at once, only the API may create them,
 * since only its start shows the keys it generates. A worker that finds none stops with a message.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../lib/config.js';
import { createPool } from '../lib/db/pool.js';
import { ensureDatabase } from '../lib/embedded/postgres.js';
import { freePort } from '../lib/embedded/temporal.js';
import { startPlatform } from '../start/platform.js';
import { startTestPlatform } from './harness.js';

describe('environments are created by the API only', () => {
  test('a worker started before any API stops with a clear message and creates no environment; after the API created them (printing its generated keys) the worker starts', async () => {
    const id = randomBytes(5).toString('hex');
    const databaseUrl = await ensureDatabase(process.env.SWITCHYARD_TEST_DATABASE_SERVER_URL!, `t_roles_${id}`);
    const shared = {
      DATABASE_URL: databaseUrl,
      SWITCHYARD_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      SWITCHYARD_TASK_QUEUE_PREFIX: `t-${id}`,
      // No keys configured: empty values count as unset.
      SWITCHYARD_SECRET_KEY_DEV: '',
      SWITCHYARD_SECRET_KEY_PROD: '',
    };
    const workerConfig = loadConfig({
      ...shared,
      PORT: String(await freePort()),
      TEMPORAL_ADDRESS: process.env.SWITCHYARD_TEST_TEMPORAL_ADDRESS,
      LOG_LEVEL: 'silent',
    });
    const startWorker = () =>
      startPlatform({
        config: workerConfig,
        databaseUrl,
        temporalAddress: workerConfig.TEMPORAL_ADDRESS!,
        runApi: false,
        runWorker: true,
        keepSecretsLocally: false,
        workflowBundle: { codePath: process.env.SWITCHYARD_TEST_WORKFLOW_BUNDLE! },
      });

    // Were the worker to start, it is stopped again so that the failure is reported, not a hang.
    const refused = startWorker().then(async (started) => {
      await started.stop();
      return started;
    });
    await assert.rejects(refused, (err: unknown) => {
      assert.ok(err instanceof ConfigError, String(err));
      assert.match(err.message, /environment dev, prod does not exist yet: only the API creates environments/);
      assert.match(err.message, /Start the API \(npm run api\) first, then the worker/);
      return true;
    });
    const db = createPool(databaseUrl, 1);
    try {
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM environments');
      assert.equal(rows[0]!.n, 0, 'the worker generated no key');
    } finally {
      await db.end();
    }

    const api = await startTestPlatform({ runWorker: false, env: shared });
    try {
      assert.deepEqual(
        api.platform.environments.map((e) => [e.env.name, e.generated, typeof e.secretKey]),
        [
          ['dev', true, 'string'],
          ['prod', true, 'string'],
        ],
      );
      const devKey = api.platform.environments[0]!.secretKey!;
      assert.equal((await api.api('/environment', { key: devKey })).status, 200);

      const worker = await startWorker();
      try {
        assert.deepEqual(
          worker.environments.map((e) => [e.env.name, e.generated, e.secretKey]),
          [
            ['dev', false, null],
            ['prod', false, null],
          ],
        );
        assert.ok(worker.workers, 'the worker runs');
      } finally {
        await worker.stop();
      }
    } finally {
      await api.stop();
    }
  });
});
