/**
 * The deployment files (docker-compose.yml, Dockerfile, .dockerignore, deploy/k8s/) hold together.
 * No Docker engine or cluster runs here: these checks read the files, run `docker compose config`
 * (or docker-compose v1) when a client is installed, and run deploy/temporal-schema.sh against the
 * test run's Postgres when temporal-sql-tool is present. The image's build steps are replayed by
 * scripts/replay-image-build.ts (CI).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { createPool } from '../lib/db/pool.js';

type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  entrypoint?: string[];
  restart?: string;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  deploy?: { replicas?: number };
  volumes?: string[];
};

const read = (p: string) => readFileSync(p, 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
const oneShots = Object.entries(services)
  .filter(([, s]) => s.restart === 'no')
  .map(([n]) => n);

/** `node --no-node-snapshot --import tsx <file>`: the command of the npm script that runs <file>. */
function assertRunsLikeNpmScript(command: string[] | undefined, script: string, where: string): void {
  assert.ok(command, `${where}: no command`);
  assert.equal(command.join(' '), pkg.scripts[script], `${where} runs what \`npm run ${script}\` runs`);
  assert.ok(existsSync(command.at(-1)!), `${where}: ${command.at(-1)} exists`);
}

describe('docker-compose.yml', () => {
  test('Temporal runs on its current images: server 1.29.1 on postgres12, schema by admin-tools, no auto-setup', () => {
    assert.equal(services.temporal?.image, 'temporalio/server:1.29.1');
    assert.equal(services.temporal?.environment?.DB, 'postgres12');
    assert.match(services['temporal-admin-tools']?.image ?? '', /^temporalio\/admin-tools:1\.29\.1-/);
    assert.ok(!Object.values(services).some((s) => s.image?.includes('auto-setup')));
    const mount = services['temporal-admin-tools']!.volumes!.find((v) => v.startsWith('./deploy/temporal-schema.sh:'));
    assert.ok(mount, 'the schema script is mounted');
    assert.equal(services['temporal-admin-tools']!.entrypoint?.at(-1), mount.split(':')[1]);
  });

  test('every image is pinned to a version; every long-running service has a healthcheck and a restart policy', () => {
    const built = new Set(Object.values(services).flatMap((s) => (s.build && s.image ? [s.image] : [])));
    for (const [name, s] of Object.entries(services)) {
      if (s.image && !built.has(s.image)) assert.match(s.image, /:[0-9][\w.-]*$/, `${name}: image ${s.image} pinned`);
      if (oneShots.includes(name)) continue;
      assert.ok(s.healthcheck?.test?.length, `${name}: healthcheck`);
      assert.match(s.restart ?? '', /^(unless-stopped|always|on-failure)/, `${name}: restart policy`);
    }
  });

  test('every dependency waits for health, or for a one-shot to complete', () => {
    for (const [name, s] of Object.entries(services)) {
      assert.ok(s.depends_on === undefined || !Array.isArray(s.depends_on), `${name}: depends_on with conditions`);
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        assert.ok(services[dep], `${name} depends on ${dep}, which exists`);
        if (oneShots.includes(dep)) assert.equal(condition, 'service_completed_successfully', `${name} → ${dep}`);
        else {
          assert.equal(condition, 'service_healthy', `${name} → ${dep}`);
          assert.ok(services[dep]!.healthcheck, `${dep} has the healthcheck ${name} waits for`);
        }
      }
    }
  });

  test('api and worker: the npm scripts commands, secrets required with :?, workers scaled, worker health port probed', () => {
    assertRunsLikeNpmScript(services.api!.command, 'api', 'compose api');
    assertRunsLikeNpmScript(services.worker!.command, 'worker', 'compose worker');
    const raw = read('docker-compose.yml');
    for (const v of ['SWITCHYARD_ENCRYPTION_KEY', 'SWITCHYARD_SECRET_KEY_DEV', 'SWITCHYARD_SECRET_KEY_PROD', 'POSTGRES_PASSWORD']) {
      const uses = [...raw.matchAll(new RegExp(`\\$\\{${v}(:[?-][^}]*)?\\}`, 'g'))];
      assert.ok(uses.length > 0, `${v} used`);
      for (const u of uses) assert.match(u[1] ?? '', /^:\?./, `${v} is required with a message: ${u[0]}`);
    }
    assert.ok((services.worker!.deploy?.replicas ?? 0) >= 2);
    assert.equal(services.worker!.image, services.api!.image, 'the worker runs the image the api builds');
    const port = services.worker!.environment!.SWITCHYARD_WORKER_HEALTH_PORT!;
    assert.ok(services.worker!.healthcheck!.test.join(' ').includes(`:${port}/health`));
    const grace = Number(services.worker!.environment!.SWITCHYARD_WORKER_SHUTDOWN_GRACE_MS) / 1000;
    assert.ok(parseInt(String((services.worker as { stop_grace_period?: string }).stop_grace_period)) > grace, 'stop_grace_period above the drain time');
  });

  test('`docker compose config` accepts it (when a compose client is installed)', (t) => {
    const env = {
      ...process.env,
      POSTGRES_PASSWORD: 'p',
      SWITCHYARD_ENCRYPTION_KEY: 'a'.repeat(64),
      SWITCHYARD_SECRET_KEY_DEV: '00000000-0000-4000-8000-000000000001',
      SWITCHYARD_SECRET_KEY_PROD: '00000000-0000-4000-8000-000000000002',
    };
    const v2 = spawnSync('docker', ['compose', 'config', '-q'], { env, encoding: 'utf8' });
    const client = v2.status === 0 || /docker-compose|compose\.ya?ml|interpolat/i.test(v2.stderr ?? '') ? ['docker', 'compose'] : ['docker-compose'];
    const run = (e: NodeJS.ProcessEnv) => spawnSync(client[0]!, [...client.slice(1), 'config', '-q'], { env: e, encoding: 'utf8' });
    const ok = run(env);
    if (ok.error || (client[0] === 'docker-compose' && ok.status === 127)) return t.skip('no compose client installed');
    assert.equal(ok.status, 0, ok.stderr);
    const missing = run({ ...env, SWITCHYARD_ENCRYPTION_KEY: '' });
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /set SWITCHYARD_ENCRYPTION_KEY/);
  });
});

