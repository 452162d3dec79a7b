/**
 * Local only: runs functions of Nango's template library (NangoHQ/integration-templates, Elastic
 * License 2.0: used here as input on this machine, never copied into this repository) UNCHANGED on
 * a running Switchyard. For each integration named it copies one sync and two actions into a
 * scratch zero-yaml project, compiles it with our CLI (dropping, and reporting, the functions that
 * do not compile), deploys what compiled, points the integration at its fake from test/fakes/
 * through the base URL override, imports a connection, then runs the sync (records by GET /records)
 * and both actions (POST /action/trigger), and prints what passed.
 *
 *   node --import tsx scripts/corpus-run.ts --corpus /tmp/integration-templates \
 *     [--host http://localhost:3003] [--secret-key <dev key>] [github hubspot slack notion linear]
 *
 * The platform must let integrations reach 127.0.0.1 (SWITCHYARD_ALLOWED_PRIVATE_HOSTS=127.0.0.1);
 * the deploy replaces the environment's deployed functions (`deploy --yes`): use a platform of its own.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startGitHubFake, startHubSpotFake, startLinearFake, startNotionFake, startSlackFake, type FakeServer } from '../test/fakes/index.js';
import { ROOT, runCli } from '../test/nango-cli.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CONN = 'corpus-run';

interface ActionCall {
  name: string;
  /** The input, given what the earlier calls of this integration answered. */
  input: (earlier: Json[]) => Json;
}

interface Plan {
  fake: FakeServer<unknown>;
  /** The base URL override that points the provider at the fake. */
  baseUrl: string;
  token: string;
  metadata?: Json;
  sync: { name: string; model: string; expect: number };
  actions: [ActionCall, ActionCall];
}

/** One sync and two actions per integration, and the fake each runs against. */
const PLANS: Record<string, () => Promise<Plan>> = {
  async github() {
    const token = 'gho_corpus';
    const fake = await startGitHubFake({ token, repos: ['hello-world', 'spoon-knife', 'linguist'] });
    return {
      fake,
      baseUrl: fake.url,
      token,
      sync: { name: 'repositories', model: 'Repository', expect: 3 },
      actions: [
        { name: 'create-issue', input: () => ({ owner: 'octocat', repo: 'hello-world', title: 'From the corpus run', labels: ['bug'] }) },
        { name: 'get-issue', input: ([created]) => ({ owner: 'octocat', repo: 'hello-world', issue_number: created?.number ?? 1 }) },
      ],
    };
  },
  async hubspot() {
    const token = 'pat-corpus';
    const fake = await startHubSpotFake({
      token,
      owners: ['ada', 'alan', 'grace'].map((n) => ({ email: `${n}@example.com`, firstName: n, lastName: 'Owner' })),
    });
    return {
      fake,
      baseUrl: fake.url,
      token,
      sync: { name: 'owners', model: 'Owner', expect: 3 },
      actions: [
        { name: 'create-contact', input: () => ({ email: 'corpus@example.com', firstname: 'Corpus', lastname: 'Run' }) },
        { name: 'get-contact', input: ([created]) => ({ contactId: String(created?.id ?? '1') }) },
      ],
    };
  },
  async slack() {
    const token = 'xoxb-corpus';
    const fake = await startSlackFake({ token });
    return {
      fake,
      baseUrl: `${fake.url}/api`,
      token,
      // users.list: alice, bob, carol, dave (deleted) and the bot; the template keeps them all.
      sync: { name: 'users', model: 'User', expect: 5 },
      actions: [
        { name: 'send-message', input: () => ({ channel_id: 'C0GENERAL1', text: 'hello from the corpus run' }) },
        { name: 'get-user-info', input: () => ({ user_id: 'U0ALICE001' }) },
      ],
    };
  },
  async notion() {
    const token = 'secret_corpus';
    const fake = await startNotionFake({ token });
    const parent = fake.state.pages[0]!.id;
    return {
      fake,
      baseUrl: fake.url,
      token,
      // Three people and the integration's bot.
      sync: { name: 'users', model: 'User', expect: 4 },
      actions: [
        { name: 'create-page', input: () => ({ parent: { page_id: parent }, title: 'From the corpus run' }) },
        { name: 'retrieve-page', input: ([created]) => ({ page_id: String(created?.id ?? parent) }) },
      ],
    };
  },
  async linear() {
    const token = 'lin_oauth_corpus';
    const fake = await startLinearFake({ token, teams: ['Engineering', 'Design', 'Marketing'] });
    const team = fake.state.teams[0]!.id;
    return {
      fake,
      baseUrl: fake.url,
      token,
      sync: { name: 'teams', model: 'Team', expect: 3 },
      actions: [
        { name: 'create-issue', input: () => ({ teamId: team, title: 'From the corpus run', priority: 2 }) },
        { name: 'get-issue', input: ([created]) => ({ id: String(created?.identifier ?? 'ENG-1') }) },
      ],
    };
  },
};

