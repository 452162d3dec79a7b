/**
 * `npm test`: starts one real PostgreSQL (embedded) and one Temporal dev server for the whole run,
 * unless DATABASE_URL / TEMPORAL_ADDRESS are set, bundles the workflows once, runs every test file
 * with node's test runner, and stops everything at the end. With SWITCHYARD_TEMPORAL=server the
 * Temporal is a real Temporal server on that PostgreSQL (`npm run test:prod-shape`).
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startLocalServices } from '../lib/embedded/local-services.js';
import { bundleWorkflows } from '../worker/index.js';
import { SANDBOX_NODE_FLAGS } from '../lib/sandbox/node-flags.js';
import { findChromium, planBrowserTests } from './browser-prerequisite.js';

const say = (m: string) => console.log(`[test] ${m}`);

async function testFiles(args: string[]): Promise<string[]> {
  if (args.length > 0) return args;
  const out: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') await walk(p);
      else if (entry.name.endsWith('.test.ts')) out.push(p);
    }
  };
  for (const dir of ['test', 'api', 'lib', 'features', 'start', 'integrations', 'activities', 'cli']) await walk(dir).catch(() => undefined);
  return out.sort();
}

async function main(): Promise<number> {
  // Prerequisites first: without a browser, the browser tests are left out, said in one line at the
  // end (not failed); in CI the run fails at once instead (test/browser-prerequisite.ts).
  const requested = process.argv.slice(2);
  const browser = findChromium();
  const plan = planBrowserTests(await testFiles(requested), { named: requested.length > 0, browser, env: process.env });
  if (plan.stop) {
    console.log(plan.line);
    return 1;
  }
  const { files } = plan;
  const work = await mkdtemp(path.join(os.tmpdir(), 'switchyard-test-'));
  await chmod(work, 0o755);
  const stops: (() => Promise<void>)[] = [];
  try {
    const services = await startLocalServices(work, { log: say });
    stops.push(services.stop);
    const { databaseServerUrl: databaseUrl, temporalAddress } = services;
    const kind = services.temporal?.kind ?? 'external';
    const bundlePath = path.join(work, 'workflow-bundle.js');
    await writeFile(bundlePath, (await bundleWorkflows()).code as string);
    say('workflows bundled');

    say(`running ${files.length} test files (Temporal: ${kind === 'external' ? `TEMPORAL_ADDRESS ${temporalAddress}` : kind})`);
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? '2'}`, ...files], {
        stdio: 'inherit',
        env: {
          ...process.env,
          // The test files and every process they spawn load the sandbox (lib/sandbox/node-flags.ts).
          NODE_OPTIONS: [process.env.NODE_OPTIONS, ...SANDBOX_NODE_FLAGS].filter(Boolean).join(' '),
          SWITCHYARD_TEST_DATABASE_SERVER_URL: databaseUrl,
          SWITCHYARD_TEST_TEMPORAL_ADDRESS: temporalAddress,
          SWITCHYARD_TEST_WORKFLOW_BUNDLE: bundlePath,
          SWITCHYARD_TEST_WORK_DIR: work,
          ...('path' in browser ? { CHROMIUM_PATH: browser.path } : {}),
        },
      });
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
    });
    if (plan.line) console.log(plan.line);
    return plan.failAtEnd ? 1 : code;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await rm(work, { recursive: true, force: true }).catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