describe('Dockerfile and .dockerignore', () => {
  const dockerfile = read('Dockerfile');
  const ignored = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  test('node_modules, .switchyard, .git, bench output and tests stay out of the image', () => {
    for (const p of ['**/node_modules', '.switchyard', '.git', 'bench', 'test']) assert.ok(ignored.includes(p), p);
  });

  test('multi-stage: production dependencies with --omit=dev, the workflow bundle built at build time and named to the worker', () => {
    assert.match(dockerfile, /RUN npm ci --omit=dev/);
    const bundle = /RUN node --import tsx (scripts\/build-workflow-bundle\.ts) (\S+)/.exec(dockerfile);
    assert.ok(bundle, 'the bundle is built');
    assert.ok(existsSync(bundle[1]!));
    assert.match(dockerfile, new RegExp(`SWITCHYARD_WORKFLOW_BUNDLE=/app/${bundle[2]!.replace(/[.]/g, '\\.')}`));
    assert.ok((dockerfile.match(/^FROM /gm) ?? []).length >= 3);
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
    assertRunsLikeNpmScript(JSON.parse(cmd![1]!) as string[], 'api', 'Dockerfile CMD');
    // tsx runs the TypeScript in production: copied in, and its only dependency is a production one.
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dependencies?: Record<string, string>; dev?: boolean }> };
    assert.match(dockerfile, /COPY --from=build \/app\/node_modules\/tsx/);
    for (const dep of Object.keys(lock.packages['node_modules/tsx']!.dependencies ?? {}))
      assert.notEqual(lock.packages[`node_modules/${dep}`]?.dev, true, `${dep} is a production dependency`);
  });

  test('every source the api and worker import is in the build context', () => {
    // The runtime folders a process loads; a test or bench file is never imported by them (eslint layers).
    for (const dir of ['api', 'activities', 'features', 'integrations', 'lib', 'start', 'worker', 'workflows', 'frontend', 'cli']) {
      assert.ok(!ignored.includes(dir) && !ignored.includes(`${dir}/`), `${dir} not ignored`);
    }
  });
});