/** The template file of each function this run uses. */
const FILES: Record<string, { sync: string; actions: [string, string] }> = {
  github: { sync: 'syncs/repositories.ts', actions: ['actions/create-issue.ts', 'actions/get-issue.ts'] },
  hubspot: { sync: 'syncs/owners.ts', actions: ['actions/create-contact.ts', 'actions/get-contact.ts'] },
  slack: { sync: 'syncs/users.ts', actions: ['actions/send-message.ts', 'actions/get-user-info.ts'] },
  notion: { sync: 'syncs/users.ts', actions: ['actions/create-page.ts', 'actions/retrieve-page.ts'] },
  linear: { sync: 'syncs/teams.ts', actions: ['actions/create-issue.ts', 'actions/get-issue.ts'] },
};

interface Outcome {
  integration: string;
  fn: string;
  ok: boolean;
  detail: string;
}

/** Copies a template file and the relative modules it imports, unchanged. */
async function copyWithImports(corpus: string, proj: string, rel: string, seen = new Set<string>()): Promise<void> {
  if (seen.has(rel)) return;
  seen.add(rel);
  await mkdir(path.dirname(path.join(proj, rel)), { recursive: true });
  await copyFile(path.join(corpus, rel), path.join(proj, rel));
  const source = await readFile(path.join(corpus, rel), 'utf8');
  for (const [, spec] of source.matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)) {
    const target = path.join(path.dirname(rel), spec!.replace(/\.js$/, '.ts'));
    const file = existsSync(path.join(corpus, target)) ? target : `${target}.ts`;
    if (existsSync(path.join(corpus, file))) await copyWithImports(corpus, proj, file, seen);
  }
}

/** A file's type errors: each one's most specific line (its last indented continuation, else the error itself), shortened. */
function compileReasons(output: string, file: string): { count: number; distinct: string[] } {
  const lines = output.split('\n');
  const reasons: string[] = [];
  lines.forEach((line, i) => {
    const m = new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\((\\d+),\\d+\\): error (TS\\d+): (.*)`).exec(line);
    if (!m) return;
    let detail = m[3]!;
    for (let j = i + 1; j < lines.length && /^\s{6,}\S/.test(lines[j]!); j++) detail = lines[j]!.trim();
    reasons.push(`${m[2]} line ${m[1]}: ${detail.replace(/'\{[^']*\}'/g, "'{…}'").slice(0, 140)}`);
  });
  const distinct = [...new Set(reasons.map((r) => r.replace(/ line \d+/, '')))];
  return { count: reasons.length, distinct };
}

/** Compiles, dropping each function the compile names in an error, until what is left compiles. */
async function compileWhatCompiles(proj: string, functions: string[], outcomes: Outcome[]): Promise<string[]> {
  let kept = [...functions];
  for (;;) {
    await writeFile(path.join(proj, 'index.ts'), kept.map((f) => `import './${f.replace(/\.ts$/, '.js')}';\n`).join(''));
    if (kept.length === 0) return kept;
    const r = await runCli(['compile', '--dir', proj]);
    if (r.code === 0) return kept;
    const out = r.stdout + r.stderr;
    const failing = kept.filter((f) => out.includes(f));
    if (failing.length === 0) throw new Error(`compile failed without naming a function:\n${out}`);
    for (const f of failing) {
      const reasons = compileReasons(out, f);
      outcomes.push({
        integration: f.split('/')[0]!,
        fn: f,
        ok: false,
        detail: `compile, ${reasons.count} error(s): ${reasons.distinct.slice(0, 3).join(' · ')}`,
      });
    }
    kept = kept.filter((f) => !failing.includes(f));
  }
}

async function api(
  host: string,
  key: string,
  pathname: string,
  init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Json }> {
  const res = await fetch(host + pathname, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, ...(init.json !== undefined && { 'content-type': 'application/json' }), ...init.headers },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  } catch {
    return { status: res.status, body: { text } };
  }
}

async function connect(host: string, key: string, integration: string, plan: Plan): Promise<void> {
  const existing = await api(host, key, `/integrations/${integration}`);
  const config = { integration_config: { base_url: plan.baseUrl } };
  const created =
    existing.status === 200
      ? await api(host, key, `/integrations/${integration}`, { method: 'PATCH', json: config })
      : await api(host, key, '/integrations', {
          method: 'POST',
          json: {
            provider: integration,
            unique_key: integration,
            credentials: { type: 'OAUTH2', client_id: 'corpus', client_secret: 'corpus', scopes: 'read' },
            ...config,
          },
        });
  if (created.status >= 300) throw new Error(`integration ${integration}: ${created.status} ${JSON.stringify(created.body)}`);
  await api(host, key, `/connections/${CONN}?provider_config_key=${integration}`, { method: 'DELETE' });
  const credentials = { type: 'OAUTH2', access_token: plan.token, expires_at: new Date(Date.now() + 24 * 3600_000).toISOString() };
  const conn = await api(host, key, '/connections', { method: 'POST', json: { provider_config_key: integration, connection_id: CONN, credentials } });
  if (conn.status >= 300) throw new Error(`connection ${integration}: ${conn.status} ${JSON.stringify(conn.body)}`);
}