describe('deploy/k8s', () => {
  type Doc = { kind: string; metadata: { name: string }; spec?: Record<string, unknown>; data?: Record<string, string>; stringData?: Record<string, string> };
  const docs: Doc[] = ['config.yaml', 'api.yaml', 'worker.yaml', 'temporal-schema-job.yaml'].flatMap((f) =>
    parseAllDocuments(read(path.join('deploy/k8s', f))).map((d) => {
      assert.equal(d.errors.length, 0, `${f}: ${d.errors.join('; ')}`);
      return d.toJS() as Doc;
    }),
  );
  const byName = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name)!;
  type Container = {
    command: string[];
    envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
    env?: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[];
    resources?: { requests?: { cpu?: string; memory?: string } };
    ports?: { name: string; containerPort: number }[];
    livenessProbe?: { httpGet: { path: string; port: string } };
    startupProbe?: { httpGet: { path: string; port: string } };
  };
  const podOf = (d: Doc) => (d.spec as { template: { spec: { containers: Container[]; terminationGracePeriodSeconds?: number } } }).template.spec;

  test('api and worker Deployments: npm-script commands, /health probes on a declared port, resource requests, config and secrets from the ConfigMap and Secret', () => {
    const secret = byName('Secret', 'switchyard-secrets');
    for (const [name, script] of [
      ['switchyard-api', 'api'],
      ['switchyard-worker', 'worker'],
    ] as const) {
      const c = podOf(byName('Deployment', name)).containers[0]!;
      assertRunsLikeNpmScript(c.command, script, name);
      for (const probe of [c.livenessProbe, c.startupProbe]) {
        assert.equal(probe?.httpGet.path, '/health', name);
        assert.ok(
          c.ports?.some((p) => p.name === probe.httpGet.port),
          `${name}: probe port declared`,
        );
      }
      assert.ok(c.resources?.requests?.cpu && c.resources.requests.memory, `${name}: requests`);
      assert.ok(c.envFrom?.some((e) => e.secretRef?.name === 'switchyard-secrets'));
      assert.ok(c.envFrom?.some((e) => e.configMapRef?.name === 'switchyard-config'));
    }
    for (const k of ['DATABASE_URL', 'SWITCHYARD_ENCRYPTION_KEY', 'SWITCHYARD_SECRET_KEY_DEV', 'SWITCHYARD_SECRET_KEY_PROD'])
      assert.ok(secret.stringData?.[k], `${k} in the Secret`);
    const config = byName('ConfigMap', 'switchyard-config').data!;
    for (const k of Object.keys(config)) assert.ok(!/KEY|PASSWORD|PWD|SECRET|DATABASE_URL/.test(k), `${k} belongs in the Secret`);
    const worker = byName('Deployment', 'switchyard-worker');
    const env = Object.fromEntries(podOf(worker).containers[0]!.env!.map((e) => [e.name, e.value]));
    assert.equal(podOf(worker).containers[0]!.ports![0]!.containerPort, Number(env.SWITCHYARD_WORKER_HEALTH_PORT));
    assert.ok(podOf(worker).terminationGracePeriodSeconds! > Number(env.SWITCHYARD_WORKER_SHUTDOWN_GRACE_MS) / 1000);
  });

  test('the schema Job runs the same script as compose, with the database password from the Secret', () => {
    const script = byName('ConfigMap', 'switchyard-temporal-schema').data!['temporal-schema.sh'];
    assert.equal(script, read('deploy/temporal-schema.sh'));
    const c = podOf(byName('Job', 'switchyard-temporal-schema')).containers[0]! as Container & { image: string };
    assert.equal(c.image, services['temporal-admin-tools']!.image);
    assert.deepEqual(c.env!.find((e) => e.name === 'POSTGRES_PWD')?.valueFrom?.secretKeyRef, { name: 'switchyard-secrets', key: 'POSTGRES_PWD' });
  });
});

describe('deploy/temporal-schema.sh', () => {
  // temporal-sql-tool and Temporal's schema files, as built for SWITCHYARD_TEMPORAL=server (go install
  // of go.temporal.io/server/cmd/tools/sql@v1.29.1) or on PATH; without them this part is skipped.
  const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'switchyard', 'temporal-server-1.29.1');
  const onPath = spawnSync('sh', ['-c', 'command -v temporal-sql-tool'], { encoding: 'utf8' }).stdout.trim();
  const tool = [onPath, path.join(cache, 'gobin', 'sql')].find((p) => p && existsSync(p));
  const schemaDir = [path.join(cache, 'schema'), path.join(os.homedir(), 'go/pkg/mod/go.temporal.io/server@v1.29.1/schema')].find((p) =>
    existsSync(path.join(p, 'postgresql/v12')),
  );

  test('creates both databases with their schemas at this release, and a second run changes nothing', async (t) => {
    if (!tool || !schemaDir || !process.env.SWITCHYARD_TEST_DATABASE_SERVER_URL) return t.skip('temporal-sql-tool or its schema files not present');
    const server = new URL(process.env.SWITCHYARD_TEST_DATABASE_SERVER_URL);
    const bin = await mkdtemp(path.join(os.tmpdir(), 'sqltool-'));
    await symlink(tool, path.join(bin, 'temporal-sql-tool'));
    const id = randomBytes(4).toString('hex');
    const env = {
      PATH: `${bin}:${process.env.PATH}`,
      POSTGRES_SEEDS: server.hostname,
      DB_PORT: server.port || '5432',
      POSTGRES_USER: decodeURIComponent(server.username),
      POSTGRES_PWD: decodeURIComponent(server.password),
      DBNAME: `t_temporal_${id}`,
      VISIBILITY_DBNAME: `t_temporal_vis_${id}`,
      TEMPORAL_SCHEMA_DIR: schemaDir,
    };
    for (const run of [1, 2]) {
      const r = spawnSync('sh', ['deploy/temporal-schema.sh'], { env, encoding: 'utf8' });
      assert.equal(r.status, 0, `run ${run}: ${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, new RegExp(`database ${env.VISIBILITY_DBNAME}: visibility schema up to date`));
      assert.equal(r.stdout.includes('creating database'), run === 1, `run ${run} creates the databases only the first time`);
    }
    const versions = read(path.join(schemaDir, 'postgresql/v12/version.go'));
    for (const [db, constant] of [
      [env.DBNAME, 'Version'],
      [env.VISIBILITY_DBNAME, 'VisibilityVersion'],
    ] as const) {
      const expected = new RegExp(`const ${constant} = "([^"]+)"`).exec(versions)?.[1];
      const url = new URL(server);
      url.pathname = `/${db}`;
      const pool = createPool(url.toString(), 1);
      try {
        const { rows } = await pool.query<{ curr_version: string }>('SELECT curr_version FROM schema_version');
        assert.ok(expected, `${constant} in version.go`);
        assert.equal(rows[0]?.curr_version, expected, `${db} at ${constant}: the versioned steps were applied`);
      } finally {
        await pool.end();
      }
    }
  });
});