async function runSync(host: string, key: string, integration: string, plan: Plan): Promise<Outcome> {
  const fn = `${integration}/${FILES[integration]!.sync}`;
  const headers = { 'connection-id': CONN, 'provider-config-key': integration };
  const triggeredAt = new Date().toISOString();
  const trigger = await api(host, key, '/sync/trigger', {
    method: 'POST',
    json: { provider_config_key: integration, connection_id: CONN, syncs: [plan.sync.name] },
  });
  if (trigger.status !== 200) return { integration, fn, ok: false, detail: `trigger: ${trigger.status} ${JSON.stringify(trigger.body)}` };
  const deadline = Date.now() + 180_000;
  let last = '';
  while (Date.now() < deadline) {
    const status = await api(host, key, `/sync/status?provider_config_key=${integration}&syncs=${plan.sync.name}&connection_id=${CONN}`);
    const sync = (status.body.syncs as Json[] | undefined)?.[0];
    last = JSON.stringify(sync ?? status.body).slice(0, 400);
    // The run this trigger asked for (or one that ended after it), not an earlier one.
    const ended = sync?.latestExecutionStatus !== 'RUNNING' && typeof sync?.finishedAt === 'string' && sync.finishedAt >= triggeredAt;
    if (ended && sync.latestExecutionStatus === 'SUCCESS') {
      const records = await api(host, key, `/records?model=${plan.sync.model}&limit=100`, { headers });
      const count = (records.body.records as Json[] | undefined)?.length ?? 0;
      return { integration, fn, ok: count === plan.sync.expect, detail: `${count} ${plan.sync.model} record(s), expected ${plan.sync.expect}` };
    }
    if (ended) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return { integration, fn, ok: false, detail: `sync did not succeed: ${last}` };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { corpus: { type: 'string' }, host: { type: 'string' }, 'secret-key': { type: 'string' } },
  });
  if (!values.corpus) throw new Error('--corpus <path to a clone of NangoHQ/integration-templates> is required');
  const corpus = path.join(path.resolve(values.corpus), 'integrations');
  const host = (values.host ?? process.env.SWITCHYARD_HOST ?? 'http://localhost:3003').replace(/\/+$/, '');
  const key = values['secret-key'] ?? process.env.SWITCHYARD_SECRET_KEY_DEV;
  if (!key) throw new Error('--secret-key (or SWITCHYARD_SECRET_KEY_DEV) is required');
  const names = positionals.length > 0 ? positionals : Object.keys(PLANS);
  for (const n of names) if (!PLANS[n]) throw new Error(`no plan for ${n}: one of ${Object.keys(PLANS).join(', ')}`);
  const commit = await new Promise<string>((resolve) => {
    const git = spawn('git', ['-C', corpus, 'rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    git.stdout.on('data', (d: Buffer) => (out += d.toString()));
    git.once('exit', () => resolve(out.trim() || 'unknown'));
  });
  console.log(`corpus ${corpus} at ${commit}; platform ${host}`);

  const outcomes: Outcome[] = [];
  const plans = new Map<string, Plan>();
  const proj = await mkdtemp(path.join(os.tmpdir(), 'corpus-run-'));
  try {
    for (const file of ['package.json', 'tsconfig.json']) await copyFile(path.join(corpus, file), path.join(proj, file));
    await mkdir(path.join(proj, 'node_modules'));
    await symlink(path.join(ROOT, 'node_modules', 'zod'), path.join(proj, 'node_modules', 'zod'), 'dir');
    await writeFile(path.join(proj, '.env'), `SWITCHYARD_HOST=${host}\nSWITCHYARD_SECRET_KEY_DEV=${key}\n`);
    const functions: string[] = [];
    for (const n of names) {
      const f = FILES[n]!;
      for (const rel of [f.sync, ...f.actions]) {
        await copyWithImports(corpus, proj, `${n}/${rel}`);
        functions.push(`${n}/${rel}`);
      }
      plans.set(n, await PLANS[n]!());
    }

    const compiled = await compileWhatCompiles(proj, functions, outcomes);
    console.log(`compiled ${compiled.length} of ${functions.length} function(s)`);
    // One deploy per integration: each stays under the API's request body limit, and a refusal names its integration.
    for (const [n, plan] of plans) {
      const mine = compiled.filter((f) => f.startsWith(`${n}/`));
      if (mine.length === 0) continue;
      await connect(host, key, n, plan);
      const deployed = await runCli(['deploy', 'dev', '--activate', '--yes', '--integration', n, '--dir', proj]);
      const lines = (deployed.stdout + deployed.stderr).trim().split('\n');
      console.log(`${n}: ${lines.filter((l) => /Deployed|✗/.test(l)).join(' | ')}`);
      if (deployed.code !== 0) {
        const reason = lines.filter((l) => l.startsWith('✗')).at(-1) ?? lines.at(-1);
        for (const f of mine) outcomes.push({ integration: n, fn: f, ok: false, detail: `deploy: ${reason}` });
        compiled.splice(0, compiled.length, ...compiled.filter((f) => !mine.includes(f)));
      }
    }
    for (const [n, plan] of plans) {
      const files = FILES[n]!;
      if (compiled.includes(`${n}/${files.sync}`)) outcomes.push(await runSync(host, key, n, plan));
      const answers: Json[] = [];
      for (const [i, call] of plan.actions.entries()) {
        const fn = `${n}/${files.actions[i]}`;
        if (!compiled.includes(fn)) continue;
        const res = await api(host, key, '/action/trigger', {
          method: 'POST',
          headers: { 'connection-id': CONN, 'provider-config-key': n },
          json: { action_name: call.name, input: call.input(answers) },
        });
        answers.push(res.body);
        outcomes.push({ integration: n, fn, ok: res.status === 200, detail: `${res.status} ${JSON.stringify(res.body).slice(0, 300)}` });
      }
    }
  } finally {
    for (const plan of plans.values()) await plan.fake.close();
    await rm(proj, { recursive: true, force: true });
  }

  for (const o of outcomes.sort((a, b) => a.fn.localeCompare(b.fn))) console.log(`${o.ok ? 'PASS' : 'FAIL'}  ${o.fn}  ${o.detail}`);
  const passed = outcomes.filter((o) => o.ok).length;
  console.log(`${passed} of ${outcomes.length} passed (${names.length} integration(s): one sync and two actions each)`);
  process.exitCode = passed === outcomes.length ? 0 : 1;
}

await main();
